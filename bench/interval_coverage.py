"""How often does each candidate interval miss the truth? Computed exactly, not simulated.

    uv run python bench/interval_coverage.py [--sizes 20 40 80 150]

For n cases, each P(pass -> fail) = p_b and P(fail -> pass) = p_c in RATES (25 settings, the
truth (p_c - p_b) from -19.5 to +19.5 points), every (b, c) of the multinomial is weighed by its
probability: a bound at one-sided level 1 - boundary misses when the lower bound is above the
truth, or the upper bound below it. Printed per n and boundary: the worst miss of either bound
over the settings as a multiple of the boundary (at most 1: the bound holds its level), the worst
miss of the lower bound under a regression (what a PASS rules out), and the mean width.

Candidates, each with its harm-side bound put at 0 where it disagrees with the exact test (the
gate's own `effect_at_level` does that by a design effect; the others are clamped):

    tango          Tango's score interval, the one printed until December 2026
    tango_cc_0.5   the same with half a flip taken off |c - b - n d|
    tango_cc_1     the same with one flip taken off: `bounds.effect_at_level`, printed now
    bp_wald        Bonett & Price (2012)'s adjusted Wald, (b + 1) / (n + 2) and (c + 1) / (n + 2)
    wald_cc        the Wald interval with a continuity correction of 1 / n
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np
from scipy.stats import multinomial

from flipgate.core.gate.bounds import effect_at_level
from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.stats import tango_interval

RATES = (0.005, 0.02, 0.05, 0.1, 0.2)
BOUNDARIES = (0.05, 0.025, 0.0125)
Interval = Callable[[int, int, int, float, float], tuple[float, float]]


def _clamped(low: float, high: float, b: int, c: int, boundary: float) -> tuple[float, float]:
    """The harm-side bound put on the test's side of 0."""
    blocks = mcnemar_p(b, c) <= boundary
    if (high < 0) != blocks:
        high = -1e-12 if blocks else max(high, 0.0)
    return low, high


def _tango(correction: float) -> Interval:
    def interval(b: int, c: int, n: int, z: float, boundary: float) -> tuple[float, float]:
        return _clamped(*tango_interval(b, c, n, z, correction), b, c, boundary)

    return interval


def _printed(b: int, c: int, n: int, z: float, boundary: float) -> tuple[float, float]:
    effect = effect_at_level(b, c, n, boundary=boundary, p=mcnemar_p(b, c))
    assert effect is not None
    return effect.low / 100, effect.high / 100


def _bp_wald(b: int, c: int, n: int, z: float, boundary: float) -> tuple[float, float]:
    p_b, p_c = (b + 1) / (n + 2), (c + 1) / (n + 2)
    d = p_c - p_b
    se = math.sqrt(max(p_b + p_c - d * d, 0.0) / (n + 2))
    return _clamped(max(-1.0, d - z * se), min(1.0, d + z * se), b, c, boundary)


def _wald_cc(b: int, c: int, n: int, z: float, boundary: float) -> tuple[float, float]:
    d = (c - b) / n
    se = math.sqrt(max(b + c - (c - b) ** 2 / n, 0.0)) / n
    return _clamped(max(-1.0, d - z * se - 1 / n), min(1.0, d + z * se + 1 / n), b, c, boundary)


CANDIDATES: dict[str, Interval] = {
    "tango": _tango(0.0),
    "tango_cc_0.5": _tango(0.5),
    "tango_cc_1": _printed,
    "bp_wald": _bp_wald,
    "wald_cc": _wald_cc,
}


def coverage(n: int, boundary: float) -> dict[str, tuple[float, float, float]]:
    """Each candidate's (worst miss / boundary, worst lower miss under a regression, mean width
    in points) over the settings."""
    z = -NormalDist().inv_cdf(boundary)
    pairs = np.array([(b, c) for b in range(n + 1) for c in range(n + 1 - b)])
    table = np.column_stack([pairs, n - pairs.sum(axis=1)])
    settings = list(itertools.product(RATES, RATES))
    weights = [multinomial.pmf(table, n, [p_b, p_c, 1 - p_b - p_c]) for p_b, p_c in settings]
    out = {}
    for name, interval in CANDIDATES.items():
        bounds = np.array([interval(int(b), int(c), n, z, boundary) for b, c in pairs])
        low, high = bounds[:, 0], bounds[:, 1]
        worst = regression = width = 0.0
        for (p_b, p_c), weight in zip(settings, weights, strict=True):
            truth = p_c - p_b
            above = float(weight @ (low > truth + 1e-12))
            below = float(weight @ (high < truth - 1e-12))
            worst = max(worst, above, below)
            if p_b > p_c:
                regression = max(regression, above)
            width += float(weight @ (high - low)) / len(settings)
        out[name] = (worst / boundary, regression / boundary, 100 * width)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 80, 150])
    args = parser.parse_args()
    print("| cases | boundary | " + " | ".join(CANDIDATES) + " |")
    print("|---:|---:|" + "---|" * len(CANDIDATES))
    for n in args.sizes:
        for boundary in BOUNDARIES:
            got = coverage(n, boundary)
            cells = [f"{w:.2f}x, {r:.2f}x, {width:.1f} pts" for w, r, width in got.values()]
            print(f"| {n} | {boundary:g} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
