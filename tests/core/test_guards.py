"""The gate guards itself (issue 12, seed 001's FORBIDDEN list): edited, deleted and new cases,
cached repetitions, a gate loosened or a flaky entry added against its base, and budgets."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.console import Console

from flipgate.core.errors import InputError
from flipgate.core.gate.changes import (
    Asked,
    CaseCached,
    CaseEdited,
    Edit,
    Questions,
    RuleEdit,
    SafetyEdit,
    edited_cases,
    edited_rules,
)
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.evidence import NewCases
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.invalid import (
    CachedReps,
    CasesEdited,
    FlakyAdded,
    GateLoosened,
    NamedCases,
)
from flipgate.core.gate.ledger import Unpaired
from flipgate.core.gate.loosening import (
    ORDER,
    BaseSource,
    GateBase,
    Loosened,
    flaky_added,
    loosened,
)
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run, run_from_records
from flipgate.present.reasons import sentence, summary
from flipgate.present.reasons.limits import figure
from flipgate.present.report import to_text, unchecked_note
from tests.conftest import (
    INSPECT_LOGS,
    PROMPTFOO_LOGS,
    SAMPLES,
    copy_sample,
    passfail_rows,
    write_run,
)

KEY = {"model": "m1", "prompt": "p1"}


def run(run_id: str, rows: list[dict[str, Any]]) -> Run:
    return run_from_records({"run_id": run_id, "key": KEY}, rows, source=Path(f"/runs/{run_id}"))


def listing(
    case: str, expected: dict[str, str], actual: dict[str, str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {"case": case, "rep": 0, "expected": expected, "actual": actual or expected, **extra}


def spec_from(tmp_path: Path, settings: dict[str, Any], name: str = "gate.yaml") -> GateSpec:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(settings))
    return load_spec(path)


STEADY = {f"case-{i:02d}": [True, True, True] for i in range(20)}


# --------------------------------------------------------------------------- cases


def test_an_edited_expected_label_is_invalid_and_named() -> None:
    base = run(
        "b", [listing("listing-001", {"prohibited_items": "approve", "recalled": "approve"})]
    )
    cand = run(
        "c",
        [
            listing(
                "listing-001",
                {"prohibited_items": "reject", "recalled": "approve"},
                {"prohibited_items": "approve", "recalled": "approve"},
            )
        ],
    )
    result = compare(base, cand, default_spec()).result
    assert (result.verdict, result.rule) == ("INVALID", "invalid")
    edit = RuleEdit("prohibited_items", Asked("labels", ("approve",)), Asked("labels", ("reject",)))
    assert result.changes.edited == {"listing-001": (edit,)}
    assert result.invalid_reasons == (CasesEdited((CaseEdited("listing-001", (edit,)),)),)
    assert summary(result) == (
        "INVALID: cases edited in the change under test: listing-001 prohibited_items: expected "
        "approve in the baseline, reject in the candidate"
    )


def test_an_edited_safety_flag_and_rule_set_are_invalid() -> None:
    rows = passfail_rows(STEADY)
    edited = [dict(r) for r in rows]
    for row in edited:
        if row["case"] == "case-03":
            row["safety"] = True
        if row["case"] == "case-04":
            row["passed"] = {"passed": True, "policy_ok": True}
    result = compare(run("b", rows), run("c", edited), default_spec()).result
    assert result.verdict == "INVALID"
    assert result.changes.edited == {
        "case-03": (SafetyEdit(baseline=False, candidate=True),),
        "case-04": (RuleEdit("policy_ok", Asked("absent"), Asked("check")),),
    }


def test_a_case_graded_by_labels_in_one_arm_and_checks_in_the_other_is_edited() -> None:
    base = run("b", [listing("x", {"policy": "approve"})])
    cand = run("c", [{"case": "x", "rep": 0, "passed": {"policy": True}}])
    assert compare(base, cand, default_spec()).result.changes.edited == {
        "x": (RuleEdit("policy", Asked("labels", ("approve",)), Asked("check")),)
    }


def test_an_infra_only_arm_is_no_edit() -> None:
    cand_rows = passfail_rows({**STEADY, "case-05": [None, None, None]})
    result = compare(run("b", passfail_rows(STEADY)), run("c", cand_rows), default_spec()).result
    assert (result.changes.edited, result.unpaired) == (
        {},
        (Unpaired("case-05", "infra", "candidate"),),
    )


LABELS = ("approve", "reject", "escalate")
# What a repetition asks: rule -> an expected label (a decision) or True/False (a check).
ASKS = st.dictionaries(
    st.sampled_from(("r1", "r2", "r3")), st.one_of(st.sampled_from(LABELS), st.booleans())
)
# A repetition: infra (maybe with what it was asked, half written) or graded by what it asks.
REPETITION = st.tuples(st.booleans(), ASKS).filter(lambda rep: rep[0] or bool(rep[1]))
SUITE = st.dictionaries(
    st.sampled_from([f"case-{i}" for i in range(8)]),
    st.tuples(st.booleans(), st.lists(REPETITION, min_size=1, max_size=3)),  # safety, reps
    min_size=1,
    max_size=8,
)


def suite_rows(suite: dict[str, tuple[bool, list[Any]]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for case, (safety, reps) in suite.items():
        for rep, (infra, asks) in enumerate(reps):
            row: dict[str, Any] = {"case": case, "rep": rep, "safety": safety}
            labels = {r: v for r, v in asks.items() if isinstance(v, str)}
            checks = {r: v for r, v in asks.items() if isinstance(v, bool)}
            row |= {"status": "infra", "infra": "timeout"} if infra else {}
            row |= {"expected": labels, "actual": labels} if labels else {}
            row |= {"passed": checks} if checks else {}
            rows.append(row)
    return rows


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(SUITE, SUITE, st.lists(st.booleans(), min_size=8, max_size=8), st.randoms())
def test_the_cheap_check_finds_every_edit_the_detailed_list_words(
    base: dict[str, Any], other: dict[str, Any], kept: list[bool], order: random.Random
) -> None:
    """`edited_cases` compares rule by rule only the cases whose sets of questions differ;
    comparing every case graded in both arms, and every case's safety flag, finds the same."""
    chosen = {
        case: base[case] if keep and case in base else other.get(case)
        for case, keep in zip([f"case-{i}" for i in range(8)], kept, strict=True)
    }
    cand: dict[str, Any] = {case: asks for case, asks in chosen.items() if asks is not None}
    assume(cand)
    rows = {"b": suite_rows(base), "c": suite_rows(cand)}
    order.shuffle(rows["c"])  # out of case order too: the hashed group-by
    baseline, candidate = (run(arm, arm_rows) for arm, arm_rows in rows.items())
    graded = [set(r.reps.filter(pl.col("status") == "ok")["case"]) for r in (baseline, candidate)]
    rules = edited_rules(baseline, candidate, pl.Series(sorted(graded[0] & graded[1])))
    detailed: dict[str, list[Edit]] = {case: list(edits) for case, edits in rules.items()}
    for case in sorted(set(base) & set(cand)):
        if base[case][0] != cand[case][0]:
            detailed.setdefault(case, []).append(SafetyEdit(base[case][0], cand[case][0]))
    found = edited_cases(Questions.of(baseline), Questions.of(candidate))
    assert found == {case: tuple(edits) for case, edits in sorted(detailed.items())}


