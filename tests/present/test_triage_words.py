"""The triage's words (`present/triage.py`): each fact a label and a value, each step's findings
a line, made from its payload; the tables below hold one payload of each code and what it says,
and a test holds them to the codes of `core/vocab.py`."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from flipgate.core.gate.changes import Asked, RuleEdit, TemplateEdit
from flipgate.core.gate.sources import SourceCounts
from flipgate.core.triage.evidence import evidence
from flipgate.core.triage.flaky import (
    BaselineRepeats,
    FlakyFindings,
    FlakyListSize,
    JudgeUnstable,
    ListedEntry,
    NoBaselineRepeats,
    NoisyCase,
)
from flipgate.core.triage.grader import (
    FlipSplit,
    GraderFindings,
    GraderSelfNoise,
    JudgeAlone,
    JudgeHeld,
    JudgeMoved,
    NoFlipToCompare,
    NoJudgeRepeats,
    NoOutputGradedTwice,
    SameOutput,
)
from flipgate.core.triage.infra import AllInfra, ArmInfraShare, InfraCount, InfraFindings, InfraFlip
from flipgate.core.triage.regression import (
    CasesPassing,
    ExplainedEarlier,
    FlippedCases,
    OutcomeChange,
    RegressionFindings,
    RuleWrong,
    TemplateBroken,
    TemplatesCluster,
    WhoFlipped,
)
from flipgate.core.triage.stale import (
    BaselineAge,
    EditedBetweenArms,
    EvalSet,
    FlakyAfterBaseline,
    KeyHeld,
    KeyMoved,
    OnlyInArm,
    RunCreated,
    StaleFindings,
)
from flipgate.core.vocab import TRIAGE_CLASSES, TRIAGE_FACT_CODES
from flipgate.present.triage import SOURCE_WORDS, fact_line, placements, step_summary, summary_of
from flipgate.session import GateRequest, gate, read
from tests.conftest import SAMPLES

RULE = RuleEdit("prohibited_items", Asked("labels", ("approve",)), Asked("labels", ("reject",)))
ELEVEN = tuple(f"case-{i:02d}" for i in range(11))

BROKE = InfraCount("candidate", 1, 2, 1, (("timeout", 1),), "would_pass")
LISTED = ListedEntry(date(2026, 11, 1), "qa", "ambiguous rubric", "2 of 4 runs")
# one fact of each code, and its label and value
FACTS: list[tuple[Any, tuple[str, str]]] = [
    (
        ArmInfraShare("candidate", 3, 60, 0.05, 0.05, (("rate_limit", 1), ("timeout", 2))),
        (
            "candidate infra repetitions",
            "3 of 60 (5.0%, at most 5% allowed): rate_limit 1, timeout 2",
        ),
    ),
    (
        InfraFlip("case-01", (BROKE,), hinges=True),
        (
            "case-01",
            "candidate: 1 pass, 1 fail, 1 infra (timeout 1) -> a tie, so it fails; had the "
            "infra repetitions passed, it would pass",
        ),
    ),
    (
        AllInfra("case-04", "candidate"),
        (
            "case-04",
            "no gradable candidate repetition: every repetition was infra, so it is left out of "
            "the count",
        ),
    ),
    (FlakyListSize(1), ("flaky list", "1 entry; listed cases are left out of b and c")),
    (
        BaselineRepeats(("b", "b-r2"), ELEVEN[:9]),
        (
            "identical baseline runs",
            "2 with the same key (b, b-r2); 9 cases flip between them: case-00, case-01, "
            "case-02, case-03, case-04, case-05, case-06, case-07 and 1 more",
        ),
    ),
    (
        NoBaselineRepeats(),
        ("identical baseline runs", "none given (run the baseline again to measure)"),
    ),
    (
        NoisyCase("case-05", LISTED, ("pass", "fail", "pass"), "both", (2, 3), (0, 0)),
        (
            "case-05",
            "listed since 2026-11-01 by qa: ambiguous rubric; evidence: 2 of 4 runs; across the "
            "baseline runs: pass fail pass; repetitions split in both arms: baseline 2 of 3 "
            "passed, candidate missing",
        ),
    ),
    (
        JudgeUnstable("baseline", 4, ("case-07", "case-11")),
        (
            "judge alone, baseline",
            "2 flipped cases changed verdict across 4 judgings of the same stored outputs: "
            "case-07, case-11 (flipgate flaky propose --rejudged lists them with that evidence)",
        ),
    ),
    (
        JudgeMoved("j@1", None, declared=False),
        ("judge", "j@1 -> (absent) (outside the declared change)"),
    ),
    (JudgeHeld(None), ("judge", "not in either key")),
    (
        SameOutput("case-02", 0, 2, True, True, False, 2),
        (
            "case-02",
            "candidate rep 2 output identical to baseline rep 0's; baseline passed, candidate "
            "failed (2 such pairs of repetitions)",
        ),
    ),
    (
        FlipSplit(SourceCounts(model=11, grader=4), SourceCounts(model=2, unknown=1), 1),
        (
            "outputs",
            "4 of 18 flipped cases have equal outputs (after normalising whitespace, JSON key "
            "order and 1 volatile pattern): the grader changed its mind · b 15 = 11 model + "
            "4 grader · c 3 = 2 model + 0 grader + 1 unknown",
        ),
    ),
    (
        FlipSplit(SourceCounts(model=2), SourceCounts(), 0),
        (
            "outputs",
            "no flipped case kept its output (normalised: whitespace, JSON key order) · "
            "b 2 = 2 model + 0 grader · c 0 = 0",
        ),
    ),
    (
        JudgeAlone("candidate", "graded", 3, 40, 10, 0.1269, 0.4119, 0.95),
        (
            "judge alone, candidate",
            "graded: 10 of 40 outputs flipped (25%, 95% CI 12.7% to 41.2%) across 3 judgings "
            "of the same outputs",
        ),
    ),
    (
        NoJudgeRepeats(),
        (
            "judge alone",
            "not measured: judge the stored outputs again (rejudged/, docs/who-flipped.md) to "
            "tell the judge's own noise",
        ),
    ),
    (
        WhoFlipped(("case-01", "case-02"), ("case-03",), ()),
        (
            "who flipped",
            "2 changed output (the model): case-01, case-02; 1 same output (the grader): case-03",
        ),
    ),
    (
        GraderSelfNoise("baseline", 12, 3, ("case-04", "case-09")),
        (
            "grader noise, baseline",
            "3 of 12 pairs of repetitions with the same output got different verdicts: "
            "case-04, case-09",
        ),
    ),
    (NoFlipToCompare(), ("outputs", "no flipped case to compare")),
    (
        NoOutputGradedTwice(3),
        ("outputs", "no flipped case has the same output graded differently (3 compared)"),
    ),
    (KeyMoved("model", "m1", "m2", declared=True), ("key model", "m1 -> m2 (declared)")),
    (KeyHeld(), ("key", "no component moved between the arms")),
    (EvalSet("suite@v1", "suite@v1"), ("eval-set revision", "suite@v1 in both arms")),
    (RunCreated("baseline", None), ("baseline created", "(not recorded)")),
    (
        BaselineAge(
            datetime(2026, 11, 1, 6, tzinfo=UTC), datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
        ),
        ("baseline age", "19 days 3 hours older than the candidate"),
    ),
    (OnlyInArm("baseline", ("case-old",)), ("only in the baseline", "1: case-old")),
    (
        EditedBetweenArms("case-02", (RULE, TemplateEdit("tpl-a", None))),
        (
            "case-02",
            "edited between the arms: prohibited_items: expected approve in the baseline, reject "
            "in the candidate; template: tpl-a in the baseline, none in the candidate",
        ),
    ),
    (
        FlakyAfterBaseline((("case-03", date(2026, 11, 10)),)),
        ("flaky entries after the baseline", "case-03 (added 2026-11-10)"),
    ),
    (
        FlippedCases(3, 3, 0),
        ("flipped cases", "3, listed ones included (counted: b\u00a0=\u00a03, c\u00a0=\u00a00)"),
    ),
    (
        ExplainedEarlier((("infra", 1), ("flaky", 0)), 2, 2, 0),
        ("explained earlier", "infra 1, flaky 0; 2 remain: 2 broke, 0 fixed"),
    ),
    (CasesPassing((12, 9)), ("cases passing", "12 -> 9 (-3)")),
    (OutcomeChange("false_negative", 0, 9), ("false negative", "0 -> 9 (+9)")),
    (
        RuleWrong("policy", 9, 3, (("false_negative", 8), ("failed_check", 1))),
        ("rule policy", "9 wrong candidate calls in 3 cases (8 false negative, 1 failed check)"),
    ),
    (
        TemplateBroken(None, ("case-09",)),
        ("template (no template)", "1 broken case: case-09"),
    ),
    (
        TemplatesCluster(8, 4),
        (
            "templates",
            "8 broken cases come from 4 templates: cloned cases flip together, count a template "
            "once",
        ),
    ),
]

SUMMARIES: list[tuple[Any, str]] = [
    (
        InfraFindings(("candidate",), hinges=1, touched=2, lost=1),
        "infra failures exceed the allowed share in the candidate run; 1 flipped case hinges on "
        "infra repetitions; 2 flipped cases had infra, not decided by it; 1 case lost every "
        "repetition to infra",
    ),
    (
        FlakyFindings(listed=1, unsteady=0, split_both=1, split_one=1, judge_unstable=2),
        "flipped cases that look noisy: 1 listed, 1 split in both arms, 1 split in one arm "
        "only, 2 moved by the judge alone",
    ),
    (
        GraderFindings(judge_moved=False, same_output=0),
        "the judge held and no output is graded two ways",
    ),
    (
        StaleFindings(("eval_set",), True, added=1, removed=1, edited=1),
        "key moved outside the declared change: eval_set; 1 cases added, 1 removed; 1 case edited",
    ),
    (
        RegressionFindings(3, 3, rule="policy", template="refunds"),
        "3 broken cases no earlier step explains, most in rule policy and template refunds",
    ),
]


def test_the_tables_hold_one_payload_of_every_code() -> None:
    assert {fact.code for fact, _ in FACTS} == set(TRIAGE_FACT_CODES)
    assert [findings.code for findings, _ in SUMMARIES] == list(TRIAGE_CLASSES)


@pytest.mark.parametrize(("fact", "line"), FACTS, ids=lambda x: getattr(x, "code", None))
def test_each_triage_fact_is_a_label_and_a_value(fact: Any, line: tuple[str, str]) -> None:
    assert fact_line(fact) == line


@pytest.mark.parametrize(("findings", "words"), SUMMARIES, ids=lambda x: getattr(x, "code", None))
def test_each_triage_step_is_summed_up_in_a_line(findings: Any, words: str) -> None:
    assert step_summary(findings) == words


@pytest.mark.parametrize(
    "sample", ["agent-suite", "listing-reviewer", "listing-reviewer-decisive", "support-assistant"]
)
def test_each_broken_case_is_placed_as_the_walk_reads_it(sample: str) -> None:
    """`placements` (a look-up per case, linear at a million cases) says what reading the walk
    case by case says: the first step that explains the case, and that step's first fact naming
    it, else its findings; the regression step, who flipped it."""
    comparison = gate(read(GateRequest.of([SAMPLES / sample])))
    steps = evidence(comparison)
    sources = comparison.result.sources

    def by_hand(case: str) -> tuple[str, str]:
        step = next((s for s in steps if case in s.explains), steps[-1])
        if step.klass == "regression":
            source = sources.source(case) if sources is not None else None
            return step.klass, f"no earlier step explains it; {SOURCE_WORDS[source or 'unknown']}"
        for fact in step.facts:
            if getattr(fact, "case", None) == case:
                return step.klass, fact_line(fact)[1]
            if case in getattr(fact, "cases", ()):
                return step.klass, " ".join(fact_line(fact))
        return step.klass, summary_of(step)

    broken = [case for case, direction in comparison.result.flipped if direction == "pass_to_fail"]
    placed = placements(comparison, steps)
    assert broken and [p.case for p in placed] == broken
    assert [(p.triage_class, p.why) for p in placed] == [by_hand(case) for case in broken]
