"""The triage walk: each class's evidence on small hand-built runs, and the saved walk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from flipgate.core.decision.record import ChecklistEntry
from flipgate.core.errors import InputError
from flipgate.core.gate.changes import Asked, RuleEdit
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.sources import SourceCounts
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import run_from_records
from flipgate.core.triage.evidence import TriageStep, evidence, named_cases
from flipgate.core.triage.flaky import (
    BaselineRepeats,
    FlakyFindings,
    FlakyListSize,
    ListedEntry,
    NoisyCase,
)
from flipgate.core.triage.grader import FlipSplit, GraderFindings, JudgeHeld, JudgeMoved, SameOutput
from flipgate.core.triage.infra import AllInfra, ArmInfraShare, InfraCount, InfraFindings, InfraFlip
from flipgate.core.triage.regression import (
    CasesPassing,
    ExplainedEarlier,
    FlippedCases,
    OutcomeChange,
    RegressionFindings,
    RuleWrong,
    TemplateBroken,
)
from flipgate.core.triage.stale import (
    BaselineAge,
    EditedBetweenArms,
    EvalSet,
    FlakyAfterBaseline,
    KeyMoved,
    OnlyInArm,
    StaleFindings,
)
from flipgate.core.triage.walk import checklist, load_walk, save_walk, start_walk
from flipgate.core.vocab import TriageClass
from flipgate.present.triage import fact_line

SPEC = default_spec()
KEY = {"model": "m1", "prompt": "p@1", "judge": "j@1", "eval_set": "suite@v1"}
# A repetition is True (passed), False (failed) or a string: an infra failure of that kind.
Rep = bool | str
STEADY: tuple[Rep, ...] = (True, True, True)
T = TypeVar("T")


def record(case: str, rep: int, result: Rep, **fields: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"case": case, "rep": rep}
    if isinstance(result, str):
        line.update(status="infra", infra=result)
    else:
        line["expected"] = {"policy": "reject"}
        line["actual"] = {"policy": "reject" if result else "approve"}  # a miss: false negative
        line["output"] = fields.pop("output", f"{case} rep {rep} {'ok' if result else 'bad'}")
    line.update(fields)
    return line


def make_run(
    run_id: str,
    cases: Mapping[str, Sequence[Rep]],
    *,
    key: dict[str, str] | None = None,
    created: str = "2026-11-20T09:00:00Z",
    change: list[str] | None = None,
    extra: dict[tuple[str, int], dict[str, Any]] | None = None,
) -> Run:
    """`cases[case]` holds each repetition's result; `extra[(case, rep)]` adds fields."""
    extra = extra or {}
    records = [
        record(case, rep, result, **extra.get((case, rep), {}))
        for case, reps in cases.items()
        for rep, result in enumerate(reps)
    ]
    manifest: dict[str, Any] = {"run_id": run_id, "key": dict(key or KEY), "created": created}
    if change is not None:
        manifest["change"] = {"keys": change, "summary": "the change under test"}
    return run_from_records(manifest, records, source=Path(f"/runs/{run_id}"))


def steady(n: int, **overrides: Sequence[Rep]) -> dict[str, Sequence[Rep]]:
    cases: dict[str, Sequence[Rep]] = {f"case-{i:02d}": STEADY for i in range(n)}
    cases.update(overrides)
    return cases


def step(comparison: Comparison, klass: str, repeats: tuple[Run, ...] = ()) -> TriageStep:
    return next(s for s in evidence(comparison, repeats) if s.klass == klass)


def facts(s: TriageStep, kind: type[T]) -> list[T]:
    """The step's facts of one kind (one code), in order."""
    return [fact for fact in s.facts if isinstance(fact, kind)]


def case_fact(s: TriageStep, kind: type[T], case: str) -> T:
    [found] = [fact for fact in facts(s, kind) if getattr(fact, "case", None) == case]
    return found


def gate(base: Run, cand: Run, flaky: FlakyList | None = None) -> Comparison:
    return compare(base, cand, SPEC, flaky, declared_change=("model",))