def test_a_question_past_the_first_64_bits_is_still_an_edit() -> None:
    """20 rules of 4 questions each (two labels, none, a check) take two words of bits: the last
    rule's land in the second."""
    rules = [f"rule-{i:02d}" for i in range(20)]
    was = {rule: "approve" for rule in rules}
    now = was | {rules[-1]: "reject"}
    base = run("b", [listing("x", was), listing("y", was)])
    cand = run("c", [listing("x", now, was), listing("y", was)])
    assert edited_cases(Questions.of(base), Questions.of(cand)) == {
        "x": (RuleEdit("rule-19", Asked("labels", ("approve",)), Asked("labels", ("reject",))),)
    }


def test_a_deleted_broken_case_is_invalid_with_the_right_way_to_do_it(tmp_path: Path) -> None:
    """The issue's first scenario: delete a broken case's lines from the candidate's file."""
    workspace = tmp_path / "listing-reviewer"
    copy_sample("listing-reviewer", workspace)
    first = compare_workspace(workspace)
    broken = next(case for case, direction in first.result.flipped if direction == "pass_to_fail")
    results = workspace / "candidate" / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(line for line in lines if json.loads(line)["case"] != broken))

    result = compare_workspace(workspace).result
    assert (result.verdict, result.rule) == ("INVALID", "invalid")
    assert result.changes.deleted == (broken,)
    deleted = NamedCases("cases_deleted", (broken,))
    assert deleted in result.invalid_reasons
    words = sentence(deleted)
    assert "Retire a case in a separate, reviewed change, then rebaseline" in words
    assert "`status: infra`, not left out" in words


