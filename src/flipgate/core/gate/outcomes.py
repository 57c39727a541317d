"""Decision outcomes (SPEC §4): classify, price and reconcile every decision a system made.

The five outcomes are exhaustive and disjoint, checked in this order:

    agreement       expected == actual (abstain/abstain included)        price 0
    mirror          expected abstain, actual decided                     priced by direction
    inconclusive    actual abstain, expected decided                     `inconclusive`
    false_negative  expected positive, actual negative                   `false_negative`
    false_positive  expected negative, actual positive                   `false_positive`

A mirror that approved (actual negative) is priced as a false negative, one that rejected as a
false positive: no one was asked, and the guess went that way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import polars as pl

from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Labels, decided_rules, decision_column
from flipgate.core.vocab import OUTCOMES

DEFAULT_LABELS = Labels()
# Worst first: what a red case is sorted by when a reviewer asks "what is the worst thing here".
SEVERITY = ("false_negative", "mirror", "false_positive", "inconclusive", "agreement")
WRONG_WORST_FIRST = SEVERITY[:-1]
# Outcomes as an ordered enum: comparisons are integer compares, and the worst outcome of a group
# is the minimum of the physical codes.
OUTCOME = pl.Enum(SEVERITY)
OUTCOME_WORDS = {
    "agreement": "agreement",
    "false_negative": "false negative",
    "false_positive": "false positive",
    "inconclusive": "inconclusive",
    "mirror": "mirror",
}


def severity_name(rank: pl.Expr) -> pl.Expr:
    """An outcome's position in SEVERITY back to its name; past the end (no decision) is null."""
    return rank.replace_strict(dict(enumerate(SEVERITY)), default=None, return_dtype=pl.String)


def classify(expected: str, actual: str, labels: Labels = DEFAULT_LABELS) -> str:
    """The outcome of one decision; a label outside the three is a bug in the input, not a sixth outcome."""
    allowed = labels.all()
    if expected not in allowed or actual not in allowed:
        raise ValueError(f"unknown label: expected={expected!r}, actual={actual!r}")
    if expected == actual:
        return "agreement"
    if expected == labels.abstain:
        return "mirror"
    if actual == labels.abstain:
        return "inconclusive"
    return "false_negative" if expected == labels.positive else "false_positive"


def outcome_expr(labels: Labels) -> pl.Expr:
    """`classify` as a polars expression over the `expected` and `actual` columns."""
    return outcome_of(pl.col("expected"), pl.col("actual"), labels).alias("outcome")


def outcome_of(expected: pl.Expr, actual: pl.Expr, labels: Labels) -> pl.Expr:
    """`classify` over two label columns; null where neither holds a label (no decision)."""
    e, a = expected, actual

    def named(outcome: str) -> pl.Expr:
        return pl.lit(outcome, dtype=OUTCOME)

    return (
        pl.when(e.is_null() & a.is_null())
        .then(pl.lit(None, dtype=OUTCOME))
        .when(e == a)
        .then(named("agreement"))
        .when(e == labels.abstain)
        .then(named("mirror"))
        .when(a == labels.abstain)
        .then(named("inconclusive"))
        .when(e == labels.positive)
        .then(named("false_negative"))
        .otherwise(named("false_positive"))
    )


def price_expr(labels: Labels, spec: GateSpec) -> pl.Expr:
    """The price of each decision, a mirror priced by the direction it decided."""
    return price_of(pl.col("outcome"), pl.col("actual"), labels, spec).alias("price")


def unit_price(outcome: str, spec: GateSpec, *, approved: bool = False) -> float:
    """One decision's price: an agreement costs nothing; a mirror is priced by the direction it
    decided, `approved` (the negative label, a confident approval of a borderline item) as a
    false negative, else as a false positive."""
    if outcome == "mirror":
        return spec.price("false_negative" if approved else "false_positive")
    return 0.0 if outcome == "agreement" else spec.price(outcome)


def price_of(outcome: pl.Expr, actual: pl.Expr, labels: Labels, spec: GateSpec) -> pl.Expr:
    """`unit_price` of a decision of `outcome` deciding `actual` (0 where there is none)."""
    return (
        pl.when(outcome == "false_negative")
        .then(pl.lit(unit_price("false_negative", spec)))
        .when(outcome == "false_positive")
        .then(pl.lit(unit_price("false_positive", spec)))
        .when(outcome == "inconclusive")
        .then(pl.lit(unit_price("inconclusive", spec)))
        .when((outcome == "mirror") & (actual == labels.negative))
        .then(pl.lit(unit_price("mirror", spec, approved=True)))
        .when(outcome == "mirror")
        .then(pl.lit(unit_price("mirror", spec)))
        .otherwise(pl.lit(0.0))
    )


def classify_frame(decisions: pl.DataFrame, labels: Labels, spec: GateSpec) -> pl.DataFrame:
    """Add `outcome` and `price` to a decisions frame."""
    return decisions.with_columns(outcome_expr(labels)).with_columns(price_expr(labels, spec))


@dataclass(frozen=True)
class Reconciliation:
    """cases -> red cases -> decisions -> wrong decisions -> outcomes, each adding up."""

    cases: int
    red_cases: int
    decisions: int
    decisions_in_green_cases: int
    agreements_in_red_cases: int
    wrong_decisions: int
    red_by_wrong: dict[int, int]  # how many red cases hold k wrong decisions

    def check(self) -> None:
        """Every level adds up to the one above it; a failure here is a bug, never bad input."""
        assert sum(self.red_by_wrong.values()) == self.red_cases
        assert sum(k * n for k, n in self.red_by_wrong.items()) == self.wrong_decisions
        assert (
            self.decisions_in_green_cases + self.agreements_in_red_cases + self.wrong_decisions
            == self.decisions
        )


