"""The gate's statistics against independent computations: brute-force sums, scipy used only
here, the worked numbers of seed 001, and properties that must hold for every input."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.stats import binom, multinomial

from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.stats import (
    below_threshold,
    collapsed_pass,
    sign_flip_p,
    tango_interval,
    unpaired_cases_needed,
    unpaired_p,
)

Z = 1.959963984540054


# --------------------------------------------------------------------------- seed 001's figures


def test_the_unpaired_reading_of_the_worked_example() -> None:
    """184 of 200 against 176 of 200 read as two samples: p 0.18, about 882 per version."""
    assert unpaired_p(184, 200, 176, 200) == pytest.approx(0.18, abs=0.005)
    assert unpaired_cases_needed(0.92, 4, alpha=0.05, power=0.8) == 882


def test_the_noise_figures_of_seed_001() -> None:
    assert below_threshold(50, 0.92, 0.90) == pytest.approx(0.21, abs=0.005)  # 44 or fewer of 50
    assert below_threshold(50, 0.92, 0.90) == pytest.approx(binom.cdf(44, 50, 0.92), rel=1e-12)
    assert collapsed_pass(0.9, 3, "majority") == pytest.approx(0.972)
    assert collapsed_pass(0.9, 3, "all") == pytest.approx(0.729)
    assert collapsed_pass(0.5, 3, "any") == pytest.approx(0.875)  # rerunning until green
    assert collapsed_pass(0.5, 4, "majority") == pytest.approx(5 / 16)  # a tie fails


# --------------------------------------------------------------------------- Tango's interval


def _tango_by_optimiser(b: int, c: int, n: int) -> tuple[float, float]:
    """Tango's interval from its definition alone: the constrained maximum likelihood found by a
    numerical optimiser (not the closed-form root), the score statistic, and brentq."""

    def score(d: float) -> float:
        def minus_log_lik(q: float) -> float:  # q = P(pass -> fail), P(fail -> pass) = q + d
            rest = 1 - 2 * q - d
            return -(
                (b * math.log(q) if b else 0.0)
                + (c * math.log(q + d) if c else 0.0)
                + ((n - b - c) * math.log(rest) if n - b - c else 0.0)
            )

        lo, hi = max(0.0, -d) + 1e-14, (1 - d) / 2 - 1e-14
        q = optimize.minimize_scalar(
            minus_log_lik, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
        ).x
        return (c - b - n * d) / math.sqrt(n * (2 * q + d * (1 - d)))

    estimate = (c - b) / n
    low = optimize.brentq(lambda d: score(d) - Z, -1 + 1e-9, estimate - 1e-12, xtol=1e-12)
    high = optimize.brentq(lambda d: score(d) + Z, estimate + 1e-12, 1 - 1e-9, xtol=1e-12)
    return low, high


@pytest.mark.parametrize(
    ("b", "c", "n"),
    [(10, 2, 200), (20, 12, 200), (9, 3, 200), (1, 7, 21), (40, 20, 160), (3, 0, 30)],
)
def test_tango_agrees_with_its_definition_solved_numerically(b: int, c: int, n: int) -> None:
    assert tango_interval(b, c, n) == pytest.approx(_tango_by_optimiser(b, c, n), abs=2e-6)


def test_tango_with_nothing_flipped_keeps_a_width() -> None:
    """b = c = 0: the limits solve n d = z^2 (1 - d), i.e. +-z^2 / (n + z^2)."""
    low, high = tango_interval(0, 0, 200)
    assert high == pytest.approx(Z**2 / (200 + Z**2), rel=1e-9)
    assert low == pytest.approx(-high, rel=1e-12)


def test_tango_covers_close_to_95_percent_computed_exactly() -> None:
    """Exact coverage over every (b, c) of a multinomial with 40 cases, 8% and 2% flipping."""
    n, p_b, p_c = 40, 0.08, 0.02
    truth = p_c - p_b
    covered = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            low, high = tango_interval(b, c, n)
            if low <= truth <= high:
                covered += multinomial.pmf([b, c, n - b - c], n, [p_b, p_c, 1 - p_b - p_c])
    assert 0.92 <= covered <= 0.98


# --------------------------------------------------------------------------- the sign-flip test


def _brute_sign_flip(nets: list[int]) -> Fraction:
    observed = sum(nets)
    totals = [
        sum(s * d for s, d in zip(signs, nets, strict=True))
        for signs in itertools.product((1, -1), repeat=len(nets))
    ]
    return Fraction(sum(t >= observed for t in totals), len(totals))


@settings(max_examples=80)
@given(st.lists(st.integers(-6, 6), min_size=0, max_size=11))
def test_sign_flip_agrees_with_enumerating_every_sign(nets: list[int]) -> None:
    assert sign_flip_p(nets) == pytest.approx(float(_brute_sign_flip(nets)), rel=1e-12)


def _rolled_sign_flip(nets: list[int]) -> float:
    """The convolution over whole arrays, as first written: the windowed one must give its bits."""
    magnitudes = [abs(d) for d in nets if d]
    offset = sum(magnitudes)
    dist = np.zeros(2 * offset + 1)
    dist[offset] = 1.0
    for m in magnitudes:
        dist = 0.5 * (np.roll(dist, m) + np.roll(dist, -m))
    return float(min(dist[sum(nets) + offset :].sum(), 1.0))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-9, 9), max_size=400).filter(lambda nets: any(abs(d) > 1 for d in nets))
)
def test_the_sign_flip_p_is_the_whole_array_convolution_to_the_bit(nets: list[int]) -> None:
    assert sign_flip_p(nets) == _rolled_sign_flip(nets)


@given(st.integers(0, 80), st.integers(0, 80), st.integers(0, 30))
def test_singleton_clusters_give_the_exact_mcnemar_p(b: int, c: int, agree: int) -> None:
    assert sign_flip_p([1] * b + [-1] * c + [0] * agree) == mcnemar_p(b, c)


def test_a_cluster_of_clones_counts_once() -> None:
    """The issue's example: 14 flips from 3 templates. By case p 0.004... by template 0.25."""
    assert mcnemar_p(12, 2) == pytest.approx(0.0065, abs=5e-4)
    assert sign_flip_p([10, 2, -0]) == pytest.approx(0.25)  # 10 from one, 2 from another
    assert sign_flip_p([5, 1, 1, 1, -1, -1, 0]) == pytest.approx(0.25)