def test_a_new_case_is_listed_not_counted_with_the_advice_to_rebaseline() -> None:
    cand = passfail_rows({**STEADY, "case-new": [False, False, False]})
    result = compare(run("b", passfail_rows(STEADY)), run("c", cand), default_spec()).result
    assert result.verdict == "PASS"
    assert result.changes.new == ("case-new",)
    assert result.paired == 20
    assert result.warnings == (NewCases(("case-new",)),)
    assert sentence(result.warnings[0]).endswith("case-new; rebaseline to count them")


def compare_workspace(workspace: Path, spec: GateSpec | None = None) -> Comparison:
    return compare(
        load_run(workspace / "baseline"),
        load_run(workspace / "candidate"),
        spec or load_spec(workspace / "gate.yaml"),
    )


# --------------------------------------------------------------------------- cached


def cached(rows: list[dict[str, Any]], case: str, reps: tuple[int, ...]) -> list[dict[str, Any]]:
    return [r | {"cached": True} if r["case"] == case and r["rep"] in reps else r for r in rows]


def test_a_cached_candidate_repetition_is_invalid() -> None:
    rows = passfail_rows(STEADY)
    result = compare(
        run("b", rows), run("c", cached(rows, "case-07", (1, 2))), default_spec()
    ).result
    assert result.verdict == "INVALID"
    assert result.changes.cached == {"candidate": {"case-07": (2, 3)}}
    assert result.invalid_reasons == (
        CachedReps("candidate", (CaseCached("case-07", "candidate", cached=2, reps=3),)),
    )
    assert summary(result) == (
        "INVALID: cached candidate repetitions (the candidate is the measurement: run it live): "
        "case-07 (2 of 3)"
    )


def test_a_cached_baseline_is_fine_unless_the_case_is_a_safety_case() -> None:
    rows = passfail_rows(STEADY, safety=["case-01"])
    ordinary = compare(run("b", cached(rows, "case-02", (0, 1, 2))), run("c", rows), default_spec())
    assert ordinary.result.verdict == "PASS"
    safety = compare(run("b", cached(rows, "case-01", (0,))), run("c", rows), default_spec())
    assert safety.result.verdict == "INVALID"
    assert safety.result.changes.cached == {"baseline": {"case-01": (1, 3)}}
    assert safety.result.invalid_reasons == (
        CachedReps("baseline", (CaseCached("case-01", "baseline", cached=1, reps=3),)),
    )


def test_cached_must_be_a_bool(tmp_path: Path) -> None:
    rows = passfail_rows({"a": [True]})
    rows[0]["cached"] = "yes"
    write_run(tmp_path / "r", rows)
    with pytest.raises(InputError) as error:
        load_run(tmp_path / "r")
    assert (error.value.line, error.value.field) == (1, "cached")


def test_promptfoo_cached_responses_make_the_comparison_invalid(tmp_path: Path) -> None:
    doc = json.loads((PROMPTFOO_LOGS / "candidate" / "results.json").read_text())
    row = next(
        r for r in doc["results"]["results"] if r["testCase"]["description"] == "t01 stability"
    )
    row["response"]["cached"] = True
    candidate = tmp_path / "results.json"
    candidate.write_text(json.dumps(doc))
    result = compare(
        load_run(PROMPTFOO_LOGS / "baseline" / "results.json"), load_run(candidate), default_spec()
    ).result
    case = f"t01 stability [prompt={row['prompt']['label']}]"
    assert list(result.changes.cached["candidate"]) == [case]
    assert any(r.code == "cached_candidate" for r in result.invalid_reasons)


def test_inspect_cache_reads_are_cached_repetitions(tmp_path: Path) -> None:
    doc = json.loads((INSPECT_LOGS / "candidate.json").read_text())
    sample = doc["samples"][0]
    event = next(e for e in sample["events"] if e["event"] == "model")
    event["cache"] = "read"
    log = tmp_path / "candidate.json"
    log.write_text(json.dumps(doc))
    candidate = load_run(log)
    served = candidate.reps.filter(candidate.reps["cached"])
    assert served["case"].to_list() == [str(sample["id"])]
    assert served["rep"].to_list() == [sample["epoch"] - 1]
    assert not load_run(INSPECT_LOGS / "candidate.eval").reps["cached"].any()


# --------------------------------------------------------------------------- the base

