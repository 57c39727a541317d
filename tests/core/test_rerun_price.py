"""The priced rerun plan (issue 23 item 4): its chance against a brute-force enumeration of every
rerun outcome and against a simulation that reruns repetition by repetition and applies the
gate's own test; its usage from the runs' own fields."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from flipgate.core.gate.compare import compare
from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.power import FlipRule
from flipgate.core.gate.rerun_price import (
    Chance,
    flip_chances,
    majority_passes,
    price,
    resolve_chance,
)
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run

RULE = FlipRule(alpha=0.05, margin=2, flip_cap=10)


def verdict(b: int, c: int, rule: FlipRule) -> str:
    """SPEC §3.5 lines 3, 6 and 7, written out again."""
    if mcnemar_p(b, c) <= rule.alpha:
        return "BLOCK"
    if b - c <= rule.margin and b <= rule.flip_cap:
        return "PASS"
    return "INCONCLUSIVE"


# a flipped case's chance that one repetition passes: (baseline, candidate)
Rates = list[tuple[float, float]]


def chance(rates: Rates, runs: int, rule: FlipRule) -> Chance:
    """The price's chance of one plan, from the rates as pairs."""
    base, cand = (np.array(arm) for arm in zip(*rates, strict=True))
    broke, fixed = flip_chances(base, cand, [runs])
    return resolve_chance(broke[0], fixed[0], rule)


def brute_force(rates: Rates, runs: int, rule: FlipRule) -> float:
    """Every outcome of every repetition of every case, weighed and judged."""
    per_case = []
    for r in rates:
        outcomes: dict[tuple[int, int], float] = {}
        for base in itertools.product((0, 1), repeat=runs):
            for cand in itertools.product((0, 1), repeat=runs):
                weight = 1.0
                for passed, rate in zip((base, cand), r, strict=True):
                    for x in passed:
                        weight *= rate if x else 1 - rate
                bp, cp = 2 * sum(base) > runs, 2 * sum(cand) > runs
                key = (int(bp and not cp), int(cp and not bp))
                outcomes[key] = outcomes.get(key, 0.0) + weight
        per_case.append(outcomes)
    resolved = 0.0
    for combo in itertools.product(*(o.items() for o in per_case)):
        weight = float(np.prod([w for _, w in combo]))
        b = sum(k[0] for k, _ in combo)
        c = sum(k[1] for k, _ in combo)
        if verdict(b, c, rule) != "INCONCLUSIVE":
            resolved += weight
    return resolved


def simulate(rates: Rates, runs: int, rule: FlipRule, draws: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    base, cand = (np.array(arm) for arm in zip(*rates, strict=True))
    resolved = 0
    for _ in range(draws):
        bp = (rng.random((runs, len(rates))) < base).sum(axis=0) * 2 > runs
        cp = (rng.random((runs, len(rates))) < cand).sum(axis=0) * 2 > runs
        b, c = int((bp & ~cp).sum()), int((~bp & cp).sum())
        resolved += verdict(b, c, rule) != "INCONCLUSIVE"
    return resolved / draws


def test_majority_with_a_tie_failing() -> None:
    assert majority_passes(np.array([0.5]), 1)[0] == pytest.approx(0.5)
    assert majority_passes(np.array([0.5]), 2)[0] == pytest.approx(0.25)  # only pass-pass
    assert majority_passes(np.array([0.6]), 3)[0] == pytest.approx(0.6**3 + 3 * 0.6**2 * 0.4)


@pytest.mark.parametrize("runs", [1, 2, 3])
def test_the_exact_chance_is_the_brute_force_one(runs: int) -> None:
    rule = FlipRule(alpha=0.25, margin=0, flip_cap=1)  # a small rule, so every branch is met
    rates = [(0.9, 0.2), (0.6, 0.5), (0.3, 0.7)]
    found = chance(rates, runs, rule)
    assert found.method == "exact"
    assert found.resolves == pytest.approx(brute_force(rates, runs, rule), abs=1e-12)


@pytest.mark.parametrize(("cases", "tolerance"), [(24, 0.02), (400, 0.03)])
def test_the_chance_holds_in_simulation(cases: int, tolerance: float) -> None:
    """The exact convolution (24 cases) and the normal approximation (400) against reruns drawn
    repetition by repetition: within four standard errors of 2,000 draws, or the tolerance."""
    rng = np.random.default_rng(7)
    rates = [(float(rng.uniform(0.4, 0.95)), float(rng.uniform(0.2, 0.8))) for _ in range(cases)]
    rule = FlipRule(alpha=0.05, margin=2, flip_cap=cases // 4)
    found = chance(rates, 3, rule)
    simulated = simulate(rates, 3, rule, draws=2000, seed=11)
    error = (simulated * (1 - simulated) / 2000) ** 0.5
    assert abs(found.resolves - simulated) <= max(4 * error, tolerance)
    assert found.method == ("exact" if cases <= 300 else "normal")


def _rows(case: str, passes: list[bool], cost: float | None) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for rep, passed in enumerate(passes):
        row: dict[str, object] = {"case": case, "rep": rep, "passed": passed}
        if cost is not None:
            row |= {"cost_usd": cost, "tokens": 1000 * cost}
        rows.append(row)
    return rows


def test_the_plan_is_priced_from_the_runs_usage(tmp_path: Path) -> None:
    steady = [f"s{i:02d}" for i in range(30)]
    base_rows = [r for case in steady for r in _rows(case, [True], 0.01)]
    cand_rows = [r for case in steady for r in _rows(case, [True], None)]
    for i in range(6):  # six broke, one fixed: INCONCLUSIVE at margin 2
        base_rows += _rows(f"f{i}", [True], 0.02)
        cand_rows += _rows(f"f{i}", [False], None)
    base_rows += _rows("g0", [False], None)  # no usage: the arm's mean stands in
    cand_rows += _rows("g0", [True], None)
    base = load_run(write_run(tmp_path / "b", base_rows))
    cand = load_run(write_run(tmp_path / "c", cand_rows))
    comparison = compare(base, cand, default_spec())
    assert comparison.result.verdict == "INCONCLUSIVE"
    cases = [case for case, _ in comparison.result.flipped]
    priced = price(
        {"baseline": base, "candidate": cand}, comparison.cases, cases, 5, RULE, target=0.8
    )
    plan = priced.plan
    assert (plan.runs, plan.cases, plan.repetitions) == (5, 7, 70)
    arm_mean = (30 * 0.01 + 6 * 0.02) / 36
    assert plan.usage["baseline"].cost_usd == pytest.approx(5 * (6 * 0.02 + arm_mean))
    assert plan.usage["candidate"].cost_usd is None  # the candidate records no usage
    assert plan.cost_usd is None
    assert priced.rates["baseline"].to_list()[:2] == [pytest.approx(2 / 3)] * 2
    if priced.cheapest is not None:
        assert priced.cheapest.chance.resolves >= 0.8
        assert priced.cheapest.runs % 2 == 1
