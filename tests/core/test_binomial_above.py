"""`binomial.above`, the rerun plan's majority chance, against a sum in fractions and scipy's
`bdtrc` (the function it replaced on the gate's path, used here only as a reference)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.special import bdtrc

from flipgate.core.gate.binomial import EXACT_ABOVE, above


def plain(k: int, n: int, rate: float) -> float:
    """P(X > k), X ~ Binomial(n, rate), term by term in fractions, rounded once."""
    p = Fraction(rate)
    return float(sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1, n + 1)))


def laplace_rates() -> np.ndarray:
    """The rates a rerun plan reads: (passes + 1) / (repetitions + 2), and a few others."""
    laplace = [(k + 1) / (n + 2) for n in range(12) for k in range(n + 1)]
    return np.array([*laplace, 0.0, 1.0, 1e-9, 0.999999, 0.123456789])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_every_tail_is_the_sum_in_fractions(n: int) -> None:
    rates = laplace_rates()
    for k in range(-1, n + 1):
        got = above(k, n, rates)
        assert got.tolist() == [plain(k, n, float(r)) for r in rates]  # rounded once: equal


@pytest.mark.parametrize("n", [1, 3, 5, 25, EXACT_ABOVE])
def test_within_scipy_s_rounding(n: int) -> None:
    """Incomplete-beta's own error is up to 4e-15 here; the sums in whole numbers have none."""
    rng = np.random.default_rng(n)
    rates = np.concatenate([laplace_rates(), rng.uniform(0, 1, 200)])
    for k in {0, n // 2, n - 1}:
        assert np.allclose(above(k, n, rates), bdtrc(k, n, rates), rtol=1e-14, atol=1e-300)


@pytest.mark.parametrize("n", [EXACT_ABOVE + 1, 1000])
def test_past_the_exact_sums_within_a_billionth_of_scipy(n: int) -> None:
    """Each term in Loader's form (`pmf`, 1e-12 of a term) summed in floats."""
    rates = np.concatenate([laplace_rates(), np.random.default_rng(n).uniform(0, 1, 50)])
    for k in (0, n // 2, n - 1):
        got, want = above(k, n, rates), bdtrc(k, n, rates)
        shown = want > 1e-250  # the far tail: below any figure shown
        assert np.allclose(got[shown], want[shown], rtol=1e-9, atol=0)
        assert np.all(got[~shown] < 1e-240)


def test_an_array_of_repeated_rates_keeps_its_order_and_shape() -> None:
    rates = np.array([0.8, 0.2, 0.8, 0.5, 0.2])
    assert above(1, 3, rates).tolist() == [plain(1, 3, float(r)) for r in rates]
    assert above(1, 3, np.array([])).shape == (0,)