FAIL_ON = ("false_negative", "false_positive", "inconclusive", "mirror")
# base, here, what the comparison finds, and its words (the first words of its sentence)
LOOSER = [
    (
        {"release": {"key": "resolved"}},
        {"release": {"key": "mean"}},
        Loosened("weakened", "release.key", "resolved", "mean"),
        "release.key: resolved in the base, mean here",
    ),
    (
        {"release": {"repetitions": 3}},
        {"release": {"repetitions": 2}},
        Loosened("lowered", "release.repetitions", 3, 2),
        "release.repetitions: 3 in the base, 2 here",
    ),
    (
        {"release": {"min_key": 4}},
        {},
        Loosened("removed", "release.min_key", 4, None),
        "release.min_key: 4 in the base, removed here",
    ),
    (
        {"test": "mid_p"},
        {},
        Loosened("weakened", "test", "mid_p", "exact"),
        "test: mid_p in the base, exact here",
    ),
    (
        {"clusters": "none"},
        {},
        Loosened("weakened", "clusters", "none", "template"),
        "clusters: none in the base, template here",
    ),
    (
        {"family": "per_path"},
        {},
        Loosened("weakened", "family", "per_path", "holm"),
        "family: per_path in the base, holm here",
    ),
    (
        {"looks": {"rule": "plain"}},
        {},
        Loosened(
            "lowered", "looks", "plain (0.05, 0.05, 0.05)", "spend 0.5 (0.025, 0.0125, 0.00625)"
        ),
        "looks: plain (0.05, 0.05, 0.05) in the base, spend 0.5 (0.025, 0.0125, 0.00625) here",
    ),
    (
        {"safety": {"max_rate": 0.01}},
        {"safety": {"max_rate": 0.05}},
        Loosened("raised", "safety.max_rate", 0.01, 0.05),
        "safety.max_rate: 0.01 in the base, 0.05 here",
    ),
    (
        {},
        {"permutations": {"seed": 7}},
        Loosened("weakened", "permutations", "2000 from seed 20261201", "2000 from seed 7"),
        "permutations: 2000 from seed 20261201 in the base, 2000 from seed 7 here",
    ),
    (
        {"alpha": 0.05},
        {"alpha": 0.01},
        Loosened("lowered", "alpha", 0.05, 0.01),
        "alpha: 0.05 in the base, 0.01 here",
    ),
    (
        {},
        {"sets": {"full": {"margin": 3}}},
        Loosened("raised", "sets.full.margin", 2, 3),
        "sets.full.margin: 2 in the base, 3 here",
    ),
    (
        {},
        {"sets": {"smoke": {"flip_cap": 5}}},
        Loosened("raised", "sets.smoke.flip_cap", 4, 5),
        "sets.smoke.flip_cap: 4 in the base, 5 here",
    ),
    (
        {},
        {"aggregate": {"safety": "majority"}},
        Loosened("weakened", "aggregate.safety", "all", "majority"),
        "aggregate.safety: all in the base, majority here",
    ),
    (
        {},
        {"infra": {"max_share": 0.1}},
        Loosened("raised", "infra.max_share", 0.05, 0.1),
        "infra.max_share: 0.05 in the base, 0.1 here",
    ),
    (
        {},
        {"flaky": {"max_share": 0.2}},
        Loosened("raised", "flaky.max_share", 0.05, 0.2),
        "flaky.max_share: 0.05 in the base, 0.2 here",
    ),
    (
        {},
        {"escalation": {"runs": 3}},
        Loosened("lowered", "escalation.runs", 5, 3),
        "escalation.runs: 5 in the base, 3 here",
    ),
    (
        {},
        {"outcomes": {"fail_on": ["false_negative", "false_positive", "mirror"]}},
        Loosened(
            "taken_out", "outcomes.fail_on", FAIL_ON, ("false_negative", "false_positive", "mirror")
        ),
        "outcomes.fail_on: inconclusive taken out",
    ),
    (
        {"outcomes": {"limits": {"false_negative_max": 3}}},
        {"outcomes": {"limits": {"false_negative_max": 4}}},
        Loosened("raised", "outcomes.limits.false_negative_max", 3, 4),
        "outcomes.limits.false_negative_max: 3 in the base, 4 here",
    ),
    (
        {},
        {"outcomes": {"limits": {"false_negative_max": None}}},
        Loosened(
            "unlimited",
            "outcomes.limits.false_negative_max",
            "baseline",
            None,
            baseline_false_negatives=2,
        ),
        "outcomes.limits.false_negative_max: baseline (2 here) in the base, null (no limit) here",
    ),
    (
        {},
        {"outcomes": {"limits": {"false_negative_max": 3}}},
        Loosened(
            "raised",
            "outcomes.limits.false_negative_max",
            "baseline",
            3,
            baseline_false_negatives=2,
        ),
        "outcomes.limits.false_negative_max: baseline (2 here) in the base, 3 here",
    ),
    (
        {"outcomes": {"limits": {"zero_false_negative_rules": ["recalled", "weapons"]}}},
        {"outcomes": {"limits": {"zero_false_negative_rules": ["weapons"]}}},
        Loosened(
            "taken_out",
            "outcomes.limits.zero_false_negative_rules",
            ("recalled", "weapons"),
            ("weapons",),
        ),
        "outcomes.limits.zero_false_negative_rules: recalled taken out",
    ),
    (
        {"outcomes": {"limits": {"inconclusive_max_share": 0.08}}},
        {"outcomes": {"limits": {"inconclusive_max_share": 0.1}}},
        Loosened("raised", "outcomes.limits.inconclusive_max_share", 0.08, 0.1),
        "outcomes.limits.inconclusive_max_share: 0.08 in the base, 0.1 here",
    ),
    (
        {"outcomes": {"limits": {"inconclusive_max_share": 0.08}}},
        {},
        Loosened("unlimited", "outcomes.limits.inconclusive_max_share", 0.08, None),
        "outcomes.limits.inconclusive_max_share: 0.08 in the base, null (no limit) here",
    ),
    (
        {"outcomes": {"limits": {"mirror_approved_max": "baseline"}}},
        {"outcomes": {"limits": {"mirror_approved_max": 1}}},
        Loosened(
            "raised",
            "outcomes.limits.mirror_approved_max",
            "baseline",
            1,
            baseline_mirror_approved=0,
        ),
        "outcomes.limits.mirror_approved_max: baseline (0 here) in the base, 1 here",
    ),
    (
        {"outcomes": {"limits": {"escalations_max_per_run": 40}}},
        {"outcomes": {"limits": {"escalations_max_per_run": 60}}},
        Loosened("raised", "outcomes.limits.escalations_max_per_run", 40, 60),
        "outcomes.limits.escalations_max_per_run: 40 in the base, 60 here",
    ),
    (
        {"budgets": {"cost_usd": {"stat": "mean", "max": 0.004}}},
        {"budgets": {"cost_usd": {"stat": "mean", "max": 0.005}}},
        Loosened("raised", "budgets.cost_usd.max", 0.004, 0.005, stat="mean"),
        "budgets.cost_usd (mean) max: 0.004 in the base, 0.005 here",
    ),
    (
        {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.1}}},
        {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.2}}},
        Loosened("raised", "budgets.latency_ms.max_increase", 0.1, 0.2, stat="p95", relative=True),
        "budgets.latency_ms (p95) max_increase: +10% in the base, +20% here",
    ),
    (  # a half percent is said as written, never rounded to a whole one (issue 26, defect 5)
        {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.055}}},
        {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.065}}},
        Loosened(
            "raised", "budgets.latency_ms.max_increase", 0.055, 0.065, stat="p95", relative=True
        ),
        "budgets.latency_ms (p95) max_increase: +5.5% in the base, +6.5% here",
    ),
    (
        {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.1}}},
        {},
        Loosened(
            "removed", "budgets.latency_ms.max_increase", 0.1, None, stat="p95", relative=True
        ),
        "budgets.latency_ms (p95) max_increase: +10% in the base, removed here",
    ),
]


