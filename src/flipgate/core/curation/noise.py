"""The no-change distribution measured from identical runs, and a margin and flip cap read from it.

`flipgate calibrate` used to set the margin at the largest net drop seen: the largest of more
pairs is larger, so more calibration runs made the gate looser (median 3 at 2 runs, 8 at 10,
issue 27). Here the proposal is a stated quantile of the no-change distribution, estimated from
the runs with its uncertainty, and it settles as runs are added:

1. The noise phi, the share of cases two identical runs disagree on: the mean over every pair of
   runs (an unbiased U-statistic: Hoeffding, W. (1948). A class of statistics with asymptotically
   normal distribution. Annals of Mathematical Statistics 19(3), 293-325), and its one-sided
   upper bound at 1 - alpha: Clopper-Pearson on the flips counted over cases x runs / 2
   independent case pairs, divided by the design effect. The all-pairs estimate's variance
   never exceeds that count's binomial variance (per case it is at most 2 zeta_2 / R, zeta_2 =
   phi_i (1 - phi_i)), so the bound is conservative, and it narrows as runs are added.
2. With no change, b and c are the two halves of that noise: (b, c, rest) ~ Multinomial(n,
   phi / 2, phi / 2, 1 - phi); b - c and b are read at `NOISE_QUANTILE` at the upper bound, on
   n / D cases and scaled back by D (the clustering, power.py). The margin is that quantile of
   b - c, the flip cap that of b: a change that did nothing passes each of them that often.
3. Beside it, exact under power.py's model at the estimated noise: each rule's false-BLOCK and
   false-INCONCLUSIVE rates with no change, and P(PASS) for regressions of `PASS_AT` points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from flipgate.core.gate.binomial import binom_quantile, pmf, support, tails_along
from flipgate.core.gate.mcnemar import FlipTest
from flipgate.core.gate.power import FlipRule, verdict_chances

NOISE_QUANTILE = 0.95  # a change that did nothing passes the margin and the cap this often
PASS_AT = (2.0, 3.0, 5.0)  # points: the regressions a proposal states its P(PASS) for


@dataclass(frozen=True)
class Noise:
    """The share of cases two identical runs disagree on, estimated from `runs` of them."""

    runs: int
    cases: int
    flip_share: float  # the mean over every pair of runs
    upper: float  # its one-sided upper bound at `level`
    level: float
    design_effect: float  # the clustering of the flips (1: none)


def _beta_upper(flips: float, trials: float, level: float) -> float:
    """Clopper-Pearson's upper bound for a real count of `flips` in `trials` (the beta quantile,
    which the binomial's bound is at whole counts)."""
    if trials <= 0 or flips >= trials:
        return 1.0
    if flips <= 0:
        return -math.expm1(math.log(1 - level) / trials)
    from scipy.special import betaincinv  # calibrate only: never on the gate's path

    return float(betaincinv(flips + 1, trials - flips, level))


def estimate_noise(
    shares: Sequence[float], cases: int, runs: int, alpha: float, design_effect: float = 1.0
) -> Noise:
    """The noise from the flip shares of every pair of `runs` identical runs of `cases` cases."""
    share = sum(shares) / len(shares) if shares else 0.0
    trials = cases * runs / 2 / max(design_effect, 1.0)
    level = 1 - alpha
    return Noise(
        runs, cases, share, _beta_upper(share * trials, trials, level), level, design_effect
    )


def net_quantile(cases: int, share: float, q: float) -> int:
    """The smallest m >= 0 with P(b - c <= m) >= q, (b, c) ~ Multinomial(cases, share / 2,
    share / 2): summed over the flips k, b given k being Binomial(k, 1/2)."""
    if cases == 0 or share <= 0:
        return 0
    ks = support(cases, min(share, 1.0))
    weights = pmf(np.asarray(cases), ks, min(share, 1.0))

    def at_most(m: int) -> float:
        # b - c <= m  <=>  b <= (k + m) / 2; the threshold steps by 0 or 1 along k
        above = tails_along(ks, (ks + m) // 2 + 1, 0.5)
        return float((weights * (1.0 - above)).sum())

    low, high = -1, 1
    while at_most(high) < q:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if at_most(mid) >= q else (mid, high)
    return high


@dataclass(frozen=True)
class RuleChances:
    """One margin and flip cap, and what it does: with no change, and for a few regressions."""

    margin: int
    flip_cap: int
    false_block: float
    false_inconclusive: float
    passes: tuple[tuple[float, float], ...]  # (points, P(PASS))


def rule_chances(
    margin: int,
    flip_cap: int,
    noise: Noise,
    boundary: float,
    test: FlipTest,
    points: Sequence[float] = PASS_AT,
) -> RuleChances:
    """A rule's chances at the estimated noise, exact under power.py's model."""
    rule = FlipRule(boundary, margin, flip_cap, test)
    none = verdict_chances(noise.cases, noise.flip_share, 0.0, rule, noise.design_effect)
    return RuleChances(
        margin,
        flip_cap,
        none.block,
        none.inconclusive,
        tuple(
            (d, verdict_chances(noise.cases, noise.flip_share, d, rule, noise.design_effect).passes)
            for d in points
        ),
    )


@dataclass(frozen=True)
class Proposal:
    """A margin and a flip cap read at `quantile` of the no-change distribution, beside the
    current spec's, each with its chances."""

    noise: Noise
    quantile: float
    proposed: RuleChances
    current: RuleChances


def limits_at(noise: Noise, quantile: float = NOISE_QUANTILE) -> tuple[int, int]:
    """(margin, flip cap): what a change that did nothing stays within `quantile` of the time at
    the noise's upper bound, each on n / D cases and scaled back by D."""
    design = max(noise.design_effect, 1.0)
    cases = round(noise.cases / design)
    margin = math.ceil(design * net_quantile(cases, noise.upper, quantile))
    return margin, math.ceil(design * binom_quantile(cases, noise.upper / 2, quantile))


def propose(
    noise: Noise,
    current: tuple[int, int],
    boundary: float,
    test: FlipTest = "exact",
    quantile: float = NOISE_QUANTILE,
) -> Proposal:
    """The margin and flip cap at `quantile` of the no-change distribution, beside the current
    ones, each with its chances at the estimated noise."""
    return Proposal(
        noise,
        quantile,
        rule_chances(*limits_at(noise, quantile), noise, boundary, test),
        rule_chances(*current, noise, boundary, test),
    )
