"""The gate's statistics against independent computations: brute-force sums, scipy used only
here, the worked numbers of seed 001, and properties that must hold for every input."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize
from scipy.stats import binom, multinomial

from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.stats import (
    DIRECT_WORK,
    FlipRule,
    _sign_flip_direct,
    _sign_flip_tilted,
    below_threshold,
    collapsed_pass,
    critical_flips,
    effect,
    paired_cases_needed,
    sign_flip_p,
    smallest_blocked,
    tango_interval,
    unpaired_cases_needed,
    unpaired_p,
    verdict_chances,
)

DEFAULT_FULL = FlipRule(alpha=0.05, margin=2, flip_cap=10)
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


@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_the_interval_holds_the_estimate(pair: tuple[int, int]) -> None:
    n, flipped = pair
    b = flipped // 3
    c = flipped - b
    got = effect(b, c, n)
    assert got is not None
    assert -100 <= got.low <= got.points <= got.high <= 100
    assert got.points == pytest.approx(100 * (c - b) / n)


def test_no_case_counted_has_no_effect() -> None:
    assert effect(0, 0, 0) is None


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


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-9, 9), min_size=1, max_size=3000).filter(
        lambda nets: any(abs(d) > 1 for d in nets)
    ),
    st.integers(-3, 3),
)
def test_the_tilted_tail_is_the_convolution_to_twelve_digits(nets: list[int], lean: int) -> None:
    """Past `DIRECT_WORK` the tail is summed under tilted signs: the same p, however small. `lean`
    pushes the nets one way, so that p reaches from near 1 down past 1e-30."""
    leaned = [d + lean if d else 0 for d in nets]
    magnitudes = [abs(d) for d in leaned if d]
    if not magnitudes or all(m == 1 for m in magnitudes):
        return
    observed = sum(leaned)
    direct = _sign_flip_direct(magnitudes, observed)
    assert _sign_flip_tilted(Counter(magnitudes), observed) == pytest.approx(direct, rel=1e-12)


def test_the_tilted_tail_at_its_ends() -> None:
    every_sign_up = [3, 2, 2, 1]
    assert _sign_flip_tilted(Counter(every_sign_up), 8) == 0.5**4
    assert _sign_flip_tilted(Counter(every_sign_up), 6) == pytest.approx(2 / 16, rel=1e-12)
    assert _sign_flip_tilted(Counter(every_sign_up), -8) == pytest.approx(1.0, rel=1e-12)


def test_many_templates_are_summed_tilted() -> None:
    """Past `DIRECT_WORK` (a million cases flip 37,000 templates, 3 s convolved one by one)."""
    rng = np.random.default_rng(25)
    nets = (rng.poisson(1.25, 5_000) - rng.poisson(1.1, 5_000)).tolist()
    magnitudes = [abs(d) for d in nets if d]
    assert len(magnitudes) * sum(magnitudes) > DIRECT_WORK
    p = sign_flip_p(nets)
    assert p == _sign_flip_tilted(Counter(magnitudes), sum(nets))
    assert p == pytest.approx(_sign_flip_direct(magnitudes, sum(nets)), rel=1e-12)
    assert p < 1e-6


@given(st.integers(0, 80), st.integers(0, 80), st.integers(0, 30))
def test_singleton_clusters_give_the_exact_mcnemar_p(b: int, c: int, agree: int) -> None:
    assert sign_flip_p([1] * b + [-1] * c + [0] * agree) == mcnemar_p(b, c)


def test_a_cluster_of_clones_counts_once() -> None:
    """The issue's example: 14 flips from 3 templates. By case p 0.004... by template 0.25."""
    assert mcnemar_p(12, 2) == pytest.approx(0.0065, abs=5e-4)
    assert sign_flip_p([10, 2, -0]) == pytest.approx(0.25)  # 10 from one, 2 from another
    assert sign_flip_p([5, 1, 1, 1, -1, -1, 0]) == pytest.approx(0.25)


# --------------------------------------------------------------------------- what the gate can see


def _brute_chances(n: int, p_b: float, p_c: float, rule: FlipRule) -> tuple[float, float, float]:
    """Every (b, c) of the multinomial, each put through the gate's rule with mcnemar_p."""
    block = passes = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            weight = multinomial.pmf([b, c, n - b - c], n, [p_b, p_c, 1 - p_b - p_c])
            if mcnemar_p(b, c) <= rule.alpha:
                block += weight
            elif b - c <= rule.margin and b <= rule.flip_cap:
                passes += weight
    return block, 1 - block - passes, passes


@pytest.mark.parametrize(
    ("n", "share", "points", "rule"),
    [
        (60, 0.10, 4.0, DEFAULT_FULL),
        (50, 0.06, 2.0, FlipRule(0.05, 1, 4)),
        (80, 0.02, 5.0, FlipRule(0.10, 0, 3)),  # a regression larger than the flip share
        (40, 0.30, 10.0, FlipRule(0.01, 2, 10)),
    ],
)
def test_verdict_chances_agree_with_the_double_sum(
    n: int, share: float, points: float, rule: FlipRule
) -> None:
    d = points / 100
    flips = max(share, d)
    expected = _brute_chances(n, (flips + d) / 2, (flips - d) / 2, rule)
    got = verdict_chances(n, share, points, rule)
    assert (got.block, got.inconclusive, got.passes) == pytest.approx(expected, abs=1e-10)


def test_critical_flips_are_the_gate_s_own() -> None:
    for alpha in (0.05, 0.01, 0.0625, 0.5):
        expected = [
            next((b for b in range(1, k + 1) if mcnemar_p(b, k - b) <= alpha), k + 1)
            for k in range(160)
        ]
        assert critical_flips(0, 159, alpha) == tuple(expected), alpha
        assert critical_flips(37, 159, alpha) == tuple(expected[37:]), alpha


@settings(max_examples=25)
@given(
    st.integers(20, 600),
    st.floats(0.0, 0.2),
    st.floats(0.0, 8.0),
    st.floats(0.1, 4.0),
)
def test_power_rises_with_the_regression_and_with_the_cases(
    n: int, share: float, points: float, more: float
) -> None:
    smaller = verdict_chances(n, share, points, DEFAULT_FULL)
    larger = verdict_chances(n, share, points + more, DEFAULT_FULL)
    assert larger.block >= smaller.block - 1e-12
    assert smaller.block + smaller.inconclusive + smaller.passes == pytest.approx(1.0)
    # More cases: the trend rises; the critical count moves in whole steps, so compare far apart.
    assert verdict_chances(4 * n, share, points + more, DEFAULT_FULL).block >= larger.block - 0.02


def test_the_smallest_blocked_regression_is_where_power_crosses() -> None:
    found = smallest_blocked(200, 0.06, DEFAULT_FULL)
    assert found is not None
    assert verdict_chances(200, 0.06, found, DEFAULT_FULL).block >= 0.8
    assert verdict_chances(200, 0.06, found - 0.1, DEFAULT_FULL).block < 0.8
    assert smallest_blocked(4, 0.5, DEFAULT_FULL) is None  # 4 flips can never reach 0.05


def test_paired_cases_needed_meets_the_power_and_beats_the_unpaired() -> None:
    needed = paired_cases_needed(0.06, 4.0, DEFAULT_FULL)
    assert needed is not None
    assert verdict_chances(needed, 0.06, 4.0, DEFAULT_FULL).block >= 0.8
    assert verdict_chances(needed - 20, 0.06, 4.0, DEFAULT_FULL).block < 0.8
    assert needed < unpaired_cases_needed(0.92, 4.0, alpha=0.05, sides=1)