def test_a_budget_on_another_statistic_is_another_budget(tmp_path: Path) -> None:
    p95 = spec_from(tmp_path, {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.1}}})
    mean = spec_from(
        tmp_path, {"budgets": {"latency_ms": {"stat": "mean", "max_increase": 0.1}}}, "m.yaml"
    )
    setting = "budgets.latency_ms.max_increase"
    assert loosened(mean, p95, 0) == [
        Loosened("removed", setting, 0.1, None, stat="p95", relative=True)
    ]
    assert loosened(p95, mean, 0) == [
        Loosened("removed", setting, 0.1, None, stat="mean", relative=True)
    ]


@pytest.mark.parametrize(("base", "now", "found", "words"), LOOSER)
def test_each_looser_setting_is_named_with_both_values(
    tmp_path: Path, base: dict[str, Any], now: dict[str, Any], found: Loosened, words: str
) -> None:
    assert loosened(spec_from(tmp_path, now), spec_from(tmp_path, base, "base.yaml"), 2) == [found]
    assert sentence(found).startswith(words)
    # the other way round, the same change tightens the gate: fine (but for another draw of the
    # permutations or another key, which are as much the change's choice either way)
    back = loosened(spec_from(tmp_path, base), spec_from(tmp_path, now, "base.yaml"), 2)
    assert back == (
        []
        if found.setting not in ("permutations", "release.key")
        else [replace(found, base=found.here, here=found.base)]
    )


