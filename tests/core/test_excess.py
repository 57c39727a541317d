"""Limits and budgets beyond noise (excess.py) against independent computations: every sign
assignment enumerated, the bootstrap's statistics by replicating the repetitions, and frames
counted by hand."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate import stats
from flipgate.core.gate.excess import (
    _weighted_stat,
    budget_bound,
    excess_test,
    outcome_differences,
    outcome_excess,
    point_stat,
)
from flipgate.core.vocab import Statistic


def _brute(differences: list[int], alpha: float) -> tuple[Fraction, int]:
    totals = [
        sum(s * d for s, d in zip(signs, differences, strict=True))
        for signs in itertools.product((1, -1), repeat=len(differences))
    ]
    observed = sum(differences)

    def tail(t: int) -> Fraction:
        return Fraction(sum(x >= t for x in totals), len(totals))

    noise = [t for t in set(totals) if tail(t) > alpha]
    return tail(observed), max(noise) if noise else min(totals) - 1


@settings(max_examples=80)
@given(st.lists(st.integers(-5, 5), max_size=10), st.sampled_from([0.05, 0.025, 0.2]))
def test_the_excess_test_agrees_with_every_sign_enumerated(
    differences: list[int], alpha: float
) -> None:
    p, bound = excess_test(differences, alpha)
    want_p, want_bound = _brute(differences, alpha)
    assert p == pytest.approx(float(want_p), rel=1e-12)
    assert bound == want_bound
    assert (sum(differences) > bound) == (p <= alpha)  # the bound and the test agree


def test_the_mid_p_counts_the_observed_total_half() -> None:
    p, _ = excess_test([2, 1, 1], 0.05, "mid_p")  # totals 4 (1/8), 2 (1/8), 0 (2/8), ...
    assert p == pytest.approx(1 / 16)


def test_large_suites_take_the_fourier_path_to_the_same_distribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    magnitudes = [int(m) for m in np.random.default_rng(3).integers(1, 6, 2000)]
    monkeypatch.setattr(stats, "FFT_WORK", 10**12)
    direct, offset = stats.sign_flip_distribution(magnitudes)
    monkeypatch.setattr(stats, "FFT_WORK", 0)
    by_fft, same = stats.sign_flip_distribution(magnitudes)
    assert same == offset
    assert np.abs(direct - by_fft).max() < 1e-14


def _frames() -> tuple[dict[str, pl.DataFrame], dict[str, pl.DataFrame], pl.DataFrame]:
    """Case a: 3 reps each, FN 1 -> 2. Case b: the candidate's rep 1 is infra, so each arm keeps
    its first two gradable reps: FN 0 -> 1 (the third baseline rep's FN is not compared).
    Case c: templated with d, FN 1 -> 0; d: 0 -> 2."""
    reps = {
        "baseline": pl.DataFrame(
            {
                "case": ["a"] * 3 + ["b"] * 3 + ["c", "d"],
                "rep": [0, 1, 2, 0, 1, 2, 0, 0],
                "status": ["ok"] * 8,
            }
        ),
        "candidate": pl.DataFrame(
            {
                "case": ["a"] * 3 + ["b"] * 3 + ["c", "d"],
                "rep": [0, 1, 2, 0, 1, 2, 0, 0],
                "status": ["ok"] * 4 + ["infra"] + ["ok"] * 3,
            }
        ),
    }

    def fn(rows: list[tuple[str, int]]) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "case": [c for c, _ in rows],
                "rep": [r for _, r in rows],
                "outcome": ["false_negative"] * len(rows),
            }
        )

    decisions = {
        "baseline": fn([("a", 1), ("b", 2), ("c", 0)]),
        "candidate": fn([("a", 0), ("a", 2), ("b", 2), ("d", 0), ("d", 0)]),
    }
    paired = pl.DataFrame({"case": ["a", "b", "c", "d"], "cluster": ["a", "b", "t", "t"]})
    return reps, decisions, paired


def test_outcome_counts_are_compared_on_matched_repetitions() -> None:
    reps, decisions, paired = _frames()
    base, cand, differences = outcome_differences(reps, decisions, paired, "false_negative")
    assert (base, cand) == (2, 5)  # b's third baseline rep (FN) has no candidate match
    assert sorted(differences) == [1, 1, 1]  # a: +1, b: +1, template t: -1 + 2 = +1
    excess = outcome_excess(reps, decisions, paired, "false_negative", alpha=0.05)
    assert excess.excess == 3 and excess.clusters == 3 and not excess.beyond_noise
    assert excess.p == pytest.approx(1 / 8)


@pytest.mark.parametrize("stat", ["mean", "median", "p95", "total"])
def test_the_bootstrap_statistic_is_the_replicated_sample_s(stat: Statistic) -> None:
    rng = np.random.default_rng(0)
    values, ids = rng.exponential(1, 40), rng.integers(0, 12, 40)
    weights = rng.multinomial(12, [1 / 12] * 12, size=6).astype(float)
    got = _weighted_stat(values, ids, weights, stat)
    for row, value in zip(weights, got, strict=True):
        assert value == pytest.approx(point_stat(np.repeat(values, row[ids].astype(int)), stat))


def test_the_bound_is_reproducible_and_allows_for_noise() -> None:
    """The same latencies in both arms: the candidate's p95 is not above the baseline's beyond
    noise; five times slower, it is. The same seed gives the same bound."""
    rng = np.random.default_rng(1)
    base = rng.lognormal(7, 0.5, 150)
    cases = np.repeat(np.arange(50), 3)
    same = budget_bound((base, cases), (base.copy(), cases), 50, "p95", alpha=0.05)
    assert same.ratio_low <= 1.0 and same.baseline == same.candidate
    again = budget_bound((base, cases), (base.copy(), cases), 50, "p95", alpha=0.05)
    assert again == same
    slow = budget_bound((base, cases), (5 * base, cases), 50, "p95", alpha=0.05, resamples=300)
    assert slow.ratio_low > 4
    assert slow.candidate_low <= slow.candidate
