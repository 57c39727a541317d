"""Reasons as codes (issue 21): every code of every family has one payload class, is reached on
runs, and its payload carries data, never words.

Five small comparisons between them reach every code: a change that does everything seed 001
forbids, two arms that share no case, a labelled suite over its limits and budgets, and cloned
cases twice (their flips read two ways; crowding into one template). Their triage evidence
reaches every fact. The codes and payloads no other test pins are pinned here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.core.gate.attempts import Earlier, RerunUntilGreen
from flipgate.core.gate.binomial import clopper_pearson
from flipgate.core.gate.changes import CASE_CHANGES, RuleEdit, SafetyEdit, TemplateEdit
from flipgate.core.gate.compare import Comparison, GateResult, compare
from flipgate.core.gate.evidence import (
    GATE_WARNINGS,
    LIMIT_BREACHES,
    ChangedLate,
    EscalationsMaxPerRun,
    InconclusiveMaxShare,
    MirrorApprovedMax,
    ReadingsDisagree,
)
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.invalid import INVALID_REASONS, InfraShare, NamedCases
from flipgate.core.gate.judge import judge_repeats
from flipgate.core.gate.ledger import LEFT_OUT
from flipgate.core.gate.loosening import BaseSource, GateBase
from flipgate.core.gate.registered import (
    RegisteredAfterCandidate,
    Registration,
    RegistrationDiffers,
)
from flipgate.core.gate.retired import RetiredCase, Retirements
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import run_from_records
from flipgate.core.triage.evidence import STEP_FINDINGS, TRIAGE_FACTS, evidence
from flipgate.core.triage.flaky import JudgeUnstable
from flipgate.core.triage.grader import (
    GraderFindings,
    JudgeAlone,
    NoFlipToCompare,
    NoOutputGradedTwice,
)
from flipgate.core.triage.regression import TemplatesCluster, WhoFlipped
from flipgate.core.triage.stale import KeyHeld, RunCreated
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import (
    BASE_FILES,
    BOUND_CODES,
    BUDGET_CODES,
    CHANGE_CODES,
    EDIT_CODES,
    INVALID_CODES,
    LIMIT_CODES,
    LOOSENING_CODES,
    TRIAGE_CLASSES,
    TRIAGE_FACT_CODES,
    UNPAIRED_STATES,
    WARNING_CODES,
)

CREATED = "2026-11-20T09:00:00Z"
KEY = {"model": "m1", "prompt": "p1", "judge": "j1", "eval_set": "suite@v1"}
LATE = date(2026, 11, 25)  # after the baselines were created


def make_run(run_id: str, rows: list[dict[str, Any]], **manifest: Any) -> Run:
    head = {"run_id": run_id, "key": KEY, "created": CREATED, **manifest}
    return run_from_records(head, rows, source=Path(f"/runs/{run_id}"))


def passing(case: str, **fields: Any) -> list[dict[str, Any]]:
    return [{"case": case, "rep": rep, "passed": True, **fields} for rep in range(3)]


def failing(case: str, **fields: Any) -> list[dict[str, Any]]:
    return [row | {"passed": False} for row in passing(case, **fields)]


def spec_at(folder: Path, name: str, settings: dict[str, Any]) -> GateSpec:
    path = folder / name
    path.write_text(yaml.safe_dump(settings))
    return load_spec(path)


def entry(case: str) -> FlakyEntry:
    return FlakyEntry(case, "qa", LATE, "ambiguous rubric", "2 of 4 runs")


# --------------------------------------------------------------------------- the comparisons


def forbidden(folder: Path) -> Comparison:
    """Cases edited, deleted, new, cached, all infra, flipped on infra; the judge moved; a flaky
    list too long and holding a safety case; a gate loosened six ways, a flaky entry and a
    retirement added against the base; one run_id in both arms."""
    steady = [row for i in range(20) for row in passing(f"c{i:02d}")]
    base = [
        *steady,
        *passing("gone"),
        *passing("lost"),
        *passing("on-infra"),
        *passing("e1"),
        *passing("e2"),
        *passing("e3", template="refunds"),
        *(row | {"cached": row["rep"] == 0} for row in passing("s1", safety=True)),
    ]
    cand = [
        *(row | {"cached": (row["case"], row["rep"]) == ("c01", 0)} for row in steady),
        *passing("fresh"),
        *({"case": "lost", "rep": rep, "status": "infra", "infra": "crash"} for rep in range(3)),
        {"case": "on-infra", "rep": 0, "passed": False},
        *({"case": "on-infra", "rep": rep, "status": "infra"} for rep in (1, 2)),
        *(row | {"passed": {"passed": True, "policy_ok": True}} for row in passing("e1")),
        *passing("e2", safety=True),
        *passing("e3", template="returns"),
        *passing("s1", safety=True),
    ]
    cand = [row | {"passed": False} if row["case"] == "c02" else row for row in cand]
    moved = {**KEY, "model": "m2", "judge": "j2"}
    here = spec_at(
        folder,
        "gate.yaml",
        {
            "aggregate": {"safety": "majority"},
            "outcomes": {"fail_on": ["false_negative", "false_positive"]},
        },
    )
    at_base = spec_at(
        folder,
        "base-gate.yaml",
        {
            "alpha": 0.10,
            "sets": {"full": {"margin": 1}},
            "escalation": {"runs": 5},
            "outcomes": {"limits": {"inconclusive_max_share": 0.08}},
            "budgets": {"steps": {"stat": "mean", "max": 4}},
        },
    )
    return compare(
        make_run("same-id", base),
        make_run("same-id", cand, key=moved, change={"keys": ["model"], "summary": "m2"}),
        here,
        FlakyList((entry("s1"), entry("c02"), entry("c03"))),
        retired=Retirements(
            (RetiredCase("c19", LATE, "duplicate of c18"),),
            base=frozenset(),
            base_not_found=(("suite_manifest", "main:suite.yaml"),),  # the change added it
        ),
        base=GateBase(at_base, FlakyList((entry("s1"), entry("c02"))), BaseSource(ref="main")),
    )


def partial() -> Comparison:
    """Runs that say what they lack: a baseline that does not say whether it finished, short of
    a repetition of one case and with one excluded from another; a candidate that stopped
    before it ran a case."""
    steady = [row for i in range(10) for row in passing(f"p{i}")]
    base = [*steady, *passing("short")[:2], *passing("cut")[:2], *passing("never")]
    cand = [*steady, *passing("short"), *passing("cut")]
    said = {
        "finished": None,
        "status": "not stated",
        "totals": {"expected": 45, "present": 43, "excluded": 1},
        "cases": {
            "short": {"expected": 3, "present": 2},
            "cut": {"expected": 3, "present": 2, "excluded": 1},
        },
        "exclusions": [{"case": "cut", "rep": 2, "by": "qa", "reason": "leaked answer"}],
    }
    stopped = {
        "finished": False,
        "status": "stopped",
        "totals": {"expected": 45, "present": 42},
        "cases": {"never": {"expected": 3, "present": 0}},
    }
    return compare(
        make_run("b", base, completeness=said),
        make_run("c", cand, completeness=stopped),
        default_spec(),
    )


def renamed() -> Comparison:
    """`case-` renamed `CASE-`: no case in common, nothing compared; no base given."""
    base = make_run("b", [row for i in range(4) for row in passing(f"case-{i}")])
    cand = make_run("c", [row for i in range(4) for row in passing(f"CASE-{i}")])
    return compare(base, cand, default_spec())


def labelled(folder: Path) -> Comparison:
    """False negatives above the baseline's and on a rule that allows none, escalations over their
    budget and over the reviewers' queue, a borderline item approved, a second metric over its
    budget and one within; a suite that retires a case, with no base manifest given."""

    def line(case: str, rep: int, r2: str, latency: float, r3: str = "escalate") -> dict[str, Any]:
        return {
            "case": case,
            "rep": rep,
            "expected": {"r1": "approve", "r2": "reject", "r3": "escalate"},
            "actual": {"r1": "approve", "r2": r2, "r3": r3},
            "latency_ms": latency,
            "cost_usd": 0.001,
        }

    cases = [f"l{i:02d}" for i in range(10)]
    base = [line(case, rep, "reject", 100.0) for case in cases for rep in range(3)]
    # seven cases wave r2's violation through (+3 false negatives each: beyond the noise, p 1/128,
    # at or below 0.0125, Holm's first step where the flips share the first look's 0.025)
    said = {i: "approve" for i in range(7)} | {7: "escalate", 8: "escalate"}
    cand = [
        line(case, rep, said.get(i, "reject"), 130.0, "approve" if i == 5 else "escalate")
        for i, case in enumerate(cases)
        for rep in range(3)
    ]
    spec = spec_at(
        folder,
        "labelled.yaml",
        {
            "outcomes": {
                "fail_on": ["false_negative", "false_positive"],
                "limits": {
                    "zero_false_negative_rules": ["r2"],
                    "inconclusive_max_share": 0.05,
                    "mirror_approved_max": 0,
                    "escalations_max_per_run": 10,
                },
            },
            "budgets": {
                "latency_ms": {"stat": "mean", "max": 120},
                "cost_usd": {"stat": "mean", "max": 0.002},
            },
            "safety": {"max_rate": 0.9},  # two safety cases, both passing, bound it at 77.6%
        },
    )
    safe = [row for case in ("s1", "s2") for row in passing(case, safety=True)]
    retired = Retirements((RetiredCase("l09", date(2026, 10, 1), "superseded"),))
    return compare(
        make_run("b", [*base, *safe]), make_run("c", [*cand, *safe]), spec, retired=retired
    )


def bounded(folder: Path) -> Comparison:
    """A false negative over a limit that is a count, and two safety cases too few to bound
    their failure rate at 50% (77.6% at 95%)."""
    row = {"expected": {"r": "reject"}, "actual": {"r": "approve"}}
    base = [*passing("a"), *passing("s1", safety=True), *passing("s2", safety=True)]
    cand = [
        *(r | row for r in passing("a")),
        *passing("s1", safety=True),
        *passing("s2", safety=True),
    ]
    spec = spec_at(
        folder,
        "bounded.yaml",
        {"outcomes": {"limits": {"false_negative_max": 0}}, "safety": {"max_rate": 0.5}},
    )
    return compare(make_run("b", base), make_run("c", cand), spec)


def clones(crowded: bool) -> Comparison:
    """Eight broken cases, two from each of four templates: by case p = 1/256, by template 1/16,
    so the readings disagree; `crowded`, five more from one template, where they crowd. One
    broken case kept its baseline output under another grade; one steady case's grader gave one
    output both verdicts in both arms. Not `crowded`, the candidate's outputs were judged again,
    and the judge alone passed t1-0 (`rejudged/`)."""
    base: list[dict[str, Any]] = []
    cand: list[dict[str, Any]] = []
    for t in range(4):
        for i in range(2):
            case = f"t{t}-{i}"
            base += passing(case, template=f"tpl-{t}", output=f"{case} is fine")
            cand += failing(case, template=f"tpl-{t}", output=f"{case} is broken")
    for row in cand[:3]:  # t0-0's three repetitions
        row["output"] = "t0-0 is fine"
    for arm in (base, cand):
        arm += [
            {"case": "n0", "rep": rep, "passed": passed, "output": "n0 as always"}
            for rep, passed in enumerate((True, False, True))
        ]
    for i in range(20):
        base += passing(f"k{i:02d}")
        cand += passing(f"k{i:02d}")
    if crowded:
        base += [row for i in range(5) for row in passing(f"x{i}", template="refunds")]
        cand += [row for i in range(5) for row in failing(f"x{i}", template="refunds")]
    candidate = make_run("c", cand)
    comparison = compare(make_run("b", base), candidate, default_spec())
    if crowded:
        return comparison
    again = [row | {"passed": True} if row["case"] == "t1-0" else row for row in cand]
    judged = judge_repeats("candidate", candidate, [make_run("c", again)], default_spec())
    return replace(comparison, judge_repeats=(judged,))


def registered(folder: Path) -> Comparison:
    """A rule registered with alpha 0.01 and no flaky list, applied with alpha 0.05 and a list;
    registered a day after the candidate run was created."""
    rows = [row for i in range(10) for row in passing(f"r{i}")]
    registration = Registration(
        path=folder / "prereg.yaml",
        digest="sha256:" + "0" * 64,
        registered=datetime(2026, 11, 21, 9, tzinfo=UTC),
        signer="Ada <ada@example.com>",
        spec_digest="sha256:" + "1" * 64,
        settings={**default_spec().settings, "alpha": 0.01},
        flaky_digest="sha256:" + "2" * 64,
        suite_digest=None,
        change=None,
        baseline_run_id="b",
        baseline_key=KEY,
    )
    spec = spec_at(folder, "registered.yaml", {"alpha": 0.05})
    return compare(make_run("b", rows), make_run("c", rows), spec, registration=registration)


def rerun_until_green() -> Comparison:
    """A PASS of a change whose first two attempts said BLOCK and INCONCLUSIVE."""
    rows = [row for i in range(10) for row in passing(f"g{i}")]
    earlier = Earlier("pr-42", 3, 3, ("BLOCK", "INCONCLUSIVE"), ("BLOCK", "INCONCLUSIVE"))
    return compare(make_run("b", rows), make_run("c", rows), default_spec(), earlier=earlier)


Found = dict[str, tuple[GateResult, list[TriageStep]]]


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> Found:
    folder = tmp_path_factory.mktemp("codes")
    comparisons = {
        "forbidden": forbidden(folder),
        "renamed": renamed(),
        "partial": partial(),
        "labelled": labelled(folder),
        "bounded": bounded(folder),
        "clones": clones(crowded=False),
        "crowded": clones(crowded=True),
        "registered": registered(folder),
        "rerun": rerun_until_green(),
    }
    # the clones' baseline given again as an identical run: the flaky step compares with it
    return {
        name: (c.result, evidence(c, (c.baseline,) if name == "clones" else ()))
        for name, c in comparisons.items()
    }


def reasons(result: GateResult) -> Iterator[Any]:
    """Every reason a comparison gives, each with its code, the ones inside another too."""
    yield from (*result.invalid_reasons, *result.limit_breaches, *result.budgets)
    yield from (result.safety_bound,) if result.safety_bound is not None else ()
    yield from (*result.warnings, *result.unpaired, *result.changes.entries())
    yield from result.base.loosened
    for edits in result.changes.edited.values():
        yield from edits


def facts(steps: list[TriageStep]) -> Iterator[Any]:
    for step in steps:
        yield step.summary
        yield from step.facts


# --------------------------------------------------------------------------- the families


FAMILIES = {
    "invalid": INVALID_CODES,
    "limit": LIMIT_CODES,
    "bound": BOUND_CODES,
    "budget": BUDGET_CODES,
    "warning": WARNING_CODES,
    "unpaired": UNPAIRED_STATES,
    "change": CHANGE_CODES,
    "edit": EDIT_CODES,
    "loosening": LOOSENING_CODES,
    "triage fact": TRIAGE_FACT_CODES,
    "triage findings": TRIAGE_CLASSES,
}


def by_code(classes: tuple[type, ...]) -> dict[str, type]:
    """A table of classes that each hold one code (`code` a class variable), by code."""
    return {cls.code: cls for cls in classes}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("payloads", "codes"),
    [
        (INVALID_REASONS, INVALID_CODES),
        (LEFT_OUT, UNPAIRED_STATES),
        (LIMIT_BREACHES, LIMIT_CODES),
        (GATE_WARNINGS, WARNING_CODES),
        (CASE_CHANGES, CHANGE_CODES),
        (by_code((RuleEdit, SafetyEdit, TemplateEdit)), EDIT_CODES),
        (by_code(TRIAGE_FACTS), TRIAGE_FACT_CODES),
        (by_code(STEP_FINDINGS), TRIAGE_CLASSES),
    ],
)
def test_each_code_has_its_payload_class_in_its_order(
    payloads: dict[str, type], codes: tuple[str, ...]
) -> None:
    """A class holds one code, or several that share its values (`NamedCases`: the cases)."""
    assert tuple(payloads) == codes
    for cls in payloads.values():
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_every_code_is_reached(found: Found) -> None:
    reached = {
        code
        for result, steps in found.values()
        for item in (*reasons(result), *facts(steps))
        for code in [item.code]
    }
    for family, codes in FAMILIES.items():
        assert set(codes) <= reached, (family, sorted(set(codes) - reached))
    unchecked = {u for result, _ in found.values() for u in result.base.unchecked}
    assert unchecked == set(BASE_FILES)


def words(value: Any) -> Iterator[str]:
    """Every string a payload holds, however deep."""
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from words(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from words(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from words(key)
            yield from words(item)


def test_the_core_says_no_sentence(found: Found) -> None:
    """The core finds, the presentation words: every string in a payload is a code, an
    identifier (a setting's path, a case, a rule) or a string from the inputs. None of the first
    two holds a space; the inputs here hold spaces only in the flaky entries' and retirements'
    free text. A sentence built in the core would hold one and fail this."""
    free_text = {
        "ambiguous rubric",
        "2 of 4 runs",
        "duplicate of c18",
        "superseded",
        "leaked answer",
        "Ada <ada@example.com>",  # a registration's signer, as its file names them
    }
    for name, (result, steps) in found.items():
        for item in (*reasons(result), *facts(steps)):
            assert not isinstance(item, str), (name, item)
            spaced = [w for w in words(item) if any(c.isspace() for c in w)]
            assert set(spaced) <= free_text, (name, item.code, spaced)


# --------------------------------------------------------------------------- the payloads


def first(items: Any, kind: type) -> Any:
    return next(item for item in items if isinstance(item, kind))


def test_the_payloads_no_other_test_pins(found: Found) -> None:
    forbidden, steps = found["forbidden"]
    assert first(forbidden.invalid_reasons, InfraShare) == InfraShare(
        "candidate", 5 / 81, 5, 81, 0.05
    )
    assert NamedCases("retirement_added", ("c19",)) in forbidden.invalid_reasons
    made = date(2026, 11, 20)
    assert [w for w in forbidden.warnings if isinstance(w, ChangedLate)] == [
        ChangedLate("flaky_added_late", ("s1", "c02", "c03"), made),
        ChangedLate("retired_late", ("c19",), made),
    ]
    assert [(e.code, e.case) for e in forbidden.changes.entries()] == [
        ("edited", "e1"),
        ("edited", "e2"),
        ("edited", "e3"),
        ("deleted", "gone"),
        ("new", "fresh"),
        ("cached", "c01"),
        ("cached", "s1"),
    ]
    assert [(loose.code, loose.setting) for loose in forbidden.base.loosened] == [
        ("lowered", "alpha"),
        ("raised", "sets.full.margin"),
        ("unlimited", "outcomes.limits.inconclusive_max_share"),
        ("removed", "budgets.steps.max"),
        ("weakened", "aggregate.safety"),
        ("taken_out", "outcomes.fail_on"),
    ]
    # the two flips (c02, listed; on-infra) hold no output to compare
    assert first(facts(steps), NoOutputGradedTwice) == NoOutputGradedTwice(compared=2)
    assert [fact.arm for fact in facts(steps) if isinstance(fact, RunCreated)] == [
        "baseline",
        "candidate",
    ]

    renamed, steps = found["renamed"]
    assert first(facts(steps), NoFlipToCompare) == NoFlipToCompare()
    assert renamed.base.unchecked == ("gate_spec", "flaky_list")

    labelled, _ = found["labelled"]
    assert first(labelled.limit_breaches, InconclusiveMaxShare) == InconclusiveMaxShare(
        6 / 90, 0.05, 6, 90
    )
    # l05's r3 approved on each of 3 repetitions, where none is allowed (against the baseline's
    # it is one case, within the noise: tests/present/test_outcome_tables.py)
    assert first(labelled.limit_breaches, MirrorApprovedMax) == MirrorApprovedMax(
        "r3", 3, 0, of_baseline=False
    )
    # 2 inconclusive and 9 right escalations in each repetition: 11, above the queue of 10
    assert first(labelled.limit_breaches, EscalationsMaxPerRun) == EscalationsMaxPerRun(11, 10, 3)
    assert [(b.budget.metric, b.code) for b in labelled.budgets] == [
        ("cost_usd", "budget_met"),
        ("latency_ms", "budget_exceeded"),
    ]
    assert labelled.base.unchecked == ("gate_spec", "flaky_list", "suite_manifest")

    clones, steps = found["clones"]
    # the readings fall either side of the first look's 0.025; the rule counted templates
    assert clones.warnings == (
        ReadingsDisagree(
            8, 4, clones.clusters.p_by_case, clones.clusters.p_by_template, 0.025, "template"
        ),
    )
    assert (clones.clusters.p_by_case, clones.clusters.p_by_template) == pytest.approx(
        (1 / 256, 1 / 16)
    )
    assert KeyHeld() in facts(steps)
    # t1-0's verdict moved under the judge alone: the flaky step explains it, and cites the
    # judge's rate beside (1 of 87 candidate outputs got another verdict)
    assert first(facts(steps), JudgeUnstable) == JudgeUnstable("candidate", 2, ("t1-0",))
    alone = first(facts(steps), JudgeAlone)
    assert (alone.arm, alone.rule, alone.outputs, alone.flipped) == ("candidate", "passed", 87, 3)
    assert (alone.low, alone.high) == pytest.approx(clopper_pearson(3, 87, 0.95))
    # t0-0 kept its output under another grade: the grader step explains it, 6 remain, all
    # with another output (the model)
    assert first(facts(steps), TemplatesCluster) == TemplatesCluster(broken=6, templates=4)
    assert steps[2].summary == GraderFindings(judge_moved=False, same_output=1, flipped=8)
    who = first(facts(steps), WhoFlipped)
    assert (len(who.model), who.grader, who.unknown) == (6, (), ())

    held, _ = found["registered"]
    differs, late = held.invalid_reasons
    assert isinstance(differs, RegistrationDiffers) and isinstance(late, RegisteredAfterCandidate)
    assert [(d.field, d.registered, d.applied) for d in differs.fields] == [
        ("gate_spec.alpha", 0.01, 0.05),
        ("flaky_list.digest", "sha256:" + "2" * 64, FlakyList().digest),
    ]
    assert late.candidate == "c" and late.created < late.registered

    rerun, _ = found["rerun"]
    assert rerun.verdict == "INVALID"
    assert rerun.invalid_reasons == (RerunUntilGreen("pr-42", 3, ("BLOCK", "INCONCLUSIVE")),)
