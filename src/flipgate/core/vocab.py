"""The domain's words, each defined once: a `Literal` for the type checker, its values for the code.

Every tuple here is `get_args` of its `Literal`, so that the words a function accepts and the words
a loop walks over cannot drift apart. The order of each tuple is the order a reader meets them in
SPEC (the arms, the cells, the outcomes of §4, the triage classes of §5).
"""

from __future__ import annotations

from typing import Literal, get_args

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

# Which line of SPEC §3.5 decided; `core/gate/rules.py` holds them in order, with what each says.
GateRule = Literal[
    "safety", "invalid", "significance", "outcome_limit", "within_margin", "undecided"
]
GATE_RULES: tuple[GateRule, ...] = get_args(GateRule)

# What to do next on INCONCLUSIVE (SPEC §3.6).
EscalationAction = Literal["run_full_set", "rerun_flipped", "reviewer_decision"]

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

# The three labels of a ranking of candidates (seed 003), never merged into one.
RankLabel = Literal["highest_mean", "winner", "clears"]
RANK_LABELS: tuple[RankLabel, ...] = get_args(RankLabel)
