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
from flipgate.core.runs.model import Labels
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
    e, a = pl.col("expected"), pl.col("actual")

    def named(outcome: str) -> pl.Expr:
        return pl.lit(outcome, dtype=OUTCOME)

    return (
        pl.when(e == a)
        .then(named("agreement"))
        .when(e == labels.abstain)
        .then(named("mirror"))
        .when(a == labels.abstain)
        .then(named("inconclusive"))
        .when(e == labels.positive)
        .then(named("false_negative"))
        .otherwise(named("false_positive"))
        .alias("outcome")
    )


def price_expr(labels: Labels, spec: GateSpec) -> pl.Expr:
    """The price of each decision, a mirror priced by the direction it decided."""
    outcome, actual = pl.col("outcome"), pl.col("actual")
    fn, fp = spec.price("false_negative"), spec.price("false_positive")
    return (
        pl.when(outcome == "false_negative")
        .then(pl.lit(fn))
        .when(outcome == "false_positive")
        .then(pl.lit(fp))
        .when(outcome == "inconclusive")
        .then(pl.lit(spec.price("inconclusive")))
        .when((outcome == "mirror") & (actual == labels.negative))
        .then(pl.lit(fn))
        .when(outcome == "mirror")
        .then(pl.lit(fp))
        .otherwise(pl.lit(0.0))
        .alias("price")
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

    def fewest_mirror_approved(self, rules: Iterable[str]) -> int:
        """The fewest confident approvals of borderline items on any of `rules`."""
        return min((self.mirror_approved_by_rule.get(rule, 0) for rule in rules), default=0)

    @property
    def wrong(self) -> int:
        return self.decisions - self.counts["agreement"]


def per_case_counts(classified: pl.DataFrame) -> pl.DataFrame:
    """case, decisions, wrong: what `summarize` reconciles, from classified decisions alone."""
    return classified.group_by("case").agg(
        pl.len().alias("decisions"), (pl.col("outcome") != "agreement").sum().alias("wrong")
    )


def summarize(classified: pl.DataFrame, labels: Labels, per_case: pl.DataFrame) -> OutcomeSummary:
    """Summarise an arm's classified decisions (infra repetitions already left out).

    `per_case` holds one row per case of the arm (case, decisions, wrong), cases with no decision
    (pass/fail checks only) included, so that they count as green cases in the reconciliation.
    """
    counts_df = classified.group_by("outcome").agg(pl.len().alias("n"), pl.col("price").sum())
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    cost_by: dict[str, float] = dict.fromkeys(OUTCOMES, 0.0)
    for outcome, n, price in counts_df.iter_rows():
        counts[outcome] = n
        cost_by[outcome] = float(price)
    # Only the columns each count reads: a filter of the frame copies all of them (0.1 s an arm
    # at a million cases).
    mirrors = classified.lazy().filter(pl.col("outcome") == "mirror").select("actual", "rule")
    approved = mirrors.filter(pl.col("actual") == labels.negative).collect()
    escalated = classified.lazy().filter(pl.col("actual") == labels.abstain)
    per_rep = escalated.group_by("rep").len().collect()
    red = per_case.filter(pl.col("wrong") > 0)
    histogram = red.group_by("wrong").len().sort("wrong")
    reconciliation = Reconciliation(
        cases=per_case.height,
        red_cases=red.height,
        decisions=classified.height,
        decisions_in_green_cases=int(per_case.filter(pl.col("wrong") == 0)["decisions"].sum()),
        agreements_in_red_cases=int((red["decisions"] - red["wrong"]).sum()),
        wrong_decisions=int(red["wrong"].sum()),
        red_by_wrong={int(k): int(n) for k, n in histogram.iter_rows()},
    )
    reconciliation.check()
    return OutcomeSummary(
        counts=counts,
        decisions=classified.height,
        cost=sum(cost_by.values()),
        cost_by_outcome=cost_by,
        mirror_approved=approved.height,
        mirror_rejected=mirrors.filter(pl.col("actual") == labels.positive).collect().height,
        reconciliation=reconciliation,
        mirror_approved_by_rule=dict(approved.group_by("rule").len().sort("rule").iter_rows()),
        escalated=int(per_rep["len"].sum()),
        queue=int(per_rep["len"].max() or 0),  # type: ignore[arg-type]
        repetitions=classified["rep"].n_unique(),
    )
