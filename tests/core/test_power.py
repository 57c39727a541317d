"""What the gate can see (power.py) against independent computations: the multinomial summed by
brute force with scipy (used only here), the issue's audit figures, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import multinomial

from flipgate.core.gate.mcnemar import FlipTest, flip_p, mcnemar_p
from flipgate.core.gate.power import (
    ANCHOR,
    FlipRule,
    cases_needed,
    critical_flips,
    effective,
    flip_probabilities,
    gate_power,
    noise_with_reps,
    plan,
    smallest_blocked,
    verdict_chances,
)
from flipgate.core.gate.stats import collapsed_pass

DEFAULT_FULL = FlipRule(alpha=0.05, margin=2, flip_cap=10)


def _brute_chances(n: int, p_b: float, p_c: float, rule: FlipRule) -> tuple[float, float, float]:
    """Every (b, c) of the multinomial, each put through the gate's rule with the test itself."""
    block = passes = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            weight = multinomial.pmf([b, c, n - b - c], n, [p_b, p_c, 1 - p_b - p_c])
            if flip_p(b, c, rule.test) <= rule.alpha:
                block += weight
            elif b - c <= rule.margin and b <= rule.flip_cap:
                passes += weight
    return block, 1 - block - passes, passes


@pytest.mark.parametrize(
    ("n", "noise", "points", "rule"),
    [
        (60, 0.10, 4.0, DEFAULT_FULL),
        (50, 0.06, 2.0, FlipRule(0.05, 1, 4)),
        (80, 0.02, 5.0, FlipRule(0.10, 0, 3)),
        (40, 0.30, 10.0, FlipRule(0.01, 2, 10)),
        (60, 0.10, 4.0, FlipRule(0.025, 2, 10, "mid_p")),
        (45, 0.08, 0.0, FlipRule(0.05, 2, 10, "mid_p")),
    ],
)
def test_verdict_chances_agree_with_the_double_sum(
    n: int, noise: float, points: float, rule: FlipRule
) -> None:
    """The regression adds breaks: p_b = noise / 2 + d, p_c = noise / 2."""
    expected = _brute_chances(n, noise / 2 + points / 100, noise / 2, rule)
    got = verdict_chances(n, noise, points, rule)
    assert (got.block, got.inconclusive, got.passes) == pytest.approx(expected, abs=1e-10)


def test_a_regression_adds_breaks_and_keeps_the_fixes() -> None:
    assert flip_probabilities(0.06, 5.0) == pytest.approx((0.08, 0.03))
    assert flip_probabilities(0.0, 3.0) == pytest.approx((0.03, 0.0))
    assert flip_probabilities(0.5, 90.0) == pytest.approx((0.75, 0.25))  # capped at every case


def test_the_issue_s_cases_needed_when_a_regression_adds_flips() -> None:
    """Issue 27's audit: 162 / 251 / 446 cases under the old model become 293 / 416 / 664 when a
    regression adds flips (noise 6%, 80% power, the default full set)."""
    assert [cases_needed(0.06, d, DEFAULT_FULL) for d in (5.0, 4.0, 3.0)] == [293, 416, 664]


@pytest.mark.parametrize("test", ["exact", "mid_p"])
def test_critical_flips_are_the_gate_s_own(test: FlipTest) -> None:
    for alpha in (0.05, 0.025, 0.0125, 0.01, 0.0625, 0.5):
        expected = [
            next((b for b in range(1, k + 1) if flip_p(b, k - b, test) <= alpha), k + 1)
            for k in range(200)
        ]
        assert critical_flips(0, 199, alpha, test) == tuple(expected), alpha
        assert critical_flips(37, 199, alpha, test) == tuple(expected[37:]), alpha


def smallest_blocking(k: int, alpha: float, test: FlipTest) -> int:
    """The smallest b of k flips whose p is at most alpha (k + 1: none), by bisection on the
    test itself (its p falls as b rises)."""
    low, high = 1, k + 1
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if flip_p(mid, k - mid, test) <= alpha else (mid + 1, high)
    return low


@pytest.mark.parametrize("test", ["exact", "mid_p"])
def test_long_walks_and_late_starts_are_the_gate_s_own(test: FlipTest) -> None:
    """Past the walk's re-anchoring (ANCHOR flips) and from a first count where the float sums
    choose the start, at boundaries that are a p of the test itself (ties, settled exactly)."""
    ties = (flip_p(1540, 1400, test), flip_p(620, 545, test), 0.0125, 1e-9)
    for alpha in ties:
        walk = critical_flips(0, 2600, alpha, test)
        late = critical_flips(2300, 2600, alpha, test)
        assert late == walk[2300:]
        for k in [*range(0, 2601, 89), *range(ANCHOR - 2, ANCHOR + 2), 1165, 2600]:
            assert walk[k] == smallest_blocking(k, alpha, test), (alpha, k)
        first = critical_flips(2940, 2945, alpha, test)
        assert first == tuple(smallest_blocking(k, alpha, test) for k in range(2940, 2946))


