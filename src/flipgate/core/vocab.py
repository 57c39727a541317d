"""The domain's words, each defined once: a `Literal` for the type checker, its values for the code.

Every tuple here is `get_args` of its `Literal`, so that the words a function accepts and the words
a loop walks over cannot drift apart. The order of each tuple is the order a reader meets them in
SPEC (the arms, the cells, the outcomes of §4, the triage classes of §5).

The last part holds the codes of what the checks find (reasons a comparison is invalid, limits
and budgets exceeded, warnings, unpaired states, edits, loosened settings, triage facts): each a
stable code with a payload of values (the classes beside their checks), never a sentence. The
sentences are made in `present/` only (`present/reasons/`, `present/triage.py`).
"""

from __future__ import annotations

from typing import Literal, Protocol, get_args

Arm = Literal["baseline", "candidate"]
ARMS: tuple[Arm, ...] = get_args(Arm)

Suite = Literal["smoke", "full"]  # selects the margin and the flip cap
SUITES: tuple[Suite, ...] = get_args(Suite)

Aggregate = Literal["majority", "all"]  # how a case's repetitions collapse (SPEC §3.1)
AGGREGATES: tuple[Aggregate, ...] = get_args(Aggregate)

# A run's three verdict labels (SPEC §1) by role: negative, positive, abstain; a run may rename them.
DEFAULT_LABELS: dict[str, str] = {
    "negative": "approve",
    "positive": "reject",
    "abstain": "escalate",
}

# The four cells of the flip matrix (SPEC §3.3); the flips are the cells b and c.
Direction = Literal["pass_to_fail", "fail_to_pass"]
FLIPS: tuple[Direction, ...] = get_args(Direction)
Cell = Literal["both_pass", "both_fail", Direction]
CELLS: tuple[Cell, ...] = get_args(Cell)