def test_every_row_of_the_order_is_tested_and_in_the_docs() -> None:
    tested = {found.setting for _, _, found, _ in LOOSER}
    docs = (Path(__file__).parents[2] / "docs" / "gate.md").read_text()
    for setting, looser in ORDER.items():
        names = setting.split(", ")
        assert any(
            t.startswith(n.split(".NAME")[0].split(".METRIC")[0]) for n in names for t in tested
        )
        assert f"| {', '.join(f'`{n}`' for n in names)} | {looser} |" in docs, setting


def test_a_higher_alpha_blocks_more_so_it_is_stricter(tmp_path: Path) -> None:
    """The issue lists "alpha up" as looser; under `p <= alpha -> BLOCK` it is the other way
    (counted by case, alpha at every look: p 0.073)."""
    workspace = SAMPLES / "agent-suite"
    at = {
        alpha: compare_workspace(
            workspace,
            spec=spec_from(
                tmp_path, {"alpha": alpha, "clusters": "none", "looks": {"rule": "plain"}}
            ),
        ).result
        for alpha in (0.05, 0.10)
    }
    assert (at[0.05].verdict, at[0.10].verdict) == ("INCONCLUSIVE", "BLOCK")
    assert loosened(spec_from(tmp_path, {"alpha": 0.10}), default_spec(), 0) == []


def test_a_tightened_gate_is_fine(tmp_path: Path) -> None:
    tighter = {
        "alpha": 0.1,
        "sets": {"full": {"margin": 1, "flip_cap": 5}},
        "aggregate": {"ordinary": "all"},
        "escalation": {"runs": 9},
        "budgets": {"steps": {"stat": "mean", "max": 4}},
        "outcomes": {
            "limits": {"zero_false_negative_rules": ["recalled"], "inconclusive_max_share": 0.05}
        },
    }
    assert loosened(spec_from(tmp_path, tighter), default_spec(), 2) == []


def test_a_loosened_gate_makes_the_comparison_invalid(tmp_path: Path) -> None:
    rows = passfail_rows(STEADY)
    base = GateBase(default_spec(), None, BaseSource(ref="main"))
    looser = spec_from(tmp_path, {"sets": {"full": {"margin": 6}}})
    result = compare(run("b", rows), run("c", rows), looser, base=base).result
    assert (result.verdict, result.rule) == ("INVALID", "invalid")
    margin = Loosened("raised", "sets.full.margin", 2, 6)
    assert result.base.loosened == (margin,)
    assert result.invalid_reasons == (GateLoosened(BaseSource(ref="main"), (margin,)),)
    assert summary(result) == (
        "INVALID: the gate was loosened in the change under test (base: main): "
        "sets.full.margin: 2 in the base, 6 here"
    )
    assert result.base.unchecked == ("flaky_list",)


def entry(case: str) -> FlakyEntry:
    return FlakyEntry(case, "qa", date(2026, 11, 1), "why", "flipped 2 of 4")


def test_a_flaky_entry_added_is_invalid_and_one_removed_is_a_repair() -> None:
    rows = passfail_rows(STEADY)
    before = FlakyList((entry("case-01"), entry("case-02")))
    added = FlakyList((entry("case-01"), entry("case-02"), entry("case-03")))
    removed = FlakyList((entry("case-01"),))
    assert flaky_added(added, before) == ["case-03"]
    assert flaky_added(removed, before) == []
    big = replace(default_spec(), flaky_max_share=0.5)
    base = GateBase(big, before, BaseSource(ref="main"))
    result = compare(run("b", rows), run("c", rows), big, added, base=base).result
    assert result.verdict == "INVALID"
    assert result.base.flaky_added == ("case-03",)
    assert result.invalid_reasons == (FlakyAdded(BaseSource(ref="main"), ("case-03",)),)
    repaired = compare(run("b", rows), run("c", rows), big, removed, base=base).result
    assert repaired.verdict == "PASS"
    assert repaired.base.unchecked == ()


def test_without_a_base_the_gate_says_once_that_it_did_not_check() -> None:
    rows = passfail_rows(STEADY)
    result = compare(run("b", rows), run("c", rows), default_spec()).result
    assert result.base.unchecked == ("gate_spec", "flaky_list")
    assert unchecked_note(result) == (
        "no base gate spec or flaky list given (--base-ref REF, or --base-gate and --base-flaky): "
        "whether this change loosened the gate or added flaky entries was not checked"
    )
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(to_text(compare(run("b", rows), run("c", rows), default_spec())))
    assert console.export_text().count("was not checked") == 1


