"""The exact one-sided McNemar test (SPEC §3.4): p = P(X >= b), X ~ Binomial(b + c, 1/2), and
its mid-p form (`test: mid_p` in gate.yaml), P(X > b) + P(X = b) / 2.

The exact conditional test never exceeds alpha and so falls short of it (simulated size 0.036 at
alpha 0.05, bench/README.md); the mid-p (Lancaster 1961, Significance tests in discrete
distributions, JASA 56(294), 223-234) counts the observed count half, and its size comes closer
to alpha on average without the guarantee (Fagerland, Lydersen & Laake 2013, The McNemar test
for binary matched-pairs data: mid-p and asymptotic are better than exact conditional, BMC
Medical Research Methodology 13:91). The exact test stays the default: seed 001's rule.
"""

from __future__ import annotations

from math import comb
from typing import Literal, get_args

from flipgate.core.gate.binomial import half_at_least

FlipTest = Literal["exact", "mid_p"]  # gate.yaml `test`
FLIP_TESTS: tuple[FlipTest, ...] = get_args(FlipTest)
EXACT_FLIPS = 20_000  # up to here p is summed in exact integers; beyond, in floats


def mcnemar_p(b: int, c: int) -> float:
    """P(X >= b) for X ~ Binomial(n = b + c, 1/2); 1 when nothing flipped.

    Summed in exact integers, sum(C(n, k) for k >= b) / 2**n, and rounded once; past
    `EXACT_FLIPS` flips, in floats to 1e-11 of p (`binomial.half_at_least`). No scipy import
    (over a second of start-up) on the CI path, at any size.
    """
    n = b + c
    if n == 0 or b == 0:
        return 1.0
    if n > EXACT_FLIPS:
        return half_at_least(n, b)
    return _upper_tail(n, b) / (1 << n)  # int / int rounds once, however large


def mcnemar_mid_p(b: int, c: int) -> float:
    """P(X > b) + P(X = b) / 2 for X ~ Binomial(b + c, 1/2); 1 when nothing flipped (as the
    exact p: no flip is no evidence)."""
    n = b + c
    if n == 0:
        return 1.0
    if n > EXACT_FLIPS:  # P(X > b) + P(X = b) / 2 = (P(X >= b) + P(X >= b + 1)) / 2
        return (half_at_least(n, b) + half_at_least(n, b + 1)) / 2
    at_least = _upper_tail(n, b) if b > 0 else 1 << n
    return (2 * at_least - comb(n, b)) / (1 << (n + 1))  # int / int rounds once


def flip_p(b: int, c: int, test: FlipTest = "exact") -> float:
    """The one-sided p of `b` broken against `c` fixed by the gate's `test`."""
    return mcnemar_mid_p(b, c) if test == "mid_p" else mcnemar_p(b, c)


def _upper_tail(n: int, b: int) -> int:
    """sum(C(n, k) for k >= b), from the nearer end: the terms from b up, or the half of 2**n
    above the middle with the terms between it and b. A gate's b sits near n / 2, so b = 5153,
    c = 5190 takes 19 terms, where summing up from b took 5,191 (13 ms)."""
    half = n // 2
    if n - b < abs(b - half):
        return _terms(n, b, n)
    above_middle = (1 << (n - 1)) if n % 2 else ((1 << n) - comb(n, half)) // 2
    if b <= half:
        return above_middle + _terms(n, b, half)
    return above_middle - _terms(n, half + 1, b - 1)


def _terms(n: int, low: int, high: int) -> int:
    """sum(C(n, k) for low <= k <= high), each term from the one before."""
    if low > high:
        return 0
    term = total = comb(n, low)
    for k in range(low, high):
        term = term * (n - k) // (k + 1)  # C(n, k + 1) from C(n, k)
        total += term
    return total


def format_p(p: float) -> str:
    """Three decimals, as the seeds print p; tiny values in scientific notation, never `0.000`."""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"
