"""Limits and budgets beyond noise (excess.py) against independent computations: every sign
assignment enumerated, every swap of the arms built by concatenating repetitions, and frames
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
    budget_noise,
    excess_test,
    false_negative_excess,
    false_negatives,
    outcome_differences,
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
    return reps, {arm: _judged(frame) for arm, frame in decisions.items()}, paired


def _judged(decisions: pl.DataFrame) -> pl.DataFrame:
    """Decisions one row each (case, rep, outcome) as a judged frame (`collapse.judge`): a
    repetition's k-th decision on rule `rk`."""
    ranked = decisions.with_columns(
        rule=pl.format("r{}", pl.int_range(pl.len()).over("case", "rep"))
    )
    judged = ranked.select("case", "rep").unique(maintain_order=True)
    for rule in sorted(ranked["rule"].unique()):
        own = ranked.filter(pl.col("rule") == rule).select(
            "case",
            "rep",
            pl.col("outcome").alias(f"outcome/{rule}"),
            pl.lit("approve").alias(f"expected/{rule}"),
            pl.lit("approve").alias(f"actual/{rule}"),
        )
        judged = judged.join(own, on=["case", "rep"], how="left")
    return judged


def test_outcome_counts_are_compared_on_matched_repetitions() -> None:
    reps, decisions, paired = _frames()
    base, cand, differences = outcome_differences(reps, decisions, paired, false_negatives)
    assert (base, cand) == (2, 5)  # b's third baseline rep (FN) has no candidate match
    assert sorted(differences) == [1, 1, 1]  # a: +1, b: +1, template t: -1 + 2 = +1
    excess = false_negative_excess(reps, decisions, paired, alpha=0.05)
    assert excess.excess == 3 and excess.clusters == 3 and not excess.beyond_noise
    assert excess.p == pytest.approx(1 / 8)


@settings(max_examples=60)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_matched_repetitions_agree_with_counting_by_hand(cases: int, seed: int) -> None:
    """Cases graded evenly and unevenly (infra reps, reps missing in one arm, a case in one arm
    only), several rules a repetition: the counts of the first min(n_b, n_c) reps by rep."""
    rng = np.random.default_rng(seed)
    reps, decisions, kept = {}, {}, {}
    for arm in ("baseline", "candidate"):
        rows = [
            (f"c{i}", int(r), "ok" if rng.random() < 0.8 else "infra")
            for i in range(cases)
            for r in rng.permutation(8)[: rng.integers(0, 4)]
        ]
        reps[arm] = pl.DataFrame(
            rows, schema={"case": pl.String, "rep": pl.Int64, "status": pl.String}, orient="row"
        )
        graded = [(c, r) for c, r, status in rows if status == "ok"]
        kept[arm] = {c: sorted(r for c2, r in graded if c2 == c) for c in {c for c, _ in graded}}
        decided = [(c, r) for c, r, _ in rows for _ in range(rng.integers(0, 3))]
        outcomes = rng.choice(["false_negative", "agreement"], len(decided)).tolist()
        decisions[arm] = pl.DataFrame(
            {
                "case": [c for c, _ in decided],
                "rep": [r for _, r in decided],
                "outcome": outcomes,
            },
            schema={"case": pl.String, "rep": pl.Int64, "outcome": pl.String},
        )
    paired = pl.DataFrame(
        {"case": [f"c{i}" for i in range(cases)], "cluster": [f"t{i % 3}" for i in range(cases)]}
    )
    counts: dict[str, dict[str, int]] = {}
    for arm in ("baseline", "candidate"):
        counts[arm] = {}
        for case in paired["case"]:
            mine, theirs = (kept[a].get(case, []) for a in (arm, _other(arm)))
            matched = set(mine[: min(len(mine), len(theirs))])
            counts[arm][case] = sum(
                c == case and r in matched and o == "false_negative"
                for c, r, o in decisions[arm].iter_rows()
            )
    by_cluster: dict[str, int] = {}
    for case, cluster in paired.iter_rows():
        change = counts["candidate"][case] - counts["baseline"][case]
        by_cluster[cluster] = by_cluster.get(cluster, 0) + change
    judged = {arm: _judged(frame) for arm, frame in decisions.items()}
    base, cand, differences = outcome_differences(reps, judged, paired, false_negatives)
    assert (base, cand) == (sum(counts["baseline"].values()), sum(counts["candidate"].values()))
    assert sorted(differences) == sorted(d for d in by_cluster.values() if d)