# --------------------------------------------------------------------------- budgets


def metric_rows(values: dict[str, list[float]], metric: str = "latency_ms") -> list[dict[str, Any]]:
    return [
        {"case": case, "rep": rep, "passed": True, metric: value}
        for case, reps in values.items()
        for rep, value in enumerate(reps)
    ]


RNG = np.random.default_rng(12)
BASE_LATENCY = {f"case-{i:02d}": [float(v) for v in RNG.integers(600, 1400, 3)] for i in range(20)}
# 60% slower: beyond what swapping the arms case by case gives (about +20% at 95% on 20 cases),
# so a +10% budget is exceeded beyond the noise and a +50% one is not
SLOWER = 1.6
CAND_LATENCY = {case: [v * SLOWER for v in reps] for case, reps in BASE_LATENCY.items()}
STATISTICS: dict[str, Callable[[npt.NDArray[np.float64]], float]] = {
    "mean": lambda a: float(np.mean(a)),
    "median": lambda a: float(np.median(a)),
    "p95": lambda a: float(np.percentile(a, 95)),
    "total": lambda a: float(np.sum(a)),
}


@pytest.mark.parametrize("stat", sorted(STATISTICS))
def test_each_statistic_with_an_absolute_and_a_relative_limit(tmp_path: Path, stat: str) -> None:
    base_values = np.array([v for reps in BASE_LATENCY.values() for v in reps])
    cand_values = base_values * SLOWER
    want_base, want_cand = STATISTICS[stat](base_values), STATISTICS[stat](cand_values)
    for budget, exceeded in (
        ({"max": float(want_cand) * 1.01}, False),
        ({"max": float(want_cand) * 0.99}, True),
        ({"max_increase": 0.50}, False),
        ({"max_increase": 0.10}, True),
    ):
        spec = spec_from(tmp_path, {"budgets": {"latency_ms": {"stat": stat, **budget}}})
        result = compare(
            run("b", metric_rows(BASE_LATENCY)), run("c", metric_rows(CAND_LATENCY)), spec
        ).result
        (check,) = result.budgets
        assert check.candidate == pytest.approx(want_cand)
        assert check.baseline == pytest.approx(want_base)
        assert check.exceeded is exceeded, (stat, budget)
        assert (result.verdict, result.rule) == (
            ("BLOCK", "budget") if exceeded else ("PASS", "within_margin")
        )


def test_a_budget_in_words_as_the_issue_writes_it() -> None:
    from flipgate.core.gate.budgets import _check
    from flipgate.core.gate.excess import BudgetNoise
    from flipgate.core.gate.spec import Budget

    # 2,000 swaps of the arms whose ratio reaches 1.06 at 95%: 1,412 / 1,197 = 1.18 is beyond
    # 1.1 x 1.06; 69 swaps reach 1.18 / 1.1, so p = (1 + 69) / 2,001
    swaps = np.sort(np.concatenate([np.linspace(0.9, 1.05, 1900), np.linspace(1.06, 1.1, 100)]))
    noise = BudgetNoise("p95", 1197, 1412, swaps, exact=False, alpha=0.05, seed=1)
    check = _check(Budget("latency_ms", "p95", max_increase=0.10), 1197, 1412, noise)
    assert check.code == "budget_exceeded"
    assert check.limit == pytest.approx(1197 * 1.1 * noise.noise)
    assert sentence(check) == (
        "latency_ms p95 1,412 ms is 18% above the baseline's 1,197 ms, budget +10%: beyond the "
        "noise, which reaches +6.0% at 95% (p 0.035, 2,000 swaps of the arms)"
    )
    cost = _check(Budget("cost_usd", "mean", max=0.004), None, 0.0035, None)
    assert (cost.code, cost.limit) == ("budget_met", 0.004)
    assert sentence(cost) == "cost_usd mean $0.0035 is within the budget of $0.004"
    assert figure("steps", 3.25) == "3.25" and figure("tokens", 2545.0) == "2,545"


def test_budgets_count_only_gradable_repetitions_of_paired_cases(tmp_path: Path) -> None:
    base = metric_rows({"a": [100, 100], "b": [100, 100]})
    cand = metric_rows({"a": [100, 100], "b": [100, 100], "new": [9000, 9000]})
    cand.append({"case": "a", "rep": 2, "status": "infra", "infra": "timeout", "latency_ms": 60000})
    spec = spec_from(tmp_path, {"budgets": {"latency_ms": {"stat": "total", "max_increase": 0}}})
    (check,) = compare(run("b", base), run("c", cand), spec).result.budgets
    assert (check.baseline, check.candidate, check.exceeded) == (400, 400, False)