def test_the_five_steps_come_in_walk_order() -> None:
    comparison = gate(make_run("b", steady(4)), make_run("c", steady(4)))
    steps = evidence(comparison)
    assert [s.klass for s in steps] == ["infra", "flaky", "grader", "stale_baseline", "regression"]
    assert not any(s.suggests_cause for s in steps)
    assert steps[-1].summary == RegressionFindings(broken=0, flips=0, rule=None, template=None)


# 1. infra ---------------------------------------------------------------------------------


def test_infra_counts_per_arm_and_kind_and_a_tie_lost_to_infra() -> None:
    base = make_run("b", steady(20, **{"case-00": ("timeout", True, True)}))
    lost: dict[str, Sequence[Rep]] = {
        "case-01": (True, False, "timeout"),  # 1 pass, 1 fail, 1 infra: a tie, fails
        "case-02": (True, "rate_limit", "timeout"),  # passes on 1 of 1
    }
    cand = make_run("c", steady(20, **lost))
    s = step(gate(base, cand), "infra")
    assert facts(s, ArmInfraShare) == [
        ArmInfraShare("baseline", 1, 60, 1 / 60, 0.05, (("timeout", 1),)),
        ArmInfraShare("candidate", 3, 60, 3 / 60, 0.05, (("rate_limit", 1), ("timeout", 2))),
    ]
    # 1 pass, 1 fail: a tie, so it fails; had the infra repetition passed, it would pass
    tie = InfraCount("candidate", 1, 2, 1, (("timeout", 1),), "would_pass")
    assert facts(s, InfraFlip) == [InfraFlip("case-01", (tie,), hinges=True)]
    assert s.cases == ("case-01",)  # case-02 passes in both arms: no flip to explain
    assert s.explains == ("case-01",)
    assert s.suggests_cause
    assert s.summary == InfraFindings(over=(), hinges=1, touched=0, lost=0)


def test_infra_that_did_not_decide_the_flip_is_named_not_explained() -> None:
    base = make_run("b", steady(30))
    cand = make_run("c", steady(30, **{"case-03": (False, False, "crash")}))
    s = step(gate(base, cand), "infra")
    assert s.cases == ("case-03",)
    assert s.explains == ()
    assert case_fact(s, InfraFlip, "case-03").arms == (
        InfraCount("candidate", 0, 2, 1, (("crash", 1),), "stands"),
    )
    assert not s.suggests_cause


def test_a_case_with_every_repetition_infra_is_named() -> None:
    base = make_run("b", steady(60))
    cand = make_run("c", steady(60, **{"case-04": ["crash", "crash", "crash"]}))
    s = step(gate(base, cand), "infra")
    assert s.cases == ("case-04",)
    assert facts(s, AllInfra) == [AllInfra("case-04", "candidate")]
    assert s.summary == InfraFindings(over=(), hinges=0, touched=0, lost=1)  # 3 of 180: 1.7%
    assert s.suggests_cause


# 2. flaky ---------------------------------------------------------------------------------


def test_splits_listed_cases_and_what_they_explain() -> None:
    base = make_run(
        "b", steady(10, **{"case-01": [True, True, False], "case-05": [True, True, True]})
    )
    cand = make_run(
        "c",
        steady(
            10,
            **{
                "case-01": [True, False, False],  # split in both arms: noise alone does this
                "case-02": [True, False, False],  # 3 of 3 -> 1 of 3: split in one arm only
                "case-05": [False, False, False],  # on the flaky list
            },
        ),
    )
    listed = FlakyList(
        (FlakyEntry("case-05", "qa", date(2026, 11, 1), "ambiguous rubric", "2 of 4 runs"),)
    )
    steps = evidence(gate(base, cand, listed))
    flaky = steps[1]
    assert flaky.cases == ("case-05", "case-01", "case-02")
    assert flaky.explains == ("case-05", "case-01")
    entry = ListedEntry(date(2026, 11, 1), "qa", "ambiguous rubric", "2 of 4 runs")
    assert facts(flaky, FlakyListSize) == [FlakyListSize(1)]
    assert facts(flaky, NoisyCase) == [
        NoisyCase("case-05", entry, None, None, (3, 3), (0, 3)),
        NoisyCase("case-01", None, None, "both", (2, 3), (1, 3)),
        NoisyCase("case-02", None, None, "candidate", (3, 3), (1, 3)),
    ]
    assert flaky.summary == FlakyFindings(listed=1, unsteady=0, split_both=1, split_one=1)
    # A split in one arm only is not explained: it is left for the regression step.
    assert steps[-1].cases == ("case-02",)


