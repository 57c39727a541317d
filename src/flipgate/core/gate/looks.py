"""Alpha spent across looks: how far p must fall at each look at one change (SPEC §9, §3.6).

A change can be gated more than once: the smoke set, then the full set; the full set, then the
rerun of every flipped case (seed 001's escalation); and a change gated again after new commits.
Applying `p <= alpha` at every look lets the chance of a false BLOCK grow with the looks (seed
001's plain rule: 6.8-8.7% over the rerun escalation at 1,000 cases, issue 27). So each look gets
its own boundary, fixed before any data, and the boundaries add up to at most alpha.

The method is an alpha-spending function over the looks (Lan, K. K. G. & DeMets, D. L. (1983).
Discrete sequential boundaries for clinical trials. Biometrika 70(3), 659-663), spent by the
Bonferroni inequality: look k blocks when p <= alpha s (1 - s)^(k - 1), each look spending the
share s of the alpha still unspent, so that after any number of looks at most alpha
(1 - (1 - s)^k) < alpha has been spent. Lan and DeMets compute the boundaries from the joint
normal law of the looks' statistics, which needs each look to add independent data to the last;
here the full set holds the smoke set, the rerun is chosen from the first look's flips, and a
change gated again reuses its cases, so the union bound, which holds whatever the looks share, is
the one that keeps the promise. An anytime-valid e-value test was the other candidate and is
not used: at seed 001's worked example (10 broke, 2 fixed) even the best likelihood ratio is
2^12 (5/6)^10 (1/6)^2 = 18.4 < 1/0.05, so it could never BLOCK the change the seed blocks.

With the default share of 1/2 at alpha 0.05 the first look blocks at p <= 0.025, which keeps the
seed's verdicts (p = 79/4096 = 0.019 BLOCK; 0.108 and 0.073 INCONCLUSIVE), the second at 0.0125,
the third at 0.00625. `looks: {rule: plain}` keeps seed 001's rule, alpha at every look; its
measured false-BLOCK rate over the escalation is `PLAIN_FALSE_BLOCK` (bench/simulate_gate.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

LookRule = Literal["spend", "plain"]  # gate.yaml `looks.rule`
LOOK_RULES: tuple[LookRule, ...] = get_args(LookRule)
SHARE = 0.5  # the default: each look spends half of the alpha still unspent


@dataclass(frozen=True)
class Looks:
    """How alpha is spent across the looks at one change (gate.yaml `looks`)."""

    rule: LookRule = "spend"
    share: float = SHARE

    def boundary(self, alpha: float, look: int) -> float:
        """The p at or below which look `look` (1 the first) blocks."""
        if look < 1:
            raise ValueError(f"looks are counted from 1, not {look}")
        if self.rule == "plain":
            return alpha
        return alpha * self.share * (1 - self.share) ** (look - 1)

    def spent(self, alpha: float, looks: int) -> float:
        """The most alpha the first `looks` looks can spend together: the union bound on a false
        BLOCK at any of them (under `plain`, the bound is looks x alpha, capped at 1)."""
        if self.rule == "plain":
            return min(1.0, looks * alpha)
        return alpha * (1 - (1 - self.share) ** looks)


SPEND = Looks()  # the default
PLAIN = Looks(rule="plain")

# Seed 001's plain rule as `looks: {rule: plain}` keeps it (templates counted once), measured with
# no change over the rerun escalation (INCONCLUSIVE, then every flipped case rerun with 5
# repetitions on both arms, alpha again): `uv run python bench/simulate_gate.py --sims 4000
# --seed 13 --part plain`, the column "INCONCLUSIVE, rerun" (bench/README.md).
# (cases, cloned from templates) -> (false-BLOCK rate, its Monte Carlo standard error).
PLAIN_FALSE_BLOCK: dict[tuple[int, bool], tuple[float, float]] = {
    (50, False): (0.003, 0.001),
    (50, True): (0.003, 0.001),
    (200, False): (0.034, 0.003),
    (200, True): (0.058, 0.004),
    (1000, False): (0.073, 0.004),
    (1000, True): (0.089, 0.005),
}


def plain_measured(cases: int, cloned: bool) -> tuple[int, float, float]:
    """The plain rule's measured false-BLOCK rate over the escalation at the measured suite size
    nearest `cases` (on a log scale): (that size, the rate, its standard error)."""
    sizes = sorted({size for size, _ in PLAIN_FALSE_BLOCK})
    size = min(sizes, key=lambda s: abs(math.log(s) - math.log(max(cases, 1))))
    return (size, *PLAIN_FALSE_BLOCK[(size, cloned)])
