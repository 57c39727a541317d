"""The case ledger (issue 22 item 1, SPEC §9): every case of either arm ends in exactly one state,
each arm's cases add up, a run that did not finish or lacks repetitions is INVALID, and
`--allow-partial` never gives a PASS.

The balance is checked against each arm's own count of its cases (its lines' case ids, and the
cases its run says it planned and never ran), on every sample, every real tool's fixture and
runs drawn with repetitions taken out.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rich.console import Console

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.invalid import MissingRepetitions, RunNotFinished
from flipgate.core.gate.ledger import RepsExcluded, RepsMissing, Unpaired
from flipgate.core.gate.pairing import safety_counts
from flipgate.core.gate.rules import decide
from flipgate.core.gate.spec import default_spec
from flipgate.core.importers import ImportOptions
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run, run_from_records
from flipgate.core.vocab import ARMS, CASE_STATES, Arm, UnpairedState
from flipgate.present.report import ledger_words, to_json, to_text
from tests.conftest import SAMPLES, KeyMaker, passfail_rows, write_run
from tests.importers.conftest import (
    INSPECT,
    INSPECT_LOGS,
    PROMPTFOO,
    deepeval_run,
    lm_eval_results,
)


def known_cases(run: Run) -> set[str]:
    """An arm's cases, counted apart from the gate: its lines' case ids, and the cases its run
    says it planned (those never run among them)."""
    stated = set(run.completeness.cases) if run.completeness else set()
    return set(run.reps["case"].to_list()) | stated


def assert_balanced(comparison: Comparison) -> None:
    result, ledger = comparison.result, comparison.result.ledger
    assert ledger.balanced
    table = comparison.cases
    assert table["case"].is_unique().all()
    for arm in ARMS:
        known = known_cases(comparison.run(arm))
        arm_ledger = ledger.arms[arm]
        assert arm_ledger.cases == len(known) == sum(arm_ledger.states.values())
        left_out = {case for cases in arm_ledger.left_out.values() for case in cases}
        assert left_out <= known
        assert arm_ledger.states["paired"] == len(known - left_out)
    assert set(table["case"]) == known_cases(comparison.baseline) | known_cases(
        comparison.candidate
    )
    # each case in exactly one state: left out with one payload, or paired
    assert len(result.unpaired) == len(result.unpaired_by_case) == table["unpaired"].count()
    assert ledger.counted == sum(result.cells.values())


# --------------------------------------------------------------------------- samples, fixtures


def sample_pairs() -> Iterator[tuple[str, Path, Path, Path | None]]:
    for name in ("agent-suite", "listing-reviewer", "listing-reviewer-decisive"):
        yield (
            name,
            SAMPLES / name / "baseline",
            SAMPLES / name / "candidate",
            SAMPLES / name / "flaky.yaml",
        )
    yield (
        "support-assistant",
        SAMPLES / "support-assistant/baseline",
        SAMPLES / "support-assistant/candidate",
        None,
    )
    for candidate in sorted((SAMPLES / "winner-rule/candidates").iterdir()):
        yield f"winner-rule/{candidate.name}", SAMPLES / "winner-rule/baseline", candidate, None


@pytest.mark.parametrize(
    ("name", "baseline", "candidate", "flaky"), list(sample_pairs()), ids=lambda x: str(x)
)
def test_the_ledger_balances_on_every_sample(
    name: str, baseline: Path, candidate: Path, flaky: Path | None
) -> None:
    comparison = compare(load_run(baseline), load_run(candidate), default_spec(), load_flaky(flaky))
    assert_balanced(comparison)
    for arm_ledger in comparison.result.ledger.arms.values():
        assert arm_ledger.status is None  # our own runs state no completeness: taken as whole


def gated(baseline: Path, candidate: Path, **options: Any) -> Comparison:
    chosen = ImportOptions(**options)
    return compare(
        load_run(baseline, import_options=chosen),
        load_run(candidate, import_options=chosen),
        default_spec(),
    )


def fixture_pairs() -> Iterator[tuple[str, Path, Path, dict[str, Any]]]:
    for name in INSPECT_LOGS:
        yield f"inspect/{name}", INSPECT / "baseline.eval", INSPECT / f"{name}.eval", {}
        yield (
            f"inspect/{name} as baseline",
            INSPECT / f"{name}.eval",
            INSPECT / "candidate.eval",
            {},
        )
    for folder in ("file-prompts", "interrupted"):
        log = PROMPTFOO / folder / "results.json"
        for prompt in ("v1", "v2"):
            yield f"promptfoo/{folder} {prompt}", log, log, {"select": {"prompt": prompt}}
    yield "lm_eval", lm_eval_results("baseline"), lm_eval_results("candidate"), {}
    yield "deepeval", deepeval_run("baseline"), deepeval_run("candidate"), {}


@pytest.mark.parametrize(
    ("name", "baseline", "candidate", "options"), list(fixture_pairs()), ids=lambda x: str(x)
)
def test_the_ledger_balances_on_every_real_fixture(
    name: str, baseline: Path, candidate: Path, options: dict[str, Any]
) -> None:
    assert_balanced(gated(baseline, candidate, **options))


def states(comparison: Comparison, arm: Arm) -> dict[UnpairedState, tuple[str, ...]]:
    return comparison.result.ledger.arms[arm].left_out


def test_a_killed_cancelled_or_errored_inspect_run_is_invalid_naming_the_run_and_counts() -> None:
    for name, status, ran in (
        ("killed", "started", 10),
        ("cancelled", "cancelled", 14),
        ("error", "error", 4),
    ):
        comparison = gated(INSPECT / "baseline.eval", INSPECT / f"{name}.eval")
        result = comparison.result
        assert (result.verdict, result.rule) == ("INVALID", "invalid")
        stopped = next(r for r in result.invalid_reasons if isinstance(r, RunNotFinished))
        assert (stopped.arm, stopped.source, stopped.status) == (
            "candidate",
            f"{name}.eval",
            status,
        )
        assert (stopped.planned, stopped.missing) == (24, 24 - ran)
        ledger = result.ledger.arms["candidate"]
        assert (ledger.finished, ledger.reps, ledger.missing) == (False, ran, 24 - ran)
        # every case of the fixture's 8 lacks an epoch: none is paired, none deleted
        assert states(comparison, "candidate") == {
            "run_not_finished": ("1", "2", "3", "4", "9", "10", "11", "20")
        }
        assert not result.changes.deleted
    errored = gated(INSPECT / "baseline.eval", INSPECT / "error.eval").result
    assert errored.unpaired_by_case["3"] == RepsMissing(
        "3", "run_not_finished", "candidate", 3, 1, 1, 2
    )
    assert errored.unpaired_by_case["9"] == RepsMissing(
        "9", "run_not_finished", "candidate", 3, 0, 0, 3
    )


@pytest.mark.parametrize("errored_arm", ARMS)
def test_an_arm_whole_says_its_cases_were_left_out_for_the_other_run(errored_arm: Arm) -> None:
    """The errored Inspect run's cases are left out of both arms; the arm that finished says they
    are left out for the other's run, not its own: `baseline 8 cases = 0 paired + 8 run not
    finished in the candidate`."""
    whole: Arm = "baseline" if errored_arm == "candidate" else "candidate"
    runs = {whole: INSPECT / f"{whole}.eval", errored_arm: INSPECT / "error.eval"}
    ledger = gated(runs["baseline"], runs["candidate"]).result.ledger
    assert ledger.arms[whole].for_other == {"run_not_finished": 8}
    assert ledger.arms[errored_arm].for_other == {}
    assert ledger_words(whole, ledger.arms[whole]) == (
        f"{whole} 8 cases = 0 paired + 8 run not finished in the {errored_arm}"
    )
    assert ledger_words(errored_arm, ledger.arms[errored_arm]) == (
        f"{errored_arm} 8 cases = 0 paired + 8 run not finished"
    )


def test_a_safety_case_not_measured_whole_bounds_nothing() -> None:
    """The killed run's safety case ran one epoch of three and passed it: no evidence of a
    rate, so the bound counts no case; the finished candidate's counts it."""
    killed = gated(INSPECT / "baseline.eval", INSPECT / "killed.eval").result.safety_bound
    whole = gated(INSPECT / "baseline.eval", INSPECT / "candidate.eval").result.safety_bound
    assert killed is not None and whole is not None
    assert (killed.cases, killed.failed, whole.cases, whole.failed) == (0, 0, 1, 0)


def test_a_failed_safety_case_is_counted_failed_however_little_of_it_was_graded() -> None:
    """One repetition graded (or none: it failed as infra) still fails its case in the bound."""
    cases = pl.DataFrame(
        {
            "case": ["s1", "s2", "s3", "s4"],
            "safety": [True, True, True, True],
            "template": [None, None, None, None],
            "cand_gradable": [1, 0, 3, 2],
            "unpaired": [None, "infra", None, "run_not_finished"],
        },
        schema_overrides={"template": pl.String},
    )
    assert safety_counts(cases, ("s1", "s2"), by_template=False) == (3, 2)


def test_inspect_s_invalidated_samples_are_excluded_with_who_and_why() -> None:
    comparison = gated(INSPECT / "baseline.eval", INSPECT / "excluded.eval")
    result = comparison.result
    assert states(comparison, "candidate") == {"excluded": ("3", "20")}
    assert states(comparison, "baseline") == {"excluded": ("3", "20")}
    left = result.unpaired_by_case["20"]
    assert isinstance(left, RepsExcluded) and (left.excluded, left.planned) == (3, 3)
    assert {(e.by, e.reason) for e in left.exclusions} == {
        ("qa@example.com", "ticket text leaked the answer")
    }
    # an exclusion is a choice on the record, not a case deleted: the gate still judges the rest
    assert not result.changes.deleted and result.verdict == "PASS"


def test_a_case_no_repetition_of_which_is_gradable_is_infra() -> None:
    comparison = gated(INSPECT / "baseline.eval", INSPECT / "limits.eval")
    assert states(comparison, "candidate") == {"infra": ("9", "11")}


def test_an_interrupted_promptfoo_export_is_invalid() -> None:
    log = PROMPTFOO / "interrupted/results.json"
    comparison = compare(
        load_run(
            PROMPTFOO / "file-prompts/results.json",
            import_options=ImportOptions(select={"prompt": "v1"}),
        ),
        load_run(log, import_options=ImportOptions(select={"prompt": "v1"})),
        default_spec(),
    )
    result = comparison.result
    # its safety test never ran: the safety rule, before any counting, blocks; the reason the
    # comparison is invalid is found and listed all the same
    assert (result.verdict, result.rule) == ("BLOCK", "safety")
    assert result.safety_failures == ("lost notes",)
    assert result.unpaired_by_case["lost notes"].code == "run_not_finished"
    stopped = next(r for r in result.invalid_reasons if isinstance(r, RunNotFinished))
    assert (stopped.arm, stopped.status, stopped.planned) == ("candidate", "rows missing", 24)
    assert result.ledger.arms["candidate"].states["run_not_finished"] == stopped.not_whole > 0


def test_a_deepeval_run_does_not_say_whether_it_finished(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not INVALID for it (nothing it holds is missing; the infra share is another matter), and
    said: a note on each arm."""
    main(
        ["gate", str(deepeval_run("baseline")), str(deepeval_run("candidate")), "--format", "json"]
    )
    report = json.loads(capsys.readouterr().out)
    assert [r["code"] for r in report["invalid"]] == ["infra_share", "infra_share"]
    notes = [n for n in report["notices"] if n["code"] == "finish_not_stated"]
    assert [(n["arm"], n["tool"], n["cases"]) for n in notes] == [
        ("baseline", "deepeval", 6),
        ("candidate", "deepeval", 6),
    ]
    assert report["ledger"]["candidate"]["run"]["finished"] is None


def test_new_deleted_and_infra_cases_keep_their_states() -> None:
    base = passfail_rows({"kept": [True], "gone": [True], "lost": [True]})
    cand = passfail_rows({"kept": [True], "fresh": [True], "lost": [None]})
    comparison = compare(
        run_from_records({"run_id": "b"}, base, source=Path("/b")),
        run_from_records({"run_id": "c"}, cand, source=Path("/c")),
        default_spec(),
    )
    assert_balanced(comparison)
    assert comparison.result.unpaired == (
        Unpaired("fresh", "new", "candidate"),
        Unpaired("gone", "deleted", "baseline"),
        Unpaired("lost", "infra", "candidate"),
    )
    ledger = comparison.result.ledger
    assert (ledger.arms["baseline"].cases, ledger.arms["candidate"].cases) == (3, 3)
    assert ledger.arms["baseline"].left_out == {"deleted": ("gone",), "infra": ("lost",)}
    assert ledger.arms["candidate"].left_out == {"new": ("fresh",), "infra": ("lost",)}
    assert ledger_words("baseline", ledger.arms["baseline"]) == (
        "baseline 3 cases = 1 paired + 1 deleted + 1 all infra in the candidate"
    )
    assert ledger_words("candidate", ledger.arms["candidate"]) == (
        "candidate 3 cases = 1 paired + 1 new + 1 all infra"
    )


# --------------------------------------------------------------------------- run.yaml


def stated(planned: dict[str, int], rows: list[dict[str, Any]], **said: Any) -> dict[str, Any]:
    """A run.yaml `completeness` for `rows` against `planned` (case -> repetitions)."""
    present: dict[str, int] = {}
    for row in rows:
        present[row["case"]] = present.get(row["case"], 0) + 1
    cases = {
        case: {"expected": n, "present": present.get(case, 0)}
        for case, n in planned.items()
        if present.get(case, 0) != n
    }
    return {
        "finished": said.get("finished"),
        "status": said.get("status", "stated"),
        "totals": {"expected": sum(planned.values()), "present": len(rows)},
        "cases": cases,
    }


def test_our_run_yaml_may_state_its_completeness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base_rows = passfail_rows({c: [True, True, True] for c in ("a", "b", "c")})
    cand_rows = [row for row in base_rows if (row["case"], row["rep"]) != ("b", 2)]
    plan = dict.fromkeys("abc", 3)
    base = write_run(tmp_path / "b", base_rows)
    for finished, code in (
        (True, "missing_repetitions"),
        (None, "missing_repetitions"),
        (False, "run_not_finished"),
    ):
        cand = write_run(
            tmp_path / f"c-{finished}",
            cand_rows,
            completeness=stated(plan, cand_rows, finished=finished),
        )
        assert main(["gate", str(base), str(cand), "--format", "json"]) == 4
        report = json.loads(capsys.readouterr().out)
        assert report["invalid"][0]["code"] == code
        assert report["unpaired_states"] == [
            {
                "code": code,
                "message": report["unpaired_states"][0]["message"],
                "case": "b",
                "arm": "candidate",
                "planned": 3,
                "ran": 2,
                "errored": 0,
                "missing": 1,
            }
        ]
        assert report["ledger"]["candidate"]["states"]["paired"] == 2


def test_a_malformed_completeness_is_bad_input_naming_the_line(tmp_path: Path) -> None:
    rows = passfail_rows({"a": [True]})
    run = write_run(
        tmp_path / "r",
        rows,
        completeness={"finished": "no", "status": "x", "totals": {"expected": 1, "present": 1}},
    )
    with pytest.raises(InputError) as raised:
        load_run(run)
    assert raised.value.field == "completeness.finished"
    lines = (run / "run.yaml").read_text().splitlines()
    assert raised.value.line is not None and "finished" in lines[raised.value.line - 1]


# --------------------------------------------------------------------------- --allow-partial


def test_allow_partial_gates_a_killed_run_to_inconclusive_with_the_ledger_s_counts() -> None:
    runs = (load_run(INSPECT / "baseline.eval"), load_run(INSPECT / "killed.eval"))
    result = compare(*runs, default_spec(), allow_partial=True).result
    assert (result.verdict, result.rule, result.allow_partial) == ("INCONCLUSIVE", "partial", True)
    assert not result.invalid_reasons and isinstance(result.partial_reasons[0], RunNotFinished)
    assert result.escalation is not None and result.escalation.action == "finish_runs"
    assert result.escalation.cases == ("1", "2", "3", "4", "9", "10", "11", "20")


def test_allow_partial_keeps_every_other_reason_invalid() -> None:
    """The error run is over the infra share too: that stays INVALID."""
    runs = (load_run(INSPECT / "baseline.eval"), load_run(INSPECT / "error.eval"))
    result = compare(*runs, default_spec(), allow_partial=True).result
    assert result.verdict == "INVALID"
    assert [r.code for r in result.invalid_reasons] == ["infra_share"]


def test_allow_partial_on_whole_runs_changes_nothing_but_says_it_was_given() -> None:
    runs = (load_run(INSPECT / "baseline.eval"), load_run(INSPECT / "candidate.eval"))
    plain = compare(*runs, default_spec()).result
    comparison = compare(*runs, default_spec(), allow_partial=True)
    allowed = comparison.result
    assert (allowed.verdict, allowed.rule, allowed.b, allowed.c) == (
        plain.verdict,
        plain.rule,
        plain.b,
        plain.c,
    )
    assert to_json(comparison)["allow_partial"] is True
    console = Console(width=200, record=True, color_system=None)
    console.print(to_text(comparison))
    assert "--allow-partial: runs that are not whole are gated by choice" in console.export_text()


def test_a_decision_on_a_partial_run_records_the_rule_that_gated_it(
    tmp_path: Path, isolated_git: Path, make_key: KeyMaker
) -> None:
    """`flipgate decide` takes `--allow-partial` as the gate does: the signed decision says the
    gate was INVALID, or, by that choice, INCONCLUSIVE under the rule `partial`. It is written
    beside the logs, in the folder that holds them (not the one above)."""
    for name in ("baseline", "killed"):
        shutil.copy(INSPECT / f"{name}.eval", tmp_path)
    key = make_key("ana")
    for extra, gated in (
        ((), ("INVALID", "invalid")),
        (("--allow-partial",), ("INCONCLUSIVE", "partial")),
    ):
        folder = tmp_path / "decisions"
        shutil.rmtree(folder, ignore_errors=True)
        args = ["decide", str(tmp_path / "baseline.eval"), str(tmp_path / "killed.eval")]
        args += ["--decision", "reject", "--cause", "infra", "--reason", "the run was killed"]
        args += ["--reviewer", "Ana <ana@example.com>", "--key", str(key), *extra]
        assert main(args) == 0
        [written] = folder.iterdir()
        gate = yaml.safe_load(written.read_text(encoding="utf-8"))["gate"]
        assert (gate["verdict"], gate["rule"]) == gated


CRASHED = ("killed", "cancelled", "error")


@pytest.mark.parametrize("allow_partial", [False, True])
@pytest.mark.parametrize("name", CRASHED)
def test_a_crashed_run_is_never_pass_in_either_arm(name: str, allow_partial: bool) -> None:
    crashed, whole = load_run(INSPECT / f"{name}.eval"), load_run(INSPECT / "baseline.eval")
    for pair in ((whole, crashed), (crashed, whole)):
        result = compare(*pair, default_spec(), allow_partial=allow_partial).result
        assert result.verdict != "PASS"


@pytest.mark.parametrize("allow_partial", [False, True])
def test_an_interrupted_promptfoo_run_is_never_pass(allow_partial: bool) -> None:
    log = PROMPTFOO / "interrupted/results.json"
    for prompt in ("v1", "v2"):
        chosen = ImportOptions(select={"prompt": prompt})
        whole = load_run(PROMPTFOO / "file-prompts/results.json", import_options=chosen)
        cut = load_run(log, import_options=chosen)
        for pair in ((whole, cut), (cut, whole)):
            assert (
                compare(*pair, default_spec(), allow_partial=allow_partial).result.verdict != "PASS"
            )


# --------------------------------------------------------------------------- drawn runs


@st.composite
def partial_runs(draw: st.DrawFn) -> tuple[Run, Run, bool]:
    """Two arms of a pass/fail suite, one with repetitions taken out (at least one missing,
    some perhaps excluded) and saying so; whether a safety case is among them."""
    n, reps = draw(st.integers(1, 8)), draw(st.integers(1, 3))
    cases = [f"c{i}" for i in range(n)]
    verdict = st.sampled_from([True, True, True, False, None])
    safety = draw(st.lists(st.sampled_from(cases), max_size=1))
    arms = {
        arm: passfail_rows(
            {c: draw(st.lists(verdict, min_size=reps, max_size=reps)) for c in cases}, safety
        )
        for arm in ARMS
    }
    cut = draw(st.sampled_from(ARMS))
    slots = [(row["case"], row["rep"]) for row in arms[cut]]
    assume(len(slots) > 1)  # a run keeps a line: one with none is bad input
    gone = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=len(slots) - 1, unique=True))
    excluded = set(draw(st.lists(st.sampled_from(gone), unique=True, max_size=len(gone) - 1)))
    kept = [row for row in arms[cut] if (row["case"], row["rep"]) not in set(gone)]
    said = stated(
        dict.fromkeys(cases, reps), kept, finished=draw(st.sampled_from([True, False, None]))
    )
    for case, _ in excluded:
        said["cases"][case]["excluded"] = said["cases"][case].get("excluded", 0) + 1
    said["exclusions"] = [
        {"case": c, "rep": r, "by": "qa", "reason": "drawn"} for c, r in sorted(excluded)
    ]
    runs = {
        arm: run_from_records(
            {"run_id": arm, **({"completeness": said} if arm == cut else {})},
            kept if arm == cut else arms[arm],
            source=Path(f"/{arm}"),
        )
        for arm in ARMS
    }
    return runs["baseline"], runs["candidate"], bool(safety)


@settings(max_examples=60)
@given(partial_runs())
def test_a_run_with_repetitions_missing_is_never_pass(drawn: tuple[Run, Run, bool]) -> None:
    baseline, candidate, _ = drawn
    strict = compare(baseline, candidate, default_spec())
    assert_balanced(strict)
    assert strict.result.verdict in ("INVALID", "BLOCK")
    assert strict.result.rule in ("safety", "invalid")
    assert {r.code for r in strict.result.invalid_reasons} & {
        "run_not_finished",
        "missing_repetitions",
    }

    allowed = compare(baseline, candidate, default_spec(), allow_partial=True).result
    assert allowed.verdict != "PASS"
    assert allowed.rule in (
        "safety",
        "invalid",
        "significance",
        "outcome_limit",
        "budget",
        "partial",
    )
    # BLOCK stays BLOCK: what would block without the partial reasons blocks with them
    without = decide(replace(allowed, partial_reasons=()))
    if without.verdict == "BLOCK":
        assert allowed.verdict == "BLOCK" and allowed.rule == without.name
    if allowed.partial_reasons and without.name in ("within_margin", "undecided"):
        assert allowed.rule == "partial"
    for reason in (*allowed.partial_reasons, *strict.result.invalid_reasons):
        if isinstance(reason, MissingRepetitions):
            assert reason.missing == sum(
                u.missing
                for u in strict.result.unpaired
                if isinstance(u, RepsMissing) and u.arm == reason.arm
            )


def test_every_state_is_reached_here() -> None:
    """The states this file's fixtures and runs reach, together: all seven."""
    reached = set()
    for _, baseline, candidate, options in fixture_pairs():
        for ledger in gated(baseline, candidate, **options).result.ledger.arms.values():
            reached |= {state for state, n in ledger.states.items() if n}
    base = passfail_rows({"kept": [True], "gone": [True]})
    cand = passfail_rows({"kept": [True], "fresh": [True], "short": [True]})
    comparison = compare(
        run_from_records({"run_id": "b"}, base, source=Path("/b")),
        run_from_records(
            {
                "run_id": "c",
                "completeness": stated({"kept": 1, "fresh": 1, "short": 2}, cand, finished=True),
            },
            cand,
            source=Path("/c"),
        ),
        default_spec(),
    )
    reached |= {
        s
        for ledger in comparison.result.ledger.arms.values()
        for s, n in ledger.states.items()
        if n
    }
    assert reached == set(CASE_STATES)


def test_the_json_ledger_adds_up(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "gate",
            str(INSPECT / "baseline.eval"),
            str(INSPECT / "cancelled.eval"),
            "--format",
            "json",
        ]
    )
    ledger = json.loads(capsys.readouterr().out)["ledger"]
    assert ledger["balanced"] is True
    for arm in ARMS:
        assert sum(ledger[arm]["states"].values()) == ledger[arm]["cases"] == 8
        run = ledger[arm]["run"]
        assert run["planned"] == run["present"] + run["excluded"] + run["missing"]
        for state, cases in ledger[arm]["left_out"].items():
            assert len(cases) == ledger[arm]["states"][state]
    assert yaml.safe_dump(ledger)  # plain data all through