def test_baseline_repeats_that_flip() -> None:
    cases = steady(6, **{"case-01": [True, True, False]})
    base = make_run("b", cases)
    cand = make_run("c", steady(6, **{"case-01": [False, False, False]}))
    repeats = (
        make_run("b-r2", steady(6, **{"case-01": [False, False, True]})),  # flips here
        make_run("b-r3", steady(6, **{"case-04": [False, True, False]})),  # and case-04 here
    )
    s = step(gate(base, cand), "flaky", repeats)
    assert facts(s, BaselineRepeats) == [
        BaselineRepeats(("b", "b-r2", "b-r3"), ("case-01", "case-04"))
    ]
    assert case_fact(s, NoisyCase, "case-01").marks == ("pass", "fail", "pass")
    assert s.explains == ("case-01",)  # case-04 did not flip between the arms


def test_a_repeat_with_another_key_is_refused_naming_the_component() -> None:
    base = make_run("b", steady(3))
    cand = make_run("c", steady(3))
    other = make_run("b-r2", steady(3), key={**KEY, "judge": "j@2"})
    with pytest.raises(InputError) as refused:
        evidence(gate(base, cand), (other,))
    assert refused.value.field == "key.judge"
    assert "judge is j@2 here, j@1 in the baseline" in refused.value.message


# 3. grader --------------------------------------------------------------------------------


def test_identical_outputs_graded_differently() -> None:
    """The gate's split names the grader's flips: every repetition that flipped kept its output.
    A case with one flipped repetition whose output changed is the model's, even beside one that
    kept it, and an output equal to another repetition's is not compared across repetitions."""
    cases = steady(8)
    base = make_run("b", cases, extra={("case-01", 1): {"output": "Refund issued."}})
    cand = make_run(
        "c",
        steady(8, **{"case-01": [True, False, False], "case-02": [True, False, False]}),
        extra={
            ("case-01", 1): {"output": "Refund  issued.\n"},  # same words, other spacing
            ("case-01", 2): {"output": "case-01 rep 2 ok"},  # the baseline's, byte for byte
            ("case-02", 2): {"output": "case-02 rep 0 ok"},  # the baseline's rep 0: not rep 2
        },
    )
    s = step(gate(base, cand), "grader")
    assert facts(s, JudgeHeld) == [JudgeHeld("j@1")]
    assert facts(s, FlipSplit) == [FlipSplit(SourceCounts(model=1, grader=1), SourceCounts(), 0)]
    # case-01: the same repetition, the same words after whitespace is normalised
    assert facts(s, SameOutput) == [SameOutput("case-01", 2, 2, True, True, False, 2)]
    assert s.cases == s.explains == ("case-01",)
    assert s.summary == GraderFindings(judge_moved=False, same_output=1, flipped=2)
    assert s.suggests_cause
    line = fact_line(facts(s, FlipSplit)[0])[1]
    assert line.startswith("1 of 2 flipped cases have equal outputs")
    assert "b 2 = 1 model + 1 grader" in line


