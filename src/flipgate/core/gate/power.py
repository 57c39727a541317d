"""What the gate can see: each verdict's chances under a true regression, exact under its model.

The model (issue 27). With no regression each paired case flips pass -> fail with probability
phi / 2 and fail -> pass with phi / 2, phi the noise: the share of cases that flip between two
identical runs. A regression of d points ADDS breaks to that noise, p_b = phi / 2 + d, and the
fixes stay, p_c = phi / 2: the regression is a change on top of the runs' own variation, not a
conversion of fixes into breaks (the earlier model held b + c fixed, and promised 0.875 where the
simulation gives 0.624 at 200 cases and 5 points). Then k = b + c ~ Binomial(cases, p_b + p_c)
and b | k ~ Binomial(k, p_b / (p_b + p_c)), and each (b, k - b) meets the gate's rule: BLOCK
when its p is at or below the look's boundary, else PASS when b - c <= margin and b <= flip cap,
else INCONCLUSIVE. Safety, validity, outcome limits and budgets are not flip counts and are left
out. `bench/simulate_gate.py` checks these chances against simulated run pairs.

Cloned cases (`clusters: template`) carry less evidence than their count: the chances are those
of cases / D independent cases, the margin and the flip cap divided by D as well, D the design
effect (Kish, L. (1965). Survey Sampling, 8.2; for a run, ClusterReading.design_effect; for a
plan, 1 + (m - 1) rho with m cases a template and rho their correlation).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from flipgate.core.gate.binomial import half_pmf, pmf, support, tail, tails_along
from flipgate.core.gate.mcnemar import FlipTest, flip_p
from flipgate.core.gate.stats import POWER, collapsed_pass

REGRESSIONS = (1.0, 2.0, 3.0, 5.0)  # points: the regressions every report gives chances for
RESOLUTION = 0.1  # points: the step to which the smallest blocked regression is found
# What the figures are asked about at most: ten times the million cases the app is built for
# (the chances take memory in proportion to the cases, 340 MB here), and repetitions far past any
# suite's (each needs a table of log-factorials as long as it)
MAX_CASES, MAX_REPS = 10_000_000, 100_000
MODEL = "a regression adds breaks to the noise; cases independent after the design effect"
# The critical walk carries P(X = b) from one flip count to the next by Pascal's rule (a few
# multiplications a step, where three log-gammas a term cost five times the walk); taken afresh
# this often, its rounding stays far below the 1e-9 of alpha within which the test settles b
ANCHOR = 1024
SUMS_DECIDE = 1e-8  # below this alpha, the first critical b is always the exact test's


@dataclass(frozen=True)
class FlipRule:
    """The part of the verdict a flip count decides (SPEC 3.5 lines 3, 6 and 7): `alpha` is the
    boundary p at this look (looks.py), `test` the gate's one-sided test."""

    alpha: float
    margin: int
    flip_cap: int
    test: FlipTest = "exact"


@dataclass(frozen=True)
class Chances:
    """How often a true regression of `points` ends as each verdict."""

    points: float
    block: float
    inconclusive: float
    passes: float

    def to_json(self) -> dict[str, float]:
        return {
            "points": self.points,
            "block": self.block,
            "inconclusive": self.inconclusive,
            "pass": self.passes,
        }