@dataclass(frozen=True)
class OutcomeSummary:
    """One arm's decisions: the five counts, the priced cost, mirrors by direction, the reconciliation."""

    counts: dict[str, int]
    decisions: int
    cost: float
    cost_by_outcome: dict[str, float]
    mirror_approved: int  # priced as false negatives
    mirror_rejected: int  # priced as false positives
    reconciliation: Reconciliation
    # Confident approvals of borderline items, rule by rule (rules with none left out).
    mirror_approved_by_rule: dict[str, int] = field(default_factory=dict)
    # The reviewers' queue: every decision escalated to a person, the inconclusive ones and
    # those where escalating was right; over all repetitions, and in the repetition of the suite
    # that escalated the most (`queue`: what one run sends to the reviewers).
    escalated: int = 0
    queue: int = 0
    repetitions: int = 0  # repetitions of the suite that hold a decision
    false_negatives_by_rule: dict[str, int] = field(default_factory=dict)  # rules with none out
    rules: tuple[str, ...] = ()  # the rules that hold a decision, sorted

    def fewest_mirror_approved(self, rules: Iterable[str]) -> int:
        """The fewest confident approvals of borderline items on any of `rules`."""
        return min((self.mirror_approved_by_rule.get(rule, 0) for rule in rules), default=0)

    @property
    def wrong(self) -> int:
        return self.decisions - self.counts["agreement"]


def outcome_column(rule: str) -> str:
    """The column of a judged frame (`collapse.judge`) holding `rule`'s outcome."""
    return decision_column("outcome", rule)


def judge_decided(decided: pl.DataFrame, labels: Labels) -> pl.DataFrame:
    """A `decided` frame with each rule's decisions classified beside its labels, in
    `outcome/RULE` (null: no decision on that rule)."""
    return decided.with_columns(
        outcome_of(
            pl.col(decision_column("expected", rule)),
            pl.col(decision_column("actual", rule)),
            labels,
        ).alias(outcome_column(rule))
        for rule in decided_rules(decided)
    )


def summarize(
    judged: pl.DataFrame, labels: Labels, spec: GateSpec, per_case: pl.DataFrame
) -> OutcomeSummary:
    """Summarise an arm's judged decisions (`collapse.judge`: infra repetitions left out, a
    row per repetition and each rule's outcome a column), rule by rule in one select.

    `per_case` holds one row per case of the arm (case, decisions, wrong), cases with no decision
    (pass/fail checks only) included, so that they count as green cases in the reconciliation.
    """
    rules = decided_rules(judged)
    outcome = {rule: pl.col(outcome_column(rule)) for rule in rules}
    actual = {rule: pl.col(decision_column("actual", rule)) for rule in rules}
    sums_by_rule = judged.select(
        *(
            (outcome[rule] == name).sum().alias(f"{name}/{rule}")
            for rule in rules
            for name in OUTCOMES
        ),
        *(
            ((outcome[rule] == "mirror") & (actual[rule] == label)).sum().alias(f"{side}/{rule}")
            for rule in rules
            for side, label in (("approved", labels.negative), ("rejected", labels.positive))
        ),
    )
    sums = sums_by_rule.row(0, named=True) if rules else {}
    by_rule = {name: {rule: int(sums[f"{name}/{rule}"]) for rule in rules} for name in OUTCOMES}
    counts: dict[str, int] = {name: sum(by_rule[name].values()) for name in OUTCOMES}
    approved = {rule: int(sums[f"approved/{rule}"]) for rule in rules}
    mirror_approved = sum(approved.values())
    mirror_rejected = sum(int(sums[f"rejected/{rule}"]) for rule in rules)
    cost_by: dict[str, float] = {name: counts[name] * unit_price(name, spec) for name in OUTCOMES}
    cost_by["mirror"] = mirror_approved * unit_price("mirror", spec, approved=True) + (
        counts["mirror"] - mirror_approved
    ) * unit_price("mirror", spec)
    escalated = [actual[rule] == labels.abstain for rule in rules]
    per_rep = (
        judged.group_by("rep").agg(pl.sum_horizontal(escalated).sum().alias("len"))
        if rules
        else pl.DataFrame(schema={"len": pl.UInt32})
    )
    decisions = sum(counts.values())
    red = per_case.filter(pl.col("wrong") > 0)
    histogram = red.group_by("wrong").len().sort("wrong")
    reconciliation = Reconciliation(
        cases=per_case.height,
        red_cases=red.height,
        decisions=decisions,
        decisions_in_green_cases=int(per_case.filter(pl.col("wrong") == 0)["decisions"].sum()),
        agreements_in_red_cases=int((red["decisions"] - red["wrong"]).sum()),
        wrong_decisions=int(red["wrong"].sum()),
        red_by_wrong={int(k): int(n) for k, n in histogram.iter_rows()},
    )
    reconciliation.check()
    return OutcomeSummary(
        counts=counts,
        decisions=decisions,
        cost=sum(cost_by.values()),
        cost_by_outcome=cost_by,
        mirror_approved=mirror_approved,
        mirror_rejected=mirror_rejected,
        reconciliation=reconciliation,
        mirror_approved_by_rule={rule: n for rule, n in approved.items() if n},
        escalated=int(per_rep["len"].sum()),
        queue=int(per_rep["len"].max() or 0),  # type: ignore[arg-type]
        repetitions=judged["rep"].n_unique(),
        false_negatives_by_rule={rule: n for rule, n in by_rule["false_negative"].items() if n},
        rules=rules,
    )