def test_a_judge_key_move() -> None:
    base = make_run("b", steady(3))
    cand = make_run("c", steady(3), key={**KEY, "judge": "j@2"})
    steps = evidence(gate(base, cand))
    grader, stale = steps[2], steps[3]
    assert facts(grader, JudgeMoved) == [JudgeMoved("j@1", "j@2", declared=False)]
    assert grader.suggests_cause and grader.cases == ()
    assert facts(stale, KeyMoved) == [KeyMoved("judge", "j@1", "j@2", declared=False)]
    assert stale.summary == StaleFindings(("judge",), False, 0, 0, 0)
    assert stale.suggests_cause


# 4. stale baseline ------------------------------------------------------------------------


def test_cases_added_removed_and_edited_and_the_baseline_age() -> None:
    base = make_run(
        "b",
        {**steady(4), "case-old": STEADY},
        key={**KEY, "eval_set": "suite@v1"},
        created="2026-11-01T06:00:00Z",
    )
    cand = make_run(
        "c",
        {**steady(4), "case-new": STEADY},
        key={**KEY, "eval_set": "suite@v2", "model": "m2"},
        created="2026-11-20T09:30:00Z",
        change=["model"],
        extra={("case-02", rep): {"expected": {"policy": "escalate"}} for rep in range(3)},
    )
    late = FlakyList((FlakyEntry("case-03", "qa", date(2026, 11, 10), "r", "e"),))
    s = step(compare(base, cand, SPEC, late), "stale_baseline")
    assert facts(s, KeyMoved) == [
        KeyMoved("eval_set", "suite@v1", "suite@v2", declared=False),
        KeyMoved("model", "m1", "m2", declared=True),
    ]
    assert facts(s, EvalSet) == [EvalSet("suite@v1", "suite@v2")]
    assert facts(s, BaselineAge) == [
        BaselineAge(datetime(2026, 11, 1, 6, tzinfo=UTC), datetime(2026, 11, 20, 9, 30, tzinfo=UTC))
    ]
    assert facts(s, OnlyInArm) == [
        OnlyInArm("baseline", ("case-old",)),
        OnlyInArm("candidate", ("case-new",)),
    ]
    edit = RuleEdit("policy", Asked("labels", ("reject",)), Asked("labels", ("escalate",)))
    assert facts(s, EditedBetweenArms) == [EditedBetweenArms("case-02", (edit,))]
    assert facts(s, FlakyAfterBaseline) == [FlakyAfterBaseline((("case-03", date(2026, 11, 10)),))]
    assert s.cases == ("case-old", "case-new", "case-02")
    assert s.explains == ("case-02",)
    assert s.summary == StaleFindings(("eval_set",), True, added=1, removed=1, edited=1)


# 5. regression ----------------------------------------------------------------------------


def test_regression_holds_what_no_step_explains_with_rules_templates_and_outcomes() -> None:
    templates = {
        **{(c, r): {"template": "refunds"} for c in ("case-01", "case-02") for r in range(3)},
        **{("case-03", r): {"template": "address"} for r in range(3)},
    }
    broken = {f"case-0{i}": [False, False, False] for i in (1, 2, 3)}
    base = make_run("b", steady(12), extra=templates)
    cand = make_run(
        "c", {**steady(12), **broken, "case-09": [True, True, "timeout"]}, extra=templates
    )
    s = step(gate(base, cand), "regression")
    assert s.cases == ("case-01", "case-02", "case-03")
    assert s.explains == s.cases
    assert facts(s, FlippedCases) == [FlippedCases(3, b=3, c=0)]
    earlier: tuple[tuple[TriageClass, int], ...] = (
        ("infra", 0),
        ("flaky", 0),
        ("grader", 0),
        ("stale_baseline", 0),
    )
    assert facts(s, ExplainedEarlier) == [ExplainedEarlier(earlier, 3, broke=3, fixed=0)]
    assert facts(s, CasesPassing) == [CasesPassing((12, 9))]
    assert OutcomeChange("false_negative", 0, 9) in facts(s, OutcomeChange)
    assert facts(s, RuleWrong) == [RuleWrong("policy", 9, 3, (("false_negative", 9),))]
    assert facts(s, TemplateBroken) == [
        TemplateBroken("refunds", ("case-01", "case-02")),
        TemplateBroken("address", ("case-03",)),
    ]
    assert s.summary == RegressionFindings(3, 3, rule="policy", template="refunds")
    assert s.suggests_cause