@lru_cache(maxsize=64)
def critical_flips(
    first: int, last: int, alpha: float, test: FlipTest = "exact"
) -> tuple[int, ...]:
    """For k = first..last flips, the smallest b whose p is at most alpha (k + 1: none).

    Adding a flip moves the critical b by 0 or 1, for the mid-p too (its p, E[1{X > b} + 1{X =
    b} / 2], rises with k at a fixed b, and at b + 1 with k + 1 never exceeds its value at b with
    k), and the exact tail by one term (as in `binomial.tails_along`), so the run is walked once;
    a p within rounding of alpha is settled by the test itself.
    """
    if alpha >= 1:
        return (0,) * (last - first + 1)
    mid = test == "mid_p"

    def settle(k: int, b: int) -> int:
        while b > 1 and flip_p(b - 1, k - b + 1, test) <= alpha:
            b -= 1
        while b <= k and flip_p(b, k - b, test) > alpha:
            b += 1
        return b

    j = support(first, 0.5)
    terms = pmf(np.asarray(first), j, 0.5)
    p_first = np.cumsum(terms[::-1])[::-1] - (terms / 2 if mid else 0.0)
    start = j[(p_first <= alpha) & (j >= 1)]
    b = int(start[0]) if len(start) else first + 1
    # The sums in floats (1e-12 of p, the mass past the support below 1e-18) decide the first b
    # but where a p is within rounding of alpha: there the exact test, whose big integers at
    # ten thousand flips cost more than the walk
    if not len(start) or alpha < SUMS_DECIDE or np.any(np.abs(p_first - alpha) <= 1e-9 * alpha):
        b = settle(first, b)
    upper = tail(first, b, 0.5)  # P(Binomial(k, 1/2) >= b), carried along as k grows
    crit = [b]
    for k in range(first, last):
        if b > k or (k - first) % ANCHOR == 0:
            at = half_pmf(k, b)
        below = half_pmf(k, b - 1) if b > k else at * b / (k - b + 1)  # P(X = b - 1)
        next_at = (at + below) / 2  # P(X = b) at k + 1 flips: Pascal's rule
        stay = upper + 0.5 * below
        p = stay - (next_at / 2 if mid else 0.0)
        if p <= alpha:
            upper, at = stay, next_at
        else:
            upper -= 0.5 * at
            at = (at * (k - b) / (b + 1) + at) / 2  # P(X = b + 1) at k + 1 flips
            b += 1
        if abs(p - alpha) <= 1e-9 * alpha:
            b = settle(k + 1, b)
            upper = flip_p(b, k + 1 - b) if b <= k + 1 else 0.0
            at = half_pmf(k + 1, b)
        crit.append(b)
    return tuple(crit)


def flip_probabilities(noise_share: float, points: float) -> tuple[float, float]:
    """(P(pass -> fail), P(fail -> pass)) of one case: the noise split evenly, the regression
    added to the breaks (capped where breaks and fixes would exceed every case)."""
    fixes = noise_share / 2
    breaks = min(noise_share / 2 + points / 100, 1.0 - fixes)
    return max(breaks, 0.0), fixes


