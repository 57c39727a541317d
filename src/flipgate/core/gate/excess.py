"""Limits and budgets that allow for noise: an excess over the baseline blocks only beyond it.

"No more false negatives than the baseline" compared two noisy counts as if they were exact: with
nothing changed the candidate has more about half the time (46% BLOCK on 150 no-change pairs,
issue 27), and "+10% p95 latency" on 50 cases fired 18% of the time. Here each is a one-sided
test at the gate's alpha:

    false_negative_excess   the false negatives of the candidate against the
                     baseline's, on the same cases: the exact sign-flip test of the per-case
                     (or per-template) differences, the gate's own test on another count
    budget_noise     a second metric's statistic (mean, median, p95, total) relative to the
                     baseline's: the paired permutation test, each case's (or template's)
                     repetitions swapped between the arms, every assignment or a stated count
                     from a stated seed

A limit of zero (`zero_false_negative_rules`) is a never-event and stays absolute; an absolute
limit (`false_negative_max: 3`, a budget's `max`) is a statement about the candidate alone, not a
comparison with the baseline, and stays too. A paired bootstrap was tried for the budgets first
and dropped: with five templates it blocked a p95 that did not change 9.8% of the time at alpha
0.05 (bench/README.md); the permutation test is exact with any number of clusters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import polars as pl

from flipgate.core.gate.mcnemar import FlipTest
from flipgate.core.gate.outcomes import outcome_column
from flipgate.core.gate.stats import sign_flip_distribution
from flipgate.core.runs.model import SIDES, decided_rules, decision_column
from flipgate.core.vocab import CountedBy, LimitCode, Statistic

RESAMPLES = 2000  # gate.yaml `permutations.count`: p's Monte Carlo error near 0.05 is about 0.005
SEED = 20261201  # gate.yaml `permutations.seed`: the same runs give the same answer everywhere
CHUNK_CELLS = 1 << 22  # assignments x repetitions held at once (16 MB of int32)


# --------------------------------------------------------------------------- outcome counts


@dataclass(frozen=True)
class Excess:
    """The candidate's false negatives against the baseline's, on matched repetitions of the
    paired cases (per case the first min(n_baseline, n_candidate) gradable repetitions of each
    arm, so an infra repetition never counts for either side), and whether the excess is beyond
    the noise at alpha: `outcomes.limits.false_negative_max: baseline`."""

    code: ClassVar[LimitCode] = "false_negative_beyond_noise"
    baseline: int
    candidate: int
    p: float  # the one-sided sign-flip p of an excess at least this large, with nothing changed
    bound: int  # the largest excess the noise reaches more often than alpha: above it, BLOCK
    alpha: float
    clusters: int  # cases (or templates) whose count differs between the arms
    by: CountedBy = "case"  # what a cluster is

    @property
    def excess(self) -> int:
        return self.candidate - self.baseline

    @property
    def beyond_noise(self) -> bool:
        return self.p <= self.alpha


def excess_test(
    differences: Sequence[int], alpha: float, test: FlipTest = "exact"
) -> tuple[float, int]:
    """(p, bound) of the total of per-cluster differences candidate - baseline: with nothing
    changed each cluster's difference is as likely to have either sign (its two arms are
    exchangeable), so the total is referred to its 2^K sign flips (sign_flip_p's distribution).
    `bound` is the largest total whose tail exceeds alpha: a total above it blocks."""
    tails = ExcessTails.of(differences, test)
    return tails.p, tails.bound(alpha)


@dataclass(frozen=True)
class ExcessTails:
    """The sign-flip law of the total excess: P(total >= t) for every t, and the observed t."""

    tails: np.ndarray  # P(S >= t - offset) (mid-p: the point weighs half)
    attainable: np.ndarray  # totals the signs can reach
    offset: int
    observed: int

    @classmethod
    def of(cls, differences: Sequence[int], test: FlipTest = "exact") -> ExcessTails:
        magnitudes = [abs(d) for d in differences if d]
        dist, offset = sign_flip_distribution(magnitudes)
        at_least = np.cumsum(dist[::-1])[::-1]
        tails = at_least - dist / 2 if test == "mid_p" else at_least
        return cls(tails, dist > 0, offset, sum(differences))

    @property
    def p(self) -> float:
        if not self.offset:  # no cluster differs: nothing to test
            return 1.0
        return float(min(self.tails[self.observed + self.offset], 1.0))

    def bound(self, alpha: float) -> int:
        above = np.flatnonzero(self.attainable & (self.tails > alpha))
        return int(above[-1]) - self.offset if len(above) else -self.offset - 1


def outcome_differences(
    reps: dict[str, pl.DataFrame],
    judged: dict[str, pl.DataFrame],
    paired: pl.DataFrame,
    counts: Callable[[pl.DataFrame], pl.Expr],
) -> tuple[int, int, list[int]]:
    """(baseline count, candidate count, per-cluster differences) of some decisions on the
    paired cases' matched repetitions. `reps` and `judged` are each arm's frames (case, rep,
    status; `collapse.judge`'s); `counts(frame)` is how many of a judged row's decisions count;
    `paired` holds `case` and `cluster` (the template, or the case itself)."""
    counted = []
    found = {
        arm: frame.select("case", "rep", counts(frame).alias("n")).filter(pl.col("n") > 0)
        for arm, frame in judged.items()
    }
    # Only where the outcome occurs can a count differ: the repetitions are matched in those
    # cases alone (matching every case's took 9 s of CPU at a million cases).
    touched = (
        pl.concat([rows.select("case") for rows in found.values()])
        .unique()
        .join(paired.select("case"), on="case", how="semi")
    )
    gradable = {
        arm: frame.select("case", "rep", "status")
        .filter(pl.col("status") == "ok")
        .join(touched, on="case", how="semi")
        .drop("status")
        for arm, frame in reps.items()
    }
    for arm, kept in _matched(gradable).items():
        counted.append(
            found[arm].join(kept, on=["case", "rep"]).group_by("case").agg(pl.col("n").sum())
        )
    base, cand = (
        found.rename({"n": arm})
        for found, arm in zip(counted, ("baseline", "candidate"), strict=True)
    )
    per_case = (
        paired.select("case", "cluster")
        .join(base, on="case", how="left")
        .join(cand, on="case", how="left")
        .fill_null(0)
    )
    # counts are unsigned: a difference below zero must not wrap around
    per_cluster = per_case.group_by("cluster").agg(
        pl.col("candidate").cast(pl.Int64).sum() - pl.col("baseline").cast(pl.Int64).sum()
    )
    return (
        int(per_case["baseline"].sum()),
        int(per_case["candidate"].sum()),
        [int(d) for d in per_cluster["candidate"].to_list() if d],
    )


def _matched(gradable: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Each arm's gradable repetitions (case, rep) that have a match: of a case graded in both
    arms, the first min(n_baseline, n_candidate) by rep. Only cases graded unevenly are ranked
    (a window over every case took 0.25 s of CPU at 100,000 cases, an eighth of the gate)."""
    counts = (
        gradable["baseline"]
        .group_by("case")
        .len("base")
        .join(gradable["candidate"].group_by("case").len("cand"), on="case")
    )
    even = counts.filter(pl.col("base") == pl.col("cand")).select("case")
    uneven = counts.filter(pl.col("base") != pl.col("cand")).select(
        "case", matched=pl.min_horizontal("base", "cand")
    )
    return {
        arm: pl.concat(
            [
                frame.join(even, on="case", how="semi"),
                frame.join(uneven, on="case")
                .filter(pl.col("rep").rank("ordinal").over("case") <= pl.col("matched"))
                .select("case", "rep"),
            ]
        )
        for arm, frame in gradable.items()
    }


@dataclass(frozen=True)
class OutcomeExcess:
    """The false negatives' test before it is held to a level: its p does not depend on one,
    its bound does (family.py shares alpha between the gate's paths)."""

    baseline: int
    candidate: int
    clusters: int  # cases (or templates) whose count differs between the arms
    tails: ExcessTails
    by: CountedBy = "case"

    @property
    def p(self) -> float:
        return self.tails.p

    def held(self, alpha: float) -> Excess:
        """The test at `alpha`: beyond the noise when p <= alpha."""
        bound = self.tails.bound(alpha)
        return Excess(self.baseline, self.candidate, self.p, bound, alpha, self.clusters, self.by)


def false_negatives(judged: pl.DataFrame) -> pl.Expr:
    """How many of each row's decisions of a judged frame (`collapse.judge`) are false negatives."""
    outcomes = [pl.col(outcome_column(rule)) for rule in decided_rules(judged)]
    return pl.sum_horizontal(o == "false_negative" for o in outcomes) if outcomes else pl.lit(0)


def false_negative_test(
    reps: dict[str, pl.DataFrame],
    judged: dict[str, pl.DataFrame],
    paired: pl.DataFrame,
    test: FlipTest = "exact",
    by: CountedBy = "case",
) -> OutcomeExcess:
    """The candidate's false negatives against the baseline's, tested against the noise."""
    base, cand, differences = outcome_differences(reps, judged, paired, false_negatives)
    return OutcomeExcess(base, cand, len(differences), ExcessTails.of(differences, test), by)


def mirror_approval_tests(
    reps: dict[str, pl.DataFrame],
    judged: dict[str, pl.DataFrame],
    paired: pl.DataFrame,
    labels: tuple[str, str],
    test: FlipTest = "exact",
    by: CountedBy = "case",
) -> dict[str, OutcomeExcess]:
    """Per rule, the candidate's confident approvals of borderline items (a mirror that decided
    the negative label) against the baseline's, tested against the noise as the false negatives
    are: `outcomes.limits.mirror_approved_max: baseline`. `labels` is (abstain, negative). A path
    for every rule with a borderline item (expected: abstain) in either arm: which rules are
    tested is fixed by the suite's labels, not by what the runs decided."""
    abstain, negative = labels
    borderline = {
        rule
        for frame in judged.values()
        for rule in decided_rules(frame)
        if frame[decision_column("expected", rule)].eq(abstain).any()
    }
    tests = {}
    for rule in sorted(borderline):
        expected, actual = (decision_column(side, rule) for side in SIDES)

        def approved(
            frame: pl.DataFrame, expected: str = expected, actual: str = actual
        ) -> pl.Expr:
            if actual not in frame.columns:  # a rule only the other arm has
                return pl.lit(0)
            found = (pl.col(expected) == abstain) & (pl.col(actual) == negative)
            return found.fill_null(False).cast(pl.UInt32)

        base, cand, differences = outcome_differences(reps, judged, paired, approved)
        tails = ExcessTails.of(differences, test)
        tests[rule] = OutcomeExcess(base, cand, len(differences), tails, by)
    return tests


def false_negative_excess(
    reps: dict[str, pl.DataFrame],
    judged: dict[str, pl.DataFrame],
    paired: pl.DataFrame,
    alpha: float,
    test: FlipTest = "exact",
    by: CountedBy = "case",
) -> Excess:
    """The false negatives' test at `alpha` on its own."""
    return false_negative_test(reps, judged, paired, test, by).held(alpha)


# --------------------------------------------------------------------------- budgets


@dataclass(frozen=True)
class BudgetNoise:
    """A second metric's statistic in both arms and how far their ratio moves with no change:
    `ratios` holds the candidate's `ratio` to the baseline over the arms swapped cluster by
    cluster (every assignment when `exact`, else `resamples` random ones drawn from `seed`),
    sorted."""

    stat: Statistic
    baseline: float
    candidate: float
    ratios: np.ndarray
    exact: bool
    alpha: float
    seed: int

    @property
    def ratio(self) -> float:
        return float(ratio(np.array(self.candidate), np.array(self.baseline)))

    def p(self, max_increase: float) -> float:
        """The permutation p of a ratio this far above 1 + max_increase: with no change the
        arms are exchangeable within each cluster, so the observed ratio is one draw among the
        swapped ones (Phipson & Smyth 2010 count it among the random ones, which keeps the p
        exact: Permutation p-values should never be zero, SAGMB 9(1), art. 39)."""
        beyond = int((self.ratios >= self.ratio / (1 + max_increase)).sum())
        if self.exact:
            return beyond / len(self.ratios)
        return (1 + beyond) / (1 + len(self.ratios))

    @property
    def noise(self) -> float:
        """The ratio the noise reaches with no change at 1 - alpha: a candidate blocks when its
        ratio is above this times 1 + max_increase (the same decision as `p <= alpha`)."""
        size = len(self.ratios)
        allowed = math.floor(self.alpha * (size if self.exact else size + 1)) - (not self.exact)
        if allowed < 0:
            return math.inf  # too few assignments: no ratio is beyond noise
        return float(self.ratios[size - 1 - allowed]) if allowed < size else 0.0

    def beyond(self, max_increase: float) -> bool:
        return self.p(max_increase) <= self.alpha


def ratio(candidate: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """1 + (candidate - baseline) / |baseline|: candidate / baseline where the baseline is
    positive, and the same relative change where it is negative (a reward of -10 that becomes
    -9 is 10% higher, ratio 1.1, as -10 / -9 would say it is lower). Against a baseline of zero
    any rise is infinite and anything else no rise."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            baseline != 0,
            1 + (candidate - baseline) / np.abs(baseline),
            np.where(candidate > 0, np.inf, 1.0),
        )


def _pooled_stat(values: np.ndarray, weights: np.ndarray, stat: Statistic) -> np.ndarray:
    """`stat` over the repetitions `values`, each taken `weights[r, i]` times in row r (0 or 1
    here: in the pool or not)."""
    if stat == "total":
        return np.asarray(weights @ values)
    if stat == "mean":
        return np.asarray((weights @ values) / weights.sum(axis=1))
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    cumulative = weights[:, order].astype(np.int32)
    np.cumsum(cumulative, axis=1, out=cumulative)
    size = cumulative[:, -1]
    q = 0.5 if stat == "median" else 0.95
    position = (size - 1) * q  # numpy's `linear`: between the order statistics around it
    below = np.floor(position)

    def order_statistic(j: np.ndarray) -> np.ndarray:
        """The j-th smallest of each row (from 0): where the counts so far pass j."""
        at = (cumulative <= j[:, None]).sum(axis=1)
        return np.asarray(ordered[np.minimum(at, len(ordered) - 1)])

    low = order_statistic(below)
    high = order_statistic(np.minimum(below + 1, size - 1))
    return np.asarray(low + (position - below) * (high - low))


def point_stat(values: np.ndarray, stat: Statistic) -> float:
    """The statistic of the repetitions as they are (numpy's linear quantile, as budgets.py)."""
    if stat == "total":
        return float(values.sum())
    if stat == "mean":
        return float(values.mean())
    return float(np.quantile(values, 0.5 if stat == "median" else 0.95))


def budget_noise(
    baseline: tuple[np.ndarray, np.ndarray],
    candidate: tuple[np.ndarray, np.ndarray],
    clusters: int,
    stat: Statistic,
    alpha: float,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> BudgetNoise:
    """How far the ratio of the candidate's statistic to the baseline's moves with no change:
    the paired permutation test (Good, P. (2005). Permutation, Parametric and Bootstrap Tests of
    Hypotheses, 3rd ed., ch. 3), each cluster's repetitions swapped between the arms or not, as a
    change that did nothing leaves them exchangeable. Each arm is (values, cluster ids
    0..clusters - 1) of its gradable repetitions of the paired cases. With 2^clusters at most
    `resamples` every assignment is taken (exact); else `resamples` random ones from `seed`, so
    the same runs give the same answer on every machine."""
    (base_values, base_ids), (cand_values, cand_ids) = baseline, candidate
    values = np.concatenate([base_values, cand_values])
    ids = np.concatenate([base_ids, cand_ids])
    in_candidate = np.concatenate(
        [np.zeros(len(base_values), bool), np.ones(len(cand_values), bool)]
    )
    exact = clusters < 63 and 2**clusters <= resamples
    rng = np.random.default_rng(seed)
    rows = 2**clusters if exact else resamples
    chunk = max(1, CHUNK_CELLS // max(len(values), 1))
    ratios = []
    for start in range(0, rows, chunk):
        count = min(chunk, rows - start)
        if exact:  # assignment r swaps the clusters whose bit is set in r
            swaps = (np.arange(start, start + count)[:, None] >> np.arange(clusters)) & 1 == 1
        else:
            swaps = rng.random((count, clusters)) < 0.5
        pooled = swaps[:, ids] != in_candidate  # in the candidate's pool after the swaps
        cand = _pooled_stat(values, pooled, stat)
        base = _pooled_stat(values, ~pooled, stat)
        ratios.append(ratio(cand, base))
    return BudgetNoise(
        stat,
        point_stat(base_values, stat),
        point_stat(cand_values, stat),
        np.sort(np.concatenate(ratios)),
        exact,
        alpha,
        seed,
    )