Verdict = Literal["PASS", "BLOCK", "INCONCLUSIVE", "INVALID"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

# What the gate's counts count (SPEC §3.5, §9): each case, or each template once (`clusters`).
CountedBy = Literal["case", "template"]

# Which line of SPEC §3.5 decided; `core/gate/rules.py` holds them in order, with what each says.
# `partial` is the choice `--allow-partial` makes: a run not whole is gated, never to PASS.
GateRule = Literal[
    "safety",
    "invalid",
    "significance",
    "outcome_limit",
    "budget",
    "partial",
    "safety_bound",
    "within_margin",
    "undecided",
]
GATE_RULES: tuple[GateRule, ...] = get_args(GateRule)

# The statistic a second metric's budget takes over the repetitions (SPEC §3 `budgets`).
Statistic = Literal["mean", "median", "p95", "total"]
STATISTICS: tuple[Statistic, ...] = get_args(Statistic)

# What to do next on INCONCLUSIVE (SPEC §3.6).
EscalationAction = Literal["run_full_set", "rerun_flipped", "reviewer_decision", "finish_runs"]

# The five decision outcomes (SPEC §4); every one but agreement is a wrong decision.
Outcome = Literal["agreement", "false_negative", "false_positive", "inconclusive", "mirror"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
WrongOutcome = Literal["false_negative", "false_positive", "inconclusive", "mirror"]
WRONG_OUTCOMES: tuple[WrongOutcome, ...] = get_args(WrongOutcome)
PricedOutcome = Literal["false_negative", "false_positive", "inconclusive"]  # a mirror by direction
PRICED_OUTCOMES: tuple[PricedOutcome, ...] = get_args(PricedOutcome)

# The triage classes (SPEC §5), in the order the walk rules them out.
TriageClass = Literal["infra", "flaky", "grader", "stale_baseline", "regression"]
TRIAGE_CLASSES: tuple[TriageClass, ...] = get_args(TriageClass)
Finding = Literal["ruled_out", "cause", "unclear"]  # a reviewer's finding on one class
FINDINGS: tuple[Finding, ...] = get_args(Finding)

# What a signed reviewer decision decides (SPEC §6).
ReviewDecision = Literal["accept", "reject", "rerun", "rebaseline"]
REVIEW_DECISIONS: tuple[ReviewDecision, ...] = get_args(ReviewDecision)
# What a decision's review log records (`core/decision/review_log.py`): what the reviewer opened
# and viewed, each triage finding recorded or undone, each case added to the cases reviewed.
ReviewEvent = Literal[
    "case_opened",
    "rep_viewed",
    "outputs_viewed",
    "turn_viewed",
    "finding_recorded",
    "finding_undone",
    "case_added",
    "case_removed",
]
REVIEW_EVENTS: tuple[ReviewEvent, ...] = get_args(ReviewEvent)

# Who flipped a case (issue 23): the model (its stored output changed), the grader (the same
# output, another verdict), or unknown (no stored outputs to compare: never guessed).
FlipSource = Literal["model", "grader", "unknown"]
FLIP_SOURCES: tuple[FlipSource, ...] = get_args(FlipSource)

# The three labels of a ranking of candidates (seed 003), never merged into one.
RankLabel = Literal["highest_mean", "winner", "clears"]
RANK_LABELS: tuple[RankLabel, ...] = get_args(RankLabel)


# --------------------------------------------------------------------------- codes


class Coded(Protocol):
    """Something a check found: a stable code of one family below; its other attributes are its
    payload (cases, counts, limits, values). `present.reasons.sentence` words it."""

    @property
    def code(self) -> str: ...


# Why a comparison cannot be judged (SPEC §3.5 line 2): `core/gate/invalid.py`, one check each.
InvalidCode = Literal[
    "no_case_in_common",
    "infra_share",
    "stale_baseline",
    "flaky_list_too_long",
    "flaky_list_safety",
    "cases_edited",
    "cases_deleted",
    "cached_candidate",
    "cached_safety",
    "base_not_found",
    "gate_loosened",
    "flaky_added",
    "retirement_added",
    "registration_differs",
    "registered_after_candidate",
    "rerun_until_green",
    "run_not_finished",
    "missing_repetitions",
]
INVALID_CODES: tuple[InvalidCode, ...] = get_args(InvalidCode)

# An outcome limit of SPEC §4 the candidate's decisions exceed, named by its gate.yaml setting.
LimitCode = Literal[
    "false_negative_max",
    "false_negative_beyond_noise",
    "zero_false_negative_rule",
    "inconclusive_max_share",
    "mirror_approved_max",
    "escalations_max_per_run",
]
LIMIT_CODES: tuple[LimitCode, ...] = get_args(LimitCode)

# What the safety cases bound (SPEC §9), against `safety.max_rate` where one is asked: enough
# of them, all passing, to support it, or too few (the verdict is INCONCLUSIVE).
BoundCode = Literal["safety_bound_supported", "safety_bound_unsupported"]
BOUND_CODES: tuple[BoundCode, ...] = get_args(BoundCode)

# A second metric against its budget (SPEC §3 `budgets`): every budget is checked, met or not.
BudgetCode = Literal["budget_exceeded", "budget_met"]
BUDGET_CODES: tuple[BudgetCode, ...] = get_args(BudgetCode)

# What the reviewer should know that no rule decides on.
WarningCode = Literal[
    "new_cases",
    "flaky_added_late",
    "retired_late",
    "same_run_id",
    "flips_concentrated",
    "readings_disagree",
    "finish_not_stated",
]
WARNING_CODES: tuple[WarningCode, ...] = get_args(WarningCode)

# The state each case of either arm ends in: the case ledger (issue 22, SPEC §9;
# `core/gate/ledger.py` says which, `core/gate/pairing.py` gives each case its state). Paired,
# or unpaired because it is only in the candidate (new), only in the baseline (deleted), had no
# gradable repetition in an arm (infra), had repetitions taken out after the run (excluded), or
# lacks repetitions its run planned (missing_repetitions; run_not_finished when the run stopped).
CaseState = Literal[
    "paired", "new", "deleted", "infra", "excluded", "missing_repetitions", "run_not_finished"
]
CASE_STATES: tuple[CaseState, ...] = get_args(CaseState)
UnpairedState = Literal[
    "new", "deleted", "infra", "excluded", "missing_repetitions", "run_not_finished"
]  # every state but paired: the case is left out of the cells
UNPAIRED_STATES: tuple[UnpairedState, ...] = get_args(UnpairedState)

# What the change under test did to one case (`core/gate/changes.py`, docs/gate.md).
ChangeCode = Literal["edited", "deleted", "new", "cached"]
CHANGE_CODES: tuple[ChangeCode, ...] = get_args(ChangeCode)
# How a case graded in both arms was edited: what one rule asks, its safety flag, its template.
EditCode = Literal["rule_changed", "safety_changed", "template_changed"]
EDIT_CODES: tuple[EditCode, ...] = get_args(EditCode)
# What a rule of a case asks over its gradable repetitions: expected labels, a pass/fail check,
# or nothing (the rule is absent in that arm).
Asks = Literal["labels", "check", "absent"]

# The files the change under test is checked against at its base (`--base-*`, docs/gate.md).
BaseFile = Literal["gate_spec", "flaky_list", "suite_manifest"]
BASE_FILES: tuple[BaseFile, ...] = get_args(BaseFile)
# How a gate setting is looser than at the base (`core/gate/loosening.py`, docs/gate.md's table).
LooseningCode = Literal["lowered", "raised", "unlimited", "removed", "weakened", "taken_out"]
LOOSENING_CODES: tuple[LooseningCode, ...] = get_args(LooseningCode)

# The triage evidence (SPEC §5), fact by fact, each class's in its own module of `core/triage/`.
TriageFactCode = Literal[
    # infra
    "arm_infra",
    "infra_flip",
    "all_infra",
    # flaky
    "flaky_list",
    "baseline_repeats",
    "no_baseline_repeats",
    "noisy_case",
    "judge_unstable",
    # grader
    "judge_moved",
    "judge_held",
    "flip_split",
    "grader_noise",
    "same_output",
    "no_flip_to_compare",
    "no_output_graded_twice",
    "judge_alone",
    "no_judge_repeats",
    # stale baseline
    "key_moved",
    "key_held",
    "eval_set",
    "run_created",
    "baseline_age",
    "only_in_arm",
    "case_edited",
    "flaky_after_baseline",
    # regression
    "flipped_cases",
    "explained_earlier",
    "cases_passing",
    "outcome_change",
    "rule_wrong",
    "template_broken",
    "templates_cluster",
    "who_flipped",
]
TRIAGE_FACT_CODES: tuple[TriageFactCode, ...] = get_args(TriageFactCode)

# What an old run re-scored against today's suite says of the bar (seed 002's counterfactual,
# `core/suite/audit.py`): it moved (the old run fails cases it passed), stood still, got easier.
Reading = Literal["bar_moved", "bar_stood_still", "bar_got_easier", "no_overlap"]
READINGS: tuple[Reading, ...] = get_args(Reading)

# Whether the winner of a ranking may replace the incumbent, and why (`core/rank/ranking.py`);
# the rejections in the order they are checked, then the one way through.
ClearanceCode = Literal[
    "no_complete_candidate",
    "tied",
    "safety_failed",
    "invalid",
    "not_better",
    "below_minimum",
    "gate_not_pass",
    "clears",
]
CLEARANCE_CODES: tuple[ClearanceCode, ...] = get_args(ClearanceCode)

# Why the highest mean is not the winner (`core/rank/ranking.py`, `Disagreement`): its holder is
# incomplete and cannot win, or it is complete and the release key ranks another first.
DisagreementCode = Literal["highest_mean_incomplete", "release_key_decides"]
DISAGREEMENT_CODES: tuple[DisagreementCode, ...] = get_args(DisagreementCode)

# What a run says of itself that a user must see (`Run.notes`): its log did not finish, documents,
# rows or repetitions missing, repeats served from a cache (each importer's, core/importers/
# notes.py), flipped cases replaced by the rerun (`core/gate/reruns.py`).
RunNoteCode = Literal[
    "log_not_finished",
    "documents_missing",
    "rows_missing",
    "cached_repeats",
    "repetitions_missing",
    "rerun_replaced",
]
RUN_NOTE_CODES: tuple[RunNoteCode, ...] = get_args(RunNoteCode)

# Why a candidate may not be chosen among a campaign's (`core/rank/choice.py`, `refusal`), in the
# order they are checked: not a candidate, incomplete, its gate blocks or is invalid, or the data
# ranks it below the first tie group.
RefusalCode = Literal["not_a_candidate", "incomplete", "gate_refuses", "below_first_group"]
REFUSAL_CODES: tuple[RefusalCode, ...] = get_args(RefusalCode)

# What one check of a signed file found (`flipgate verify`: `core/decision/findings.py`, words in
# `present/verify.py`): the file, its signature block and document, the signature and its signer,
# each run it names, and for a choice the ranking made again and the choice on it.
CheckCode = Literal[
    "unread",
    "block_found",
    "malformed",
    "well_formed",
    "not_checked",
    "unable",
    "signature_valid",
    "signature_mismatch",
    "no_allowed_signers",
    "allowed_signers_missing",
    "signer_allowed",
    "signer_not_allowed",
    "run_undigested",
    "run_changed",
    "run_unchanged",
    "ranking_unrepeatable",
    "ranking_differs",
    "ranking_same",
    "choice_refused",
    "clearance_differs",
    "choice_allowed",
]
CHECK_CODES: tuple[CheckCode, ...] = get_args(CheckCode)
# Why a check was not made: no well-formed signature block, a malformed block or document, the
# document malformed, the ranking not computed again.
NotCheckedCause = Literal["no_block", "block_or_document", "document", "ranking"]