def chances(cases: int, p_b: float, p_c: float, rule: FlipRule, points: float = 0.0) -> Chances:
    """Exact chances of each verdict when each of `cases` independent cases breaks with p_b and
    is fixed with p_c: the multinomial summed by flips k, then by b given k."""
    share = p_b + p_c
    if cases == 0 or share == 0:  # nothing flips: b = c = 0, p = 1, within any margin
        return Chances(points, 0.0, 0.0, 1.0)
    ks = support(cases, share)
    k_pmf = pmf(np.asarray(cases), ks, share)
    crit = np.array(critical_flips(int(ks[0]), int(ks[-1]), rule.alpha, rule.test))
    pass_max = np.minimum(np.minimum(rule.flip_cap, (ks + rule.margin) // 2), crit - 1)
    broke = p_b / share
    block = tails_along(ks, crit, broke)
    passes = 1.0 - tails_along(ks, pass_max + 1, broke)
    p_block = float(np.clip((k_pmf * block).sum(), 0.0, 1.0))
    p_pass = float(np.clip((k_pmf * passes).sum(), 0.0, 1.0 - p_block))
    return Chances(points, p_block, 1.0 - p_block - p_pass, p_pass)


def effective(cases: int, rule: FlipRule, design_effect: float) -> tuple[int, FlipRule]:
    """The cases and the rule in units of independent cases: each divided by the design effect."""
    if design_effect <= 1.0:
        return cases, rule
    scaled = FlipRule(
        rule.alpha,
        math.floor(rule.margin / design_effect),
        math.floor(rule.flip_cap / design_effect),
        rule.test,
    )
    return round(cases / design_effect), scaled


def verdict_chances(
    cases: int, noise_share: float, points: float, rule: FlipRule, design_effect: float = 1.0
) -> Chances:
    """The chances of each verdict for a true regression of `points` on top of the noise."""
    n, scaled = effective(cases, rule, design_effect)
    p_b, p_c = flip_probabilities(noise_share, points)
    return chances(n, p_b, p_c, scaled, points)


def _first(enough: Callable[[int], bool], top: int) -> int | None:
    """The first step in 1..top where `enough` holds, assuming it holds from there on: doubling
    until it does, then halving back (small steps first: they cost the least)."""
    low, high = 0, 1
    while not enough(high):
        if high >= top:
            return None
        low, high = high, min(2 * high, top)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return high


def smallest_blocked(
    cases: int,
    noise_share: float,
    rule: FlipRule,
    power: float = POWER,
    design_effect: float = 1.0,
) -> float | None:
    """The smallest regression, in points to `RESOLUTION`, blocked with at least `power`."""
    if cases == 0:
        return None

    def blocked(step: int) -> bool:
        chance = verdict_chances(cases, noise_share, step * RESOLUTION, rule, design_effect)
        return chance.block >= power

    step = _first(blocked, round(100 / RESOLUTION))
    return None if step is None else round(step * RESOLUTION, 1)


def cases_needed(
    noise_share: float,
    points: float,
    rule: FlipRule,
    power: float = POWER,
    design_effect: float = 1.0,
    limit: int = 10**7,
) -> int | None:
    """The fewest paired cases whose gate blocks a `points` regression with at least `power`.

    P(BLOCK) saw-tooths a little with the case count (the critical b moves in whole steps), so
    this is where the rising trend first reaches `power`."""

    def enough(n: int) -> bool:
        return verdict_chances(n, noise_share, points, rule, design_effect).block >= power

    return _first(enough, limit)


@dataclass(frozen=True)
class Power:
    """What the gate can see on these cases, at this noise: each verdict's chances for a few
    regressions (P(PASS | regression) among them) and the smallest regression blocked with
    `power`."""

    cases: int
    flip_share: float  # the noise: the share of cases that flip with no regression
    chances: tuple[Chances, ...]
    smallest_blocked: float | None  # points: blocked with `power`, None if no size ever is
    power: float = POWER  # the target, not a computed power: those are `chances`
    design_effect: float = 1.0

    def to_json(self) -> dict[str, object]:
        return {
            "cases": self.cases,
            "flip_share": self.flip_share,
            "design_effect": self.design_effect,
            "regressions": [chance.to_json() for chance in self.chances],
            "target": self.power,
            "smallest_blocked": self.smallest_blocked,
            "model": MODEL,
        }


def gate_power(
    b: int,
    c: int,
    cases: int,
    rule: FlipRule,
    design_effect: float = 1.0,
    regressions: Sequence[float] = REGRESSIONS,
) -> Power:
    """The chances of `regressions` and the smallest blocked, with the flips of this run as the
    noise: (b + c) / cases, the flip share with no regression expected to be seen (its unbiased
    estimate when nothing changed, which is what a PASS leaves standing)."""
    noise = (b + c) / cases if cases else 0.0
    return Power(
        cases,
        noise,
        tuple(verdict_chances(cases, noise, d, rule, design_effect) for d in regressions),
        smallest_blocked(cases, noise, rule, design_effect=design_effect),
        design_effect=design_effect,
    )


# --------------------------------------------------------------------------- planning repetitions


def noise_with_reps(unstable_share: float, case_rate: float, reps: int) -> float:
    """The noise of a suite whose `unstable_share` of cases pass each repetition with
    `case_rate` (the rest always give the same verdict), each collapsed by a majority of `reps`:
    two runs disagree on such a case with 2 P (1 - P), P its collapsed pass probability."""
    collapsed = collapsed_pass(case_rate, reps, "majority")
    return unstable_share * 2 * collapsed * (1 - collapsed)


@dataclass(frozen=True)
class PlanRow:
    """One way to reach the target: `reps` repetitions, the noise they leave, the cases needed
    (None: more than the limit) and the repetitions both arms run."""

    reps: int
    noise_share: float
    cases: int | None

    @property
    def runs(self) -> int | None:
        return None if self.cases is None else 2 * self.cases * self.reps


def plan(
    points: float,
    rule: FlipRule,
    *,
    unstable_share: float,
    case_rate: float,
    reps: Sequence[int] = (1, 3, 5),
    power: float = POWER,
    design_effect: float = 1.0,
) -> tuple[PlanRow, ...]:
    """Cases needed to block a `points` regression with `power`, for each repetition count."""
    rows = []
    for r in reps:
        noise = noise_with_reps(unstable_share, case_rate, r)
        rows.append(PlanRow(r, noise, cases_needed(noise, points, rule, power, design_effect)))
    return tuple(rows)


__all__ = [
    "MODEL",
    "REGRESSIONS",
    "Chances",
    "FlipRule",
    "PlanRow",
    "Power",
    "cases_needed",
    "chances",
    "critical_flips",
    "effective",
    "flip_probabilities",
    "gate_power",
    "noise_with_reps",
    "plan",
    "smallest_blocked",
    "verdict_chances",
]
