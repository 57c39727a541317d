"""Calibration from identical runs (core/curation/noise.py): the quantiles against a brute-force
multinomial sum, the bound against scipy's beta quantile (both used only here), and the property
issue 27 asks for: more identical runs never loosen the proposal in expectation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binom, multinomial

from flipgate.core.curation.noise import (
    Noise,
    estimate_noise,
    limits_at,
    net_quantile,
    propose,
    rule_chances,
)
from flipgate.core.gate.power import FlipRule, verdict_chances


@pytest.mark.parametrize(("n", "share", "q"), [(30, 0.1, 0.95), (40, 0.3, 0.9), (25, 0.02, 0.99)])
def test_the_net_quantile_is_the_multinomial_s(n: int, share: float, q: float) -> None:
    def at_most(m: int) -> float:
        return sum(
            float(multinomial.pmf([b, c, n - b - c], n, [share / 2, share / 2, 1 - share]))
            for b in range(n + 1)
            for c in range(n + 1 - b)
            if b - c <= m
        )

    m = net_quantile(n, share, q)
    assert at_most(m) >= q
    assert m == 0 or at_most(m - 1) < q


def test_the_upper_bound_is_clopper_pearson_over_the_runs_case_pairs() -> None:
    """3 runs of 200 cases, 6% flipping: 200 x 3 / 2 = 300 case pairs, 18 flips."""
    noise = estimate_noise([0.06, 0.06, 0.06], 200, 3, alpha=0.05)
    assert noise.flip_share == pytest.approx(0.06)
    assert noise.upper == pytest.approx(beta.ppf(0.95, 19, 282), rel=1e-9)
    assert estimate_noise([0.0], 200, 2, 0.05).upper == pytest.approx(1 - 0.05 ** (1 / 200))
    more = estimate_noise([0.06] * 45, 200, 10, alpha=0.05)
    assert 0.06 < more.upper < noise.upper
    clustered = estimate_noise([0.06, 0.06, 0.06], 200, 3, alpha=0.05, design_effect=2.0)
    assert clustered.upper > noise.upper


def test_the_limits_are_the_stated_quantiles_at_the_bound() -> None:
    noise = Noise(runs=3, cases=200, flip_share=0.06, upper=0.09, level=0.95, design_effect=1.0)
    margin, cap = limits_at(noise, 0.95)
    assert margin == net_quantile(200, 0.09, 0.95)
    assert cap == int(binom.ppf(0.95, 200, 0.045))
    doubled = Noise(3, 400, 0.06, 0.09, 0.95, 2.0)  # 400 clones of 200 independent cases
    assert limits_at(doubled, 0.95) == (2 * margin, 2 * cap)


def test_a_proposal_states_its_chances_beside_the_current_spec_s() -> None:
    noise = Noise(runs=3, cases=200, flip_share=0.06, upper=0.09, level=0.95, design_effect=1.0)
    proposal = propose(noise, (2, 10), boundary=0.025)
    assert (proposal.proposed.margin, proposal.proposed.flip_cap) == limits_at(noise)
    current = proposal.current
    rule = FlipRule(0.025, 2, 10)
    assert current.false_block == verdict_chances(200, 0.06, 0.0, rule).block
    assert current.passes == tuple(
        (d, verdict_chances(200, 0.06, d, rule).passes) for d in (2.0, 3.0, 5.0)
    )
    assert rule_chances(2, 10, noise, 0.025, "exact") == current


def _proposals(cases: int, unstable: float, rate: float, runs: int, seeds: int) -> np.ndarray:
    """(seeds, runs - 1, 2): the margin and cap proposed from the first 2, 3, ... runs of the
    same simulated runs, so that each added run is compared with the same earlier ones."""
    found = np.zeros((seeds, runs - 1, 2))
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        flaky = rng.random(cases) < unstable
        steady = rng.random(cases) < 0.9
        verdicts = np.where(flaky[None, :], rng.random((runs, cases)) < rate, steady[None, :])
        for k in range(2, runs + 1):
            shares = [
                float((verdicts[a] != verdicts[b]).mean())
                for a, b in itertools.combinations(range(k), 2)
            ]
            found[seed, k - 2] = limits_at(estimate_noise(shares, cases, k, alpha=0.05))
    return found


@settings(max_examples=4, deadline=None)
@given(
    st.sampled_from([50, 200, 1000]),
    st.floats(0.02, 0.25),
    st.floats(0.4, 0.9),
)
def test_more_identical_runs_never_loosen_the_proposal_in_expectation(
    cases: int, unstable: float, rate: float
) -> None:
    """The mean margin and cap over 80 simulated calibrations, from 2 to 5 runs: each added run
    moves them down or leaves them, within three standard errors of the paired difference."""
    found = _proposals(cases, unstable, rate, runs=5, seeds=80)
    steps = np.diff(found, axis=1)  # (seeds, 3, 2): what each added run changed
    mean, error = steps.mean(axis=0), steps.std(axis=0) / np.sqrt(len(found))
    assert (mean <= 3 * error + 1e-9).all(), (mean, error)
