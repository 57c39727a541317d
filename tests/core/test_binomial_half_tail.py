"""`binomial.half_at_least`, the McNemar p past the exact sums, against sums in whole numbers and
scipy's incomplete beta (the function it replaced on the gate's path, a reference here only)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from scipy.special import betainc

from flipgate.core.gate.binomial import half_at_least

RELATIVE = 1e-11  # Loader's terms keep about 1e-12 each; the sum, the same of itself


def plain(n: int, k: int) -> float:
    """P(X >= k), X ~ Binomial(n, 1/2): every term from k to n in whole numbers, rounded once."""
    term = total = math.comb(n, k)
    for j in range(k, n):
        term = term * (n - j) // (j + 1)
        total += term
    return float(Fraction(total, 1 << n))


def counts(n: int) -> list[int]:
    """From the far lower tail to the far upper one: the middle, a few standard deviations, and
    the ends."""
    sd = math.sqrt(n) / 2
    steps = (-40, -8, -3, -1, -0.5, 0, 0.5, 1, 2, 3, 5, 8, 12, 20, 30, 37)
    return sorted({1, 2, n // 2, n // 2 + 1, n - 1, n, *(round(n / 2 + z * sd) for z in steps)})


@pytest.mark.parametrize("n", [20_001, 30_000])
def test_the_sum_in_whole_numbers(n: int) -> None:
    for k in counts(n):
        want = plain(n, k)
        if want > 1e-300:  # the far tail underflows in both
            assert half_at_least(n, k) == pytest.approx(want, rel=RELATIVE, abs=0), k


@pytest.mark.parametrize("n", [20_001, 103_071, 1_000_000, 3_000_001, 10_000_000])
def test_scipy_s_incomplete_beta_up_to_ten_million_flips(n: int) -> None:
    for k in counts(n):
        want = float(betainc(k, n - k + 1, 0.5))
        if want > 1e-300:
            assert half_at_least(n, k) == pytest.approx(want, rel=RELATIVE, abs=0), k


def test_outside_the_counts_and_at_the_ends() -> None:
    assert half_at_least(50_000, 0) == half_at_least(50_000, -3) == 1.0
    assert half_at_least(50_000, 50_001) == 0.0
    assert half_at_least(1000, 1000) == pytest.approx(2.0**-1000, rel=1e-14)
    assert half_at_least(1001, 501) == pytest.approx(0.5, rel=1e-14)  # odd n: half each side
