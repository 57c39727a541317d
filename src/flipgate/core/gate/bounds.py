"""Bounds at the test's level: the effect's interval, what a PASS rules out, never-event bounds.

    effect_at_level    (c - b) / n in points with each bound one-sided at 1 - alpha (the look's
                       boundary), so that the interval and the verdict never disagree
    never_event        Clopper-Pearson's upper bound on the safety cases' failure rate, and how
                       many cases a `safety: {max_rate: R}` needs

The gate's test is one-sided at alpha; an interval at 95% two-sided beside it could cover 0 when
the gate blocks, and exclude 0 when it does not (issue 27: 39 such BLOCK outcomes with b + c <=
80). Here each bound is at 1 - alpha (the two-sided interval at 1 - 2 alpha), and the bound on the
harm side lies below 0 exactly when the test's p is at or below its boundary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from flipgate.core.gate.binomial import cases_for_rate, clopper_pearson_upper
from flipgate.core.gate.stats import TANGO, ClusterReading, Effect, tango_interval
from flipgate.core.vocab import BoundCode, CountedBy

DESIGN_EFFECT = "tango_score_cc_design_effect"  # the effect's `method` with clusters
Z_MAX = 8.0  # a boundary this far out is never reached by a double: the bound is the estimate's
# Flips taken off |c - b - n d| (stats.tango_interval): with one, each bound holds its one-sided
# level over every setting measured exactly, where Tango's plain interval missed the truth up to
# 1.8 times as often as it says (docs/statistics.md, tests/core/test_bounds.py).
CORRECTION = 1.0


def _z(boundary: float) -> float:
    """The normal deviate of a one-sided boundary, kept finite at 0 and at 1."""
    if boundary <= 0:
        return Z_MAX
    return min(Z_MAX, max(0.0, -NormalDist().inv_cdf(min(boundary, 0.5))))


def implied_design_effect(b: int, c: int, p: float) -> float | None:
    """The design effect D at which the corrected score test at 0 has the gate's own p: on the
    counts divided by D, (b - c) / D - 1 = z sqrt((b + c) / D), z the normal deviate of p
    (Miettinen, O. S. (1976). Estimability and estimation in case-referent studies. American
    Journal of Epidemiology 103(2), 226-235: the test-based variance), solved for 1 / sqrt(D) as
    a quadratic. None where it is not defined: nothing broke on balance, or p is 0 or at least
    1/2."""
    net = b - c
    if net <= 0 or not 0.0 < p < 0.5:
        return None
    z = -NormalDist().inv_cdf(p)
    root_k = math.sqrt(b + c)
    u = (z * root_k + math.sqrt(z * z * (b + c) + 4 * net * CORRECTION)) / (2 * net)
    return 1 / (u * u)


def effect_at_level(
    b: int,
    c: int,
    n: int,
    *,
    boundary: float,
    p: float,
    clusters: ClusterReading | None = None,
) -> Effect | None:
    """(c - b) / n in points, each bound one-sided at 1 - `boundary`; None with no case counted.

    The interval is Tango's score interval (stats.tango_interval) on the counts divided by the
    design effect D (Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of
    clustered binary data. Biometrics 48(2), 577-585): D = 1 for independent cases; with
    `clusters` (the gate's `clusters: template`), the clustered variance of the net flips over
    McNemar's (ClusterReading.design_effect). `p` is the gate's p (by case, or by template with
    clusters) and `boundary` the p at or below which it blocks at this look (looks.py).

    Where the bound on the harm side would disagree with the test (it lies below 0 and p is above
    the boundary, or the other way), D is replaced by the design effect the test itself implies
    (`implied_design_effect`), at which the score test at 0 has the test's p: the interval is then
    the inversion of a family of tests whose member at 0 is the gate's, and its bound lies below 0
    exactly when the gate blocks. For independent cases this happens only above the boundary
    (the exact test is the more cautious: checked for every b + c to 4,000 in the tests).
    """
    if n == 0:
        return None
    z = _z(boundary)
    rejects = p <= boundary
    design = clusters.design_effect if clusters is not None else 1.0
    low, high = tango_interval(b / design, c / design, n / design, z, CORRECTION)
    matched = False
    if (high < 0) != rejects:
        implied = implied_design_effect(b, c, p)
        if implied is not None:
            design, matched = implied, True
            low, high = tango_interval(b / design, c / design, n / design, z, CORRECTION)
        if (high < 0) != rejects:  # p at the boundary to a double's precision: the test decides
            high = math.nextafter(0.0, -1.0) if rejects else max(high, 0.0)
    method = DESIGN_EFFECT if clusters is not None or matched else TANGO
    return Effect(
        100 * (c - b) / n,
        100 * low,
        100 * high,
        method=method,
        level=max(0.0, 1 - 2 * boundary),
        design_effect=design,
        matched=matched,
    )


@dataclass(frozen=True)
class NeverEvent:
    """What the safety cases bound: the failure rate, at one-sided `level`, from `cases` of which
    `failed` failed (a safety case fails on any failed repetition, SPEC 3.1)."""

    cases: int
    failed: int
    level: float
    upper: float  # the Clopper-Pearson upper bound on the failure rate
    max_rate: float | None  # gate.yaml `safety.max_rate`: the bound the gate needs, if any
    needed: int | None  # cases, none failing, whose bound is at most max_rate
    by: CountedBy = "case"  # what counted: cases, or each template once

    @property
    def code(self) -> BoundCode:
        return "safety_bound_supported" if self.supported else "safety_bound_unsupported"

    @property
    def supported(self) -> bool:
        """The bound is at most the rate the gate needs (or it needs none)."""
        return self.max_rate is None or self.upper <= self.max_rate

    @property
    def more(self) -> int:
        """How many more safety cases, none failing, the gate needs."""
        return 0 if self.needed is None else max(0, self.needed - self.cases)


def never_event(
    cases: int,
    failed: int,
    alpha: float,
    max_rate: float | None,
    by: CountedBy = "case",
) -> NeverEvent:
    """Clopper-Pearson's one-sided 1 - alpha upper bound on the safety failure rate (about 3 / n
    at 95% when none of n failed), and the cases a `max_rate` needs. With templates counted once
    (`by`), cases and failures are templates: clones of one safety case are not independent
    evidence that the agent never does it."""
    level = 1 - alpha
    needed = None
    if max_rate is not None and max_rate > 0:
        needed = cases_for_rate(max_rate, level)
    return NeverEvent(
        cases, failed, level, clopper_pearson_upper(failed, cases, level), max_rate, needed, by
    )