def _other(arm: str) -> str:
    return "candidate" if arm == "baseline" else "baseline"


def _swapped_ratios(
    base: np.ndarray, cand: np.ndarray, ids: np.ndarray, k: int, stat: Statistic
) -> list[float]:
    """Every assignment of arms to clusters, the pools built by concatenating repetitions."""
    found = []
    for swaps in itertools.product((False, True), repeat=k):
        swapped = np.array(swaps)[ids]
        pool_c = np.concatenate([cand[~swapped], base[swapped]])
        pool_b = np.concatenate([base[~swapped], cand[swapped]])
        b, c = point_stat(pool_b, stat), point_stat(pool_c, stat)
        found.append(c / b if b > 0 else 2 - c / b)  # a negative figure's rise is a rise
    return sorted(found)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("stat", ["mean", "median", "p95", "total"])
def test_the_permutation_ratios_are_every_swap_of_the_arms(stat: Statistic, sign: int) -> None:
    """On a metric below zero (a reward of -10) the ratio is the relative rise, 2 - c / b, so
    that -9 against -10 is 1.1 as 11 against 10 is (issue 28 item 2)."""
    rng = np.random.default_rng(0)
    ids = np.repeat(np.arange(6), 3)
    base, cand = sign * rng.lognormal(7, 0.5, 18), sign * rng.lognormal(7.1, 0.5, 18)
    noise = budget_noise((base, ids), (cand, ids), 6, stat, alpha=0.05)
    assert noise.exact and len(noise.ratios) == 64
    assert noise.ratios == pytest.approx(_swapped_ratios(base, cand, ids, 6, stat), rel=1e-12)
    b, c = point_stat(base, stat), point_stat(cand, stat)
    assert noise.ratio == pytest.approx(c / b if sign > 0 else 2 - c / b)


@settings(max_examples=40, deadline=None)
@given(st.floats(-0.2, 0.5), st.integers(3, 40), st.sampled_from(["mean", "p95", "median"]))
def test_the_noise_bound_and_the_p_agree(increase: float, clusters: int, stat: Statistic) -> None:
    rng = np.random.default_rng(clusters)
    ids = np.repeat(np.arange(clusters), 2)
    base, cand = rng.lognormal(7, 0.5, 2 * clusters), rng.lognormal(7.2, 0.5, 2 * clusters)
    noise = budget_noise((base, ids), (cand, ids), clusters, stat, alpha=0.05, resamples=500)
    assert noise.beyond(increase) == (noise.ratio > (1 + increase) * noise.noise)


def test_a_budget_blocks_only_beyond_noise_and_the_same_seed_gives_the_same_answer() -> None:
    """The same latencies in both arms are within noise; five times slower is beyond it."""
    rng = np.random.default_rng(1)
    base = rng.lognormal(7, 0.5, 150)
    cases = np.repeat(np.arange(50), 3)
    same = budget_noise((base, cases), (base.copy(), cases), 50, "p95", alpha=0.05)
    assert not same.exact and same.ratio == 1.0 and not same.beyond(0.0)
    again = budget_noise((base, cases), (base.copy(), cases), 50, "p95", alpha=0.05)
    assert np.array_equal(again.ratios, same.ratios)
    slow = budget_noise((base, cases), (5 * base, cases), 50, "p95", alpha=0.05, resamples=300)
    assert slow.beyond(0.10) and slow.p(0.10) == pytest.approx(1 / 301)


def test_five_clusters_can_block_at_alpha_only_on_their_most_extreme_swaps() -> None:
    """32 assignments: the smallest p is 1/32, below 0.05; at 0.025 nothing can block."""
    ids = np.repeat(np.arange(5), 10)
    base = np.linspace(100, 200, 50)
    noise = budget_noise((base, ids), (10 * base, ids), 5, "mean", alpha=0.05)
    assert noise.exact and noise.p(0.0) == 1 / 32 and noise.beyond(0.0)
    strict = budget_noise((base, ids), (10 * base, ids), 5, "mean", alpha=0.025)
    assert strict.noise == strict.ratios[-1] == 10.0  # no ratio is above the largest swap
    assert not strict.beyond(0.0)