def test_named_cases_once_in_walk_order_with_the_classes_naming_each() -> None:
    base = make_run("b", steady(6, **{"case-01": [True, True, False]}))
    broken = {"case-01": [True, False, False], "case-02": [False] * 3, "case-03": [True, False]}
    cand = make_run("c", steady(6, **broken))
    named = named_cases(evidence(gate(base, cand)))
    # case-03 split in the candidate only: flaky names it, and it is still a regression
    assert list(named.items()) == [
        ("case-01", ("flaky",)),
        ("case-03", ("flaky", "regression")),
        ("case-02", ("regression",)),
    ]


# The walk ---------------------------------------------------------------------------------


def small_comparison(run_suffix: str = "") -> Comparison:
    return gate(make_run("b" + run_suffix, steady(3)), make_run("c", steady(3)))


def test_walk_saves_resumes_and_gives_the_checklist(tmp_path: Path) -> None:
    path = tmp_path / ".flipgate" / "triage.yaml"
    comparison = small_comparison()
    walk = load_walk(path, comparison)
    assert walk.cause is None and not walk.done
    walk = walk.record("infra", finding="ruled_out", note="0.8% infra, no flip hinges on it")
    walk = walk.record("flaky", finding="cause", note="case-005 is listed")
    stamp = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    save_walk(path, walk, now=stamp)

    resumed = load_walk(path, comparison)
    assert resumed.findings == walk.findings
    assert resumed.updated == stamp
    assert resumed.cause == "flaky"
    assert checklist(resumed) == (
        ChecklistEntry("infra", "ruled_out", "0.8% infra, no flip hinges on it"),
        ChecklistEntry("flaky", "cause", "case-005 is listed"),
        ChecklistEntry("grader", None, ""),
        ChecklistEntry("stale_baseline", None, ""),
        ChecklistEntry("regression", None, ""),
    )
    stored = yaml.safe_load(path.read_text())
    assert stored["walks"][0]["baseline"]["run_id"] == "b"
    assert stored["walks"][0]["checklist"][1] == {
        "class": "flaky",
        "finding": "cause",
        "note": "case-005 is listed",
    }
    assert list(tmp_path.joinpath(".flipgate").iterdir()) == [path]  # no temp file left


def test_a_walk_for_other_runs_is_not_resumed_and_both_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "triage.yaml"
    first = small_comparison()
    save_walk(path, start_walk(first).record("grader", finding="unclear"))
    other = small_comparison("-other")
    fresh = load_walk(path, other)
    assert fresh.findings["grader"].finding is None
    save_walk(path, fresh.record("regression", finding="cause"))
    assert load_walk(path, first).findings["grader"].finding == "unclear"
    assert load_walk(path, other).cause == "regression"
    assert len(yaml.safe_load(path.read_text())["walks"]) == 2


def test_a_changed_run_digest_is_another_walk(tmp_path: Path) -> None:
    path = tmp_path / "triage.yaml"
    save_walk(path, start_walk(small_comparison()).record("infra", finding="cause"))
    changed = gate(
        make_run("b", steady(3, **{"case-00": [True, True, False]})), make_run("c", steady(3))
    )
    assert load_walk(path, changed).findings["infra"].finding is None


def test_a_damaged_walk_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "triage.yaml"
    path.write_text("flipgate_triage: 1\nwalks:\n  - baseline: {run_id: b}\n")
    with pytest.raises(InputError) as bad:
        load_walk(path, small_comparison())
    assert bad.value.field == "walks.0.baseline"
    with pytest.raises(ValueError, match="unknown finding"):
        start_walk(small_comparison()).record("infra", finding="maybe")  # type: ignore[arg-type]