def test_the_outcome_limits_come_before_budgets_and_budgets_before_the_margin(
    tmp_path: Path,
) -> None:
    spec = spec_from(
        tmp_path,
        {
            "budgets": {"latency_ms": {"stat": "mean", "max": 1}},
            "outcomes": {"limits": {"false_negative_max": 0}},
        },
    )
    base = [
        listing("a", {"r": "reject"}, latency_ms=5),
        listing("b", {"r": "approve"}, latency_ms=5),
    ]
    cand = [
        listing("a", {"r": "reject"}, {"r": "approve"}, latency_ms=5),
        listing("b", {"r": "approve"}, latency_ms=5),
    ]
    assert compare(run("b", base), run("c", cand), spec).result.rule == "outcome_limit"
    assert compare(run("b", base), run("c", base), spec).result.rule == "budget"


def test_a_teams_own_numeric_field_can_carry_a_budget(tmp_path: Path) -> None:
    base = metric_rows({"a": [3, 3]}, "tool_calls")
    cand = metric_rows({"a": [5, 5]}, "tool_calls")
    spec = spec_from(tmp_path, {"budgets": {"tool_calls": {"stat": "median", "max": 4}}})
    write_run(tmp_path / "b", base)
    write_run(tmp_path / "c", cand)
    for lean in (False, True):
        result = compare(
            load_run(tmp_path / "b", lean=lean), load_run(tmp_path / "c", lean=lean), spec
        ).result
        assert (result.rule, result.budgets[0].candidate) == ("budget", 5.0)


def test_a_budget_on_a_field_that_is_not_numeric_names_file_line_and_field(tmp_path: Path) -> None:
    rows = metric_rows({"a": [3, 3], "b": [1, 1]}, "tool_calls")
    rows[3]["tool_calls"] = "many"
    write_run(tmp_path / "c", rows)
    spec = spec_from(tmp_path, {"budgets": {"tool_calls": {"stat": "mean", "max": 4}}})
    with pytest.raises(InputError) as error:
        compare(load_run(tmp_path / "c"), load_run(tmp_path / "c"), spec)
    assert error.value.path == tmp_path / "c" / "results.jsonl"
    assert (error.value.line, error.value.field) == (4, "tool_calls")


def test_a_budget_on_a_field_no_line_records_names_the_gate_line(tmp_path: Path) -> None:
    spec = spec_from(tmp_path, {"alpha": 0.05, "budgets": {"tokens": {"stat": "mean", "max": 4}}})
    rows = passfail_rows(STEADY)
    with pytest.raises(InputError) as error:
        compare(run("b", rows), run("c", rows), spec)
    assert (error.value.path, error.value.field) == (tmp_path / "gate.yaml", "budgets.tokens")
    assert error.value.line == 3  # `  tokens:` under `budgets:`


@pytest.mark.parametrize(
    ("budget", "field", "message"),
    [
        ({"output": {"stat": "mean", "max": 1}}, "budgets.output", "not a numeric field"),
        ({"steps": {"stat": "p99", "max": 1}}, "budgets.steps.stat", "mean, median, p95, total"),
        ({"steps": {"stat": "mean"}}, "budgets.steps", "needs a limit"),
        ({"steps": {"stat": "mean", "max": "ten"}}, "budgets.steps.max", "must be a number"),
        ({"steps": {"stat": "mean", "cap": 1}}, "budgets.steps.cap", "unknown setting"),
        ({"steps": 3}, "budgets.steps", "a budget is a mapping"),
    ],
)
def test_a_malformed_budget_names_its_field(
    tmp_path: Path, budget: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(InputError, match=message) as error:
        spec_from(tmp_path, {"budgets": budget})
    assert error.value.field == field
    assert error.value.line is not None


def test_a_retired_case_taken_out_of_the_candidate_is_no_deletion() -> None:
    from flipgate.core.gate.retired import RetiredCase, Retirements

    cand = {case: reps for case, reps in STEADY.items() if case != "case-09"}
    retired = Retirements((RetiredCase("case-09", date(2026, 10, 1), "duplicate of case-08"),))
    result = compare(
        run("b", passfail_rows(STEADY)),
        run("c", passfail_rows(cand)),
        default_spec(),
        retired=retired,
    ).result
    assert (result.verdict, result.changes.deleted) == ("PASS", ())