def test_the_power_of_a_large_run_asks_the_exact_test_only_at_a_tie(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 10,343 flips of 100,000 cases the exact test's big integers cost 7 ms a p: the walks
    start from the float sums, which decide wherever no p is within rounding of alpha."""
    import flipgate.core.gate.power as power

    asked: list[tuple[int, int]] = []

    def counted(b: int, c: int, test: FlipTest = "exact") -> float:
        asked.append((b, c))
        return flip_p(b, c, test)

    monkeypatch.setattr(power, "flip_p", counted)
    power.critical_flips.cache_clear()
    power.gate_power(5153, 5190, 100_000, FlipRule(0.0125, 0, 10**9))
    assert asked == []
    power.critical_flips.cache_clear()
    tie = flip_p(620, 545)
    assert power.critical_flips(1165, 1165, tie) == (smallest_blocking(1165, tie, "exact"),)
    assert asked  # a tie is the test's


def test_the_mid_p_blocks_at_least_where_the_exact_test_does() -> None:
    exact, mid = critical_flips(0, 500, 0.05), critical_flips(0, 500, 0.05, "mid_p")
    assert all(m <= e for m, e in zip(mid, exact, strict=True))
    assert any(m < e for m, e in zip(mid, exact, strict=True))


@settings(max_examples=25, deadline=None)
@given(
    st.integers(20, 600),
    st.floats(0.0, 0.2),
    st.floats(0.0, 8.0),
    st.floats(0.1, 4.0),
    st.sampled_from(["exact", "mid_p"]),
)
def test_power_rises_with_the_regression_and_with_the_cases(
    n: int, noise: float, points: float, more: float, test: FlipTest
) -> None:
    rule = FlipRule(0.05, 2, 10, test)
    smaller = verdict_chances(n, noise, points, rule)
    larger = verdict_chances(n, noise, points + more, rule)
    assert larger.block >= smaller.block - 1e-12
    assert smaller.block + smaller.inconclusive + smaller.passes == pytest.approx(1.0)
    # More cases: the trend rises; the critical count moves in whole steps, so compare far apart.
    assert verdict_chances(4 * n, noise, points + more, rule).block >= larger.block - 0.02


def test_the_smallest_blocked_regression_is_where_power_crosses() -> None:
    found = smallest_blocked(200, 0.06, DEFAULT_FULL)
    assert found is not None
    assert verdict_chances(200, 0.06, found, DEFAULT_FULL).block >= 0.8
    assert verdict_chances(200, 0.06, found - 0.1, DEFAULT_FULL).block < 0.8
    assert smallest_blocked(4, 0.5, DEFAULT_FULL) is None  # 4 flips can never reach 0.05


def test_cases_needed_meet_the_power() -> None:
    needed = cases_needed(0.06, 4.0, DEFAULT_FULL)
    assert needed is not None
    assert verdict_chances(needed, 0.06, 4.0, DEFAULT_FULL).block >= 0.8
    assert verdict_chances(needed - 20, 0.06, 4.0, DEFAULT_FULL).block < 0.8


def test_a_design_effect_counts_clones_as_fewer_cases() -> None:
    """D = 2: 400 cloned cases see what 200 independent ones do, the margin and cap halved."""
    cases, rule = effective(400, FlipRule(0.05, 4, 20), 2.0)
    assert (cases, rule) == (200, FlipRule(0.05, 2, 10))
    assert verdict_chances(400, 0.06, 3.0, FlipRule(0.05, 4, 20), 2.0) == verdict_chances(
        200, 0.06, 3.0, DEFAULT_FULL
    )
    assert effective(400, DEFAULT_FULL, 1.0) == (400, DEFAULT_FULL)
    blocked = [verdict_chances(600, 0.06, 3.0, DEFAULT_FULL, d).block for d in (1.0, 1.5, 3.0)]
    assert blocked == sorted(blocked, reverse=True)


def test_the_run_s_power_reads_its_flips_as_the_noise() -> None:
    power = gate_power(9, 3, 200, DEFAULT_FULL)
    assert power.flip_share == pytest.approx(0.06)
    assert power.chances[-1] == verdict_chances(200, 0.06, 5.0, DEFAULT_FULL)
    assert power.to_json()["target"] == 0.8 and "power" not in power.to_json()


def test_repetitions_narrow_the_noise_of_unstable_cases() -> None:
    """Seed 001: a case passing 90% of its runs passes a majority of three 97.2% of the time."""
    assert noise_with_reps(1.0, 0.9, 1) == pytest.approx(2 * 0.9 * 0.1)
    assert noise_with_reps(0.1, 0.9, 3) == pytest.approx(0.1 * 2 * 0.972 * 0.028)
    assert noise_with_reps(0.2, 0.5, 5) == pytest.approx(0.1)  # a coin stays a coin
    rows = plan(3.0, DEFAULT_FULL, unstable_share=0.15, case_rate=0.8, reps=(1, 3, 5))
    assert [row.reps for row in rows] == [1, 3, 5]
    needed = [row.cases for row in rows if row.cases is not None]
    assert len(needed) == len(rows) and needed == sorted(needed, reverse=True)
    for row in rows:
        assert row.cases is not None
        assert row.noise_share == pytest.approx(
            0.15
            * 2
            * collapsed_pass(0.8, row.reps, "majority")
            * (1 - collapsed_pass(0.8, row.reps, "majority"))
        )
        assert row.runs == 2 * row.reps * row.cases


def test_the_seed_s_worked_example_blocks_under_the_first_look() -> None:
    assert mcnemar_p(10, 2) == 79 / 4096
    assert critical_flips(12, 12, 0.025) == (10,)  # 10 of 12 blocks at the first look's 0.025
