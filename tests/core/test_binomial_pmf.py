"""`binomial.pmf` against exact integer arithmetic: its terms keep their digits at 10^5 trials,
where log-factorials summed in a table had drifted by 3e-9 of the term (3e-7 at 10^6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flipgate.core.gate.binomial import pmf

RELATIVE = 1e-11  # Loader's form keeps about 1e-12 of a term; the table it replaced, 3e-9 here


def exact(n: int, j: int, numerator: int, bits: int) -> float:
    """P(X = j), X ~ Binomial(n, numerator / 2^bits), from whole numbers: comb(n, j) times
    numerator^j (2^bits - numerator)^(n - j), over 2^(bits n), rounded once to a float."""
    whole = math.comb(n, j) * numerator**j * ((1 << bits) - numerator) ** (n - j)
    shift = max(0, whole.bit_length() - 64)  # the leading 64 bits: past a double's 53
    return math.ldexp(float(whole >> shift), shift - bits * n)


@pytest.mark.parametrize(("numerator", "bits"), [(1, 1), (1, 2), (7, 3)])
def test_every_term_at_a_thousand_trials(numerator: int, bits: int) -> None:
    n, p = 1000, numerator / (1 << bits)
    j = np.arange(n + 1)
    want = np.array([exact(n, int(k), numerator, bits) for k in j])
    shown = want > 1e-300  # the far tail underflows in both
    got = pmf(np.asarray(n), j, p)
    assert np.allclose(got[shown], want[shown], rtol=RELATIVE, atol=0)


@pytest.mark.parametrize(("numerator", "bits"), [(1, 1), (1, 2)])
def test_terms_at_a_hundred_thousand_trials_keep_their_digits(numerator: int, bits: int) -> None:
    n, p = 100_000, numerator / (1 << bits)
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    counts = [round(mean + k * sd) for k in (-8, -3, 0, 1, 5)]
    got = pmf(np.asarray(n), np.asarray(counts), p)
    for count, term in zip(counts, got, strict=True):
        assert term == pytest.approx(exact(n, count, numerator, bits), rel=RELATIVE, abs=0)


def test_outside_the_support_and_at_its_ends() -> None:
    n = np.asarray([10, 10, 10, 10, 0])
    j = np.asarray([-1, 0, 10, 11, 0])
    assert pmf(n, j, 0.3) == pytest.approx([0.0, 0.7**10, 0.3**10, 0.0, 1.0], rel=1e-14)
    assert list(pmf(np.asarray(4), np.arange(-1, 6), 0.0)) == [0, 1, 0, 0, 0, 0, 0]
    assert list(pmf(np.asarray(4), np.arange(-1, 6), 1.0)) == [0, 0, 0, 0, 0, 1, 0]
