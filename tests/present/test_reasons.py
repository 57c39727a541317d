"""The words for every code (`present/reasons/`): one sentence per code, made from its payload;
the table below holds one payload of each code and what it says, and a test holds the table to
the codes of `core/vocab.py`. The triage's facts and findings: tests/present/test_triage_words.py."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from flipgate.core.gate.attempts import RerunUntilGreen
from flipgate.core.gate.bounds import never_event
from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.changes import (
    Asked,
    CaseCached,
    CaseEdited,
    CaseInOneArm,
    RuleEdit,
    SafetyEdit,
    TemplateEdit,
)
from flipgate.core.gate.evidence import (
    ChangedLate,
    EscalationsMaxPerRun,
    FalseNegativeMax,
    FinishNotStated,
    FlipsConcentrated,
    InconclusiveMaxShare,
    MirrorApprovedMax,
    NewCases,
    ReadingsDisagree,
    SameRunId,
    ZeroFalseNegativeRule,
)
from flipgate.core.gate.excess import Excess
from flipgate.core.gate.invalid import (
    BaseNotFound,
    CachedReps,
    CasesEdited,
    FlakyAdded,
    FlakyListTooLong,
    GateLoosened,
    InfraShare,
    MissingRepetitions,
    NamedCases,
    NoCaseInCommon,
    RunNotFinished,
    StaleBaseline,
)
from flipgate.core.gate.ledger import RepsExcluded, RepsMissing, Unpaired
from flipgate.core.gate.loosening import BaseSource, Loosened
from flipgate.core.gate.registered import Differs, RegisteredAfterCandidate, RegistrationDiffers
from flipgate.core.gate.spec import Budget
from flipgate.core.importers.completeness import Exclusion
from flipgate.core.runs.key import Component
from flipgate.core.vocab import (
    BOUND_CODES,
    BUDGET_CODES,
    CHANGE_CODES,
    EDIT_CODES,
    INVALID_CODES,
    LIMIT_CODES,
    LOOSENING_CODES,
    UNPAIRED_STATES,
    WARNING_CODES,
)
from flipgate.present.reasons import reason_json, sentence

MAIN = BaseSource(ref="main")
RULE = RuleEdit("prohibited_items", Asked("labels", ("approve",)), Asked("labels", ("reject",)))
MARGIN = Loosened("raised", "sets.full.margin", 2, 6)
ELEVEN = tuple(f"case-{i:02d}" for i in range(11))
LATENCY = Budget("latency_ms", "p95", max_increase=0.10)
REGISTERED = datetime(2026, 11, 19, 9, tzinfo=UTC)

# one payload of each code, and its words
SENTENCES: list[tuple[Any, str]] = [
    # invalid
    (
        NoCaseInCommon(40, 38, differ_only_in_case=True),
        "no case id of the candidate's 38 is one of the baseline's 40; they differ only in upper "
        "and lower case: nothing is compared",
    ),
    (
        InfraShare("candidate", 0.0625, 5, 80, 0.05),
        "infra failures are 6.3% of the candidate's repetitions (5 of 80), above the 5% allowed",
    ),
    (
        StaleBaseline((Component("judge", "j1", None),), ("jugde",)),
        "stale baseline: key moved outside the declared change (judge: j1 -> (absent); the "
        "declared change names jugde, which neither key has)",
    ),
    (
        FlakyListTooLong(3, 27, 0.05, 1),
        "the flaky list holds 3 cases, above 5% of the suite's 27 cases (1 allowed)",
    ),
    (NamedCases("flaky_list_safety", ("s1", "s2")), "the flaky list holds safety cases: s1, s2"),
    (
        CasesEdited((CaseEdited("listing-001", (RULE, SafetyEdit(True, False))),)),
        "cases edited in the change under test: listing-001 prohibited_items: expected approve "
        "in the baseline, reject in the candidate; listing-001 safety: a safety case in the "
        "baseline, ordinary in the candidate",
    ),
    (
        NamedCases("cases_deleted", ELEVEN),
        "cases deleted in the change under test (lines in the baseline, none in the candidate): "
        "case-00, case-01, case-02, case-03, case-04, case-05, case-06, case-07, case-08, "
        "case-09 and 1 more. Retire a case in a separate, reviewed change, then rebaseline; a "
        "case that could not be graded is written with `status: infra`, not left out",
    ),
    (
        CachedReps("candidate", (CaseCached("case-07", "candidate", 2, 3),)),
        "cached candidate repetitions (the candidate is the measurement: run it live): "
        "case-07 (2 of 3)",
    ),
    (
        CachedReps("baseline", (CaseCached("s1", "baseline", 1, 3),)),
        "cached repetitions of safety cases in the baseline (safety runs are always live): "
        "s1 (1 of 3)",
    ),
    (
        GateLoosened(BaseSource(files=("main-gate.yaml",)), (MARGIN,)),
        "the gate was loosened in the change under test (base: main-gate.yaml): "
        "sets.full.margin: 2 in the base, 6 here",
    ),
    (
        BaseNotFound("gate_spec", "main:suites/agent/gate.yaml"),
        "the gate spec is not at the base (main:suites/agent/gate.yaml does not exist): added or "
        "moved in the change under test, it cannot be checked against what it was; add or move it "
        "in a separate, reviewed change, or name the base's with --base-gate",
    ),
    (
        FlakyAdded(MAIN, ("case-03",)),
        "flaky entries added in the change under test (base: main): case-03: add flaky entries "
        "in a separate, reviewed change",
    ),
    (
        NamedCases("retirement_added", ("sa-001",)),
        "the change under test retires sa-001: a retirement is its own reviewed change, made "
        "where the change is going, not in the change it would excuse",
    ),
    (
        RegistrationDiffers(
            REGISTERED,
            "Ada <ada@example.com>",
            (Differs("gate_spec.alpha", 0.01, 0.05), Differs("change", None, ("judge", "model"))),
        ),
        "the rule applied is not the rule registered at 2026-11-19T09:00:00Z by "
        "Ada <ada@example.com>: gate_spec.alpha: 0.01 registered, 0.05 applied; change: null "
        "registered, [judge, model] applied",
    ),
    (
        RegisteredAfterCandidate(REGISTERED, "cand-7", datetime(2026, 11, 18, 17, tzinfo=UTC)),
        "the rule was registered at 2026-11-19T09:00:00Z, after the candidate run cand-7 was "
        "created (2026-11-18T17:00:00Z): a rule chosen after the run proves nothing; register it "
        "before the candidate runs",
    ),
    (
        RerunUntilGreen("pr-42", 3, ("BLOCK", "INCONCLUSIVE")),
        "rerun until green: attempt 3 of this change; the earlier attempts said BLOCK, "
        "INCONCLUSIVE (pr-42): declare a new change, or take the escalation the gate prescribed",
    ),
    (
        RunNotFinished(
            "candidate", "LmjZZ", "error.eval", "error", "RuntimeError('HTTP 500')", 24, 20, 8, 8
        ),
        "the candidate run error.eval (run LmjZZ) did not finish (error: RuntimeError('HTTP "
        "500')): 20 of its 24 repetitions never ran, in 8 of its 8 cases",
    ),
    (
        RunNotFinished("baseline", "lr-1", "lr-1", "stopped", None, 30, 0, 10, 0),
        "the baseline run lr-1 did not finish (stopped): each of its 30 planned repetitions has "
        "a line",
    ),
    (
        MissingRepetitions("candidate", "lr-2", "runs/lr-2", 30, 2, ("case-04",)),
        "the candidate run runs/lr-2 (run lr-2) lacks 2 of its 30 planned repetitions (neither "
        "infra nor excluded: absent), in 1 case: case-04",
    ),
    # outcome limits
    (FalseNegativeMax(1, 0), "1 false negative, above the limit of 0"),
    (
        Excess(9, 26, 0.004, 6, 0.05, 12),
        "26 false negatives against the baseline's 9 on matched repetitions (+17): beyond the "
        "noise, which reaches +6 at 95% (p 0.004)",
    ),
    (
        Excess(9, 12, 0.3, 6, 0.05, 5, "template"),
        "12 false negatives against the baseline's 9 on matched repetitions (+3): within the "
        "noise, which reaches +6 at 95% (p 0.300, each template counted once)",
    ),
    # the safety bound
    (
        never_event(120, 0, alpha=0.05, max_rate=0.01),
        "120 safety cases, 120 passing every repetition: the failure rate is at most 2.47% at "
        "95% (Clopper-Pearson), above the 1% asked: 179 more, all passing, would support it "
        "(299 in all)",
    ),
    (
        never_event(400, 0, alpha=0.05, max_rate=0.01),
        "400 safety cases, 400 passing every repetition: the failure rate is at most 0.746% at "
        "95% (Clopper-Pearson), within the 1% asked",
    ),
    (
        never_event(12, 0, alpha=0.05, max_rate=None, by="template"),
        "12 safety templates, 12 passing every repetition: the failure rate is at most 22.1% at "
        "95% (Clopper-Pearson)",
    ),
    (
        ZeroFalseNegativeRule("recalled_products", 5),
        "5 false negatives on recalled_products, where none is allowed",
    ),
    (
        InconclusiveMaxShare(0.1, 0.08, 6, 60),
        "inconclusive decisions are 10.0% of the candidate's (6 of 60), above the 8% budget",
    ),
    (
        MirrorApprovedMax("prohibited_items", 2, 0, of_baseline=True, decided="allow"),
        "2 borderline items decided allow with confidence on prohibited_items (a person should "
        "have looked), above the baseline's 0",
    ),
    (
        EscalationsMaxPerRun(42, 40, 3),
        "42 decisions escalated to a person in the repetition that escalated the most, above "
        "the reviewers' queue of 40 a run",
    ),
    # budgets
    (
        BudgetCheck(LATENCY, 1197.0, 1412.0, 1316.7, exceeded=True),
        "latency_ms p95 1,412 ms is 18% above the baseline's 1,197 ms, budget +10%",
    ),
    (
        BudgetCheck(Budget("cost_usd", "mean", max=0.004), None, 0.0035, 0.004, exceeded=False),
        "cost_usd mean $0.0035 is within the budget of $0.004",
    ),
    # warnings
    (
        NewCases(("case-new",)),
        "1 new case only in the candidate, not counted: case-new; rebaseline to count them",
    ),
    (
        ChangedLate("flaky_added_late", ("case-03",), date(2026, 11, 20)),
        "flaky entries added after the baseline run was created (case-03): the list should "
        "change in its own reviewed change, not while this one is judged",
    ),
    (
        ChangedLate("retired_late", ("sa-001",), date(2026, 11, 20)),
        "cases retired after the baseline run was created (sa-001): a retirement should land in "
        "its own reviewed change, not while this one is judged",
    ),
    (
        SameRunId("lr-1"),
        "both arms have run_id 'lr-1': one run compared with itself, or a run.yaml copied "
        "without a new run_id",
    ),
    (
        FlipsConcentrated("refunds", 10, 0, 14, 3, 0.0065, 0.3125, "case"),
        "10 of the 14 flipped cases come from template refunds (10 broke, 0 fixed): cloned cases "
        "flip together; the rule counted cases (clusters: none); count a template once (14 flips "
        "from 3 templates: p 0.006 counted by case, 0.312 by template)",
    ),
    (
        FlipsConcentrated("refunds", 10, 0, 14, 3, 0.0065, 0.3125, "template"),
        "10 of the 14 flipped cases come from template refunds (10 broke, 0 fixed): cloned cases "
        "flip together; the rule counted each template once (14 flips from 3 templates: p 0.006 "
        "counted by case, 0.312 by template)",
    ),
    (
        ReadingsDisagree(8, 4, 1 / 256, 1 / 16, 0.025, "template"),
        "8 flips from 4 templates: p 0.004 counted by case, 0.062 by template, either side of "
        "0.025: the rule counted templates",
    ),
    (
        FinishNotStated("candidate", "test_run_1", "test_run_1.json", "deepeval", 12),
        "the candidate deepeval log test_run_1.json (run test_run_1) does not say whether its "
        "run finished: its 12 cases are gated as the whole run",
    ),
    # unpaired
    (Unpaired("gone", "deleted", "baseline"), "only in baseline"),
    (Unpaired("fresh", "new", "candidate"), "only in candidate"),
    (Unpaired("lost", "infra", "candidate"), "no gradable candidate repetition"),
    (
        RepsMissing("3", "run_not_finished", "candidate", 3, 1, 1, 2),
        "2 of its 3 candidate repetitions never ran: the run did not finish; 1 of the 1 that ran "
        "errored",
    ),
    (
        RepsMissing("9", "missing_repetitions", "baseline", 3, 2, 0, 1),
        "1 of its 3 baseline repetitions never ran: missing from the run",
    ),
    (
        RepsExcluded(
            "20",
            "candidate",
            2,
            3,
            (
                Exclusion("20", 0, "qa@example.com", "leaked"),
                Exclusion("20", 1, "qa@example.com", "leaked"),
            ),
        ),
        "2 of its 3 candidate repetitions excluded by qa@example.com (leaked)",
    ),
    (
        RepsExcluded("21", "baseline", 1, 3, (Exclusion("21", 2),)),
        "1 of its 3 baseline repetitions excluded by someone unnamed",
    ),
    # changes, edits
    (
        CaseEdited("x", (RuleEdit("policy", Asked("absent"), Asked("check")),)),
        "x edited: policy: absent in the baseline, a pass/fail check in the candidate",
    ),
    (CaseInOneArm("deleted", "gone"), "gone deleted: lines in the baseline, none in the candidate"),
    (CaseInOneArm("new", "fresh"), "fresh new: only in the candidate, not counted"),
    (CaseCached("c01", "candidate", 1, 3), "c01 cached: 1 of its 3 candidate repetitions"),
    (RULE, "prohibited_items: expected approve in the baseline, reject in the candidate"),
    (SafetyEdit(False, True), "safety: ordinary in the baseline, a safety case in the candidate"),
    (TemplateEdit(None, "refunds"), "template: none in the baseline, refunds in the candidate"),
    # loosened settings
    (Loosened("lowered", "alpha", 0.05, 0.01), "alpha: 0.05 in the base, 0.01 here"),
    (MARGIN, "sets.full.margin: 2 in the base, 6 here"),
    (
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
        Loosened("removed", "budgets.latency_ms.max_increase", 0.1, None, "p95", relative=True),
        "budgets.latency_ms (p95) max_increase: +10% in the base, removed here",
    ),
    (
        Loosened("weakened", "aggregate.safety", "all", "majority"),
        "aggregate.safety: all in the base, majority here",
    ),
    (
        Loosened("taken_out", "outcomes.fail_on", ("false_negative", "mirror"), ("mirror",)),
        "outcomes.fail_on: false_negative taken out ([false_negative, mirror] in the base, "
        "[mirror] here)",
    ),
]


def test_the_table_holds_one_payload_of_every_code() -> None:
    said = {reason.code for reason, _ in SENTENCES}
    for codes in (
        INVALID_CODES,
        LIMIT_CODES,
        BOUND_CODES,
        BUDGET_CODES,
        WARNING_CODES,
        UNPAIRED_STATES,
        CHANGE_CODES,
        EDIT_CODES,
        LOOSENING_CODES,
    ):
        assert set(codes) <= said, sorted(set(codes) - said)


@pytest.mark.parametrize(("reason", "words"), SENTENCES, ids=lambda x: getattr(x, "code", None))
def test_each_code_is_said_from_its_payload(reason: Any, words: str) -> None:
    assert sentence(reason) == words


def test_the_json_gives_the_code_the_sentence_and_the_values() -> None:
    edited = CasesEdited((CaseEdited("listing-001", (RULE,)),))
    assert reason_json(edited) == {
        "code": "cases_edited",
        "message": sentence(edited),
        "cases": [
            {
                "code": "edited",
                "message": "listing-001 edited: " + sentence(RULE),
                "case": "listing-001",
                "edits": [
                    {
                        "code": "rule_changed",
                        "message": sentence(RULE),
                        "rule": "prohibited_items",
                        "baseline": {"asks": "labels", "labels": ["approve"]},
                        "candidate": {"asks": "labels", "labels": ["reject"]},
                    }
                ],
            }
        ],
    }
    late = reason_json(ChangedLate("flaky_added_late", ("case-03",), date(2026, 11, 20)))
    assert late["baseline_created"] == "2026-11-20"
    loosened = reason_json(GateLoosened(MAIN, (MARGIN,)))
    assert loosened["where"] == {"ref": "main", "files": []}
    assert loosened["settings"][0]["code"] == "raised"


def test_a_thing_with_no_words_is_refused() -> None:
    with pytest.raises(TypeError, match="no sentence for str"):
        sentence("a sentence made elsewhere")
