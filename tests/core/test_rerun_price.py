"""The priced rerun plan (issue 23 item 4): its chance against a brute-force enumeration of every
rerun outcome and against a simulation that reruns repetition by repetition and applies the
gate's own test; its usage from the runs' own fields."""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from flipgate.core.gate.compare import compare
from flipgate.core.gate.mcnemar import FlipTest, flip_p, mcnemar_p
from flipgate.core.gate.power import FlipRule, critical_flips
from flipgate.core.gate.rerun_price import (
    Chance,
    flip_chances,
    majority_passes,
    price,
    resolve_chance,
)
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.vocab import Arm
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


# --------------------------------------------------------------------------- the price, plainly

Row = dict[str, object]


def _random_arm(rng: np.random.Generator, cases: list[str], *, tokens: bool) -> list[Row]:
    """One to three repetitions a case: a tenth infra (no verdict, its usage not the case's), the
    usage fields each recorded on seven repetitions in ten (tokens not at all without `tokens`),
    and a case of infra only (no gradable repetition)."""
    rows: list[Row] = []
    for case in cases:
        for rep in range(int(rng.integers(1, 4))):
            row: Row = {"case": case, "rep": rep}
            if case == "all-infra" or rng.random() < 0.1:
                row |= {"status": "infra", "infra": "timeout"}
            else:
                row["passed"] = bool(rng.random() < 0.6)
            if rng.random() < 0.7:
                row["cost_usd"] = round(float(rng.uniform(0.001, 0.05)), 4)
            if tokens and rng.random() < 0.7:
                row["tokens"] = int(rng.integers(100, 5000))
            rows.append(row)
    return rows


def _gradable(rows: list[Row]) -> list[Row]:
    return [row for row in rows if row.get("status", "ok") == "ok"]


def _plain_usage(rows: list[Row], cases: list[str], runs: int) -> tuple[float | None, ...]:
    """(tokens, cost) of `runs` repetitions of each case: per case the mean of its gradable
    repetitions' recorded usage, else the arm's mean of them; None where none is recorded."""
    found: list[float | None] = []
    for field in ("tokens", "cost_usd"):
        recorded = [row for row in _gradable(rows) if row.get(field) is not None]
        if not recorded:
            found.append(None)
            continue
        arm_mean = statistics.fmean(float(row[field]) for row in recorded)  # type: ignore[arg-type]
        total = 0.0
        for case in cases:
            own = [float(row[field]) for row in recorded if row["case"] == case]  # type: ignore[arg-type]
            total += statistics.fmean(own) if own else arm_mean
        found.append(runs * total)
    return tuple(found)


def _plain_rate(rows: list[Row], case: str) -> float:
    graded = [bool(row["passed"]) for row in _gradable(rows) if row["case"] == case]
    return (sum(graded) + 1) / (len(graded) + 2)


def _plain_majority(rate: float, runs: int) -> float:
    return sum(
        math.comb(runs, j) * rate**j * (1 - rate) ** (runs - j)
        for j in range(runs // 2 + 1, runs + 1)
    )


def _plain_chance(rates: Rates, runs: int, rule: FlipRule) -> Chance:
    majority = [(_plain_majority(a, runs), _plain_majority(b, runs)) for a, b in rates]
    broke = np.array([a * (1 - b) for a, b in majority])
    fixed = np.array([(1 - a) * b for a, b in majority])
    return resolve_chance(broke, fixed, rule)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_price_is_the_plain_computation_of_the_plan(tmp_path: Path, seed: int) -> None:
    """Every figure of the priced plan against the model written out case by case: cases with
    and without gradable repetitions, usage fields recorded on some repetitions only, an arm
    with no tokens, a case in neither run."""
    rng = np.random.default_rng(seed)
    suite = [f"c{i}" for i in range(40)] + ["all-infra"]
    base_rows = _random_arm(rng, suite, tokens=True)
    cand_rows = _random_arm(rng, suite, tokens=False)
    base = load_run(write_run(tmp_path / "b", base_rows))
    cand = load_run(write_run(tmp_path / "c", cand_rows))
    comparison = compare(base, cand, default_spec())
    cases = [*rng.choice(suite, size=25, replace=False).tolist(), "in-neither"]
    rule = FlipRule(alpha=0.2, margin=1, flip_cap=6)
    priced = price({"baseline": base, "candidate": cand}, comparison.cases, cases, 5, rule, 0.5)

    rates = [(_plain_rate(base_rows, case), _plain_rate(cand_rows, case)) for case in cases]
    assert priced.rates["case"].to_list() == cases
    for i, column in enumerate(("baseline", "candidate")):
        assert priced.rates[column].to_list() == pytest.approx([r[i] for r in rates], abs=1e-15)
    for plan in filter(None, (priced.plan, priced.cheapest)):
        arms: tuple[tuple[Arm, list[Row]], ...] = (
            ("baseline", base_rows),
            ("candidate", cand_rows),
        )
        for arm, rows in arms:
            tokens, cost = _plain_usage(rows, cases, plan.runs)
            usage = plan.usage[arm]
            assert usage.repetitions == plan.runs * len(cases)
            assert usage.tokens == (None if tokens is None else pytest.approx(tokens, abs=1))
            assert usage.cost_usd == (None if cost is None else pytest.approx(cost, rel=1e-12))
        expected = _plain_chance(rates, plan.runs, rule)
        assert plan.chance.resolves == pytest.approx(expected.resolves, abs=1e-12)
        assert plan.chance.block == pytest.approx(expected.block, abs=1e-12)
    assert priced.plan.usage["candidate"].tokens is None  # the candidate records none
    reaching = [r for r in range(1, 26, 2) if _plain_chance(rates, r, rule).resolves >= 0.5]
    assert (priced.cheapest and priced.cheapest.runs) == (reaching[0] if reaching else None)


def _stacked_chance(broke: np.ndarray, fixed: np.ndarray, rule: FlipRule) -> tuple[float, float]:
    """The normal approximation as first written: a grid of stacked offsets for einsum, and every
    lattice point's critical b looked up from 0 flips."""
    n = len(broke)
    mean = np.array([broke.sum(), fixed.sum()])
    cov = np.array(
        [
            [(broke * (1 - broke)).sum(), -(broke * fixed).sum()],
            [-(broke * fixed).sum(), (fixed * (1 - fixed)).sum()],
        ]
    )
    sd = np.sqrt(np.maximum(np.diag(cov), 1e-12))
    axes = [
        np.arange(max(0, math.floor(m - 8 * d)), min(n, math.ceil(m + 8 * d)) + 1)
        for m, d in zip(mean, sd, strict=True)
    ]
    b, c = np.meshgrid(*axes, indexing="ij")
    offsets = np.stack([b - mean[0], c - mean[1]], axis=-1)
    inverse = np.linalg.inv(cov + np.eye(2) * 1e-9)
    density = np.exp(-0.5 * np.einsum("...i,ij,...j->...", offsets, inverse, offsets))
    density /= density.sum()
    crit = np.array(critical_flips(0, n, rule.alpha, rule.test))
    block = (b + c <= n) & (b >= crit[np.minimum(b + c, n)])
    passes = ~block & (b - c <= rule.margin) & (b <= rule.flip_cap)
    return float(density[block].sum()), float(density[passes].sum())


@pytest.mark.parametrize("test", ["exact", "mid_p"])
@pytest.mark.parametrize("seed", range(4))
def test_the_lattice_is_the_stacked_grid_s(seed: int, test: FlipTest) -> None:
    """The normal approximation's lattice, broadcast and cut by row, against the stacked grid
    it replaced, on rules whose BLOCK and PASS regions cross the bulk of the lattice."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(301, 900))
    broke = rng.uniform(0.05, 0.4, n)
    fixed = rng.uniform(0.0, 0.3, n)
    b, c = round(broke.sum()), round(fixed.sum())
    spread = math.isqrt(b + c)
    # BLOCK at about the expected flips' p, PASS a little short of the expected difference
    rule = FlipRule(flip_p(b, c, test), b - c - spread, b + spread, test)
    found = resolve_chance(broke, fixed, rule)
    block, passes = _stacked_chance(broke, fixed, rule)
    assert found.method == "normal"
    assert 0.05 < found.block < 0.95 and 0.05 < found.passes < 0.95  # both cut the bulk
    assert found.block == pytest.approx(block, abs=1e-12)
    assert found.passes == pytest.approx(passes, abs=1e-12)


def test_a_lattice_no_point_of_which_resolves_is_not_weighed() -> None:
    """Far from both regions (as the million-case pair is) the chance is 0 without a density,
    as the stacked grid finds it."""
    rng = np.random.default_rng(9)
    broke, fixed = rng.uniform(0.2, 0.4, 2000), rng.uniform(0.2, 0.4, 2000)
    rule = FlipRule(1e-30, -100, 10)  # nothing blocks so near b = c, nothing passes 100 short
    found = resolve_chance(broke, fixed, rule)
    assert (found.block, found.passes) == _stacked_chance(broke, fixed, rule) == (0.0, 0.0)
    assert found.method == "normal"


def test_the_runs_are_read_once_an_arm_whatever_the_plans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fourteen plans priced from one reading of each arm's usage, and each distinct rate's
    majority chance found once a plan (not once a case)."""
    from flipgate.core.gate import rerun_price

    rng = np.random.default_rng(5)
    suite = [f"c{i}" for i in range(60)]
    base = load_run(write_run(tmp_path / "b", _random_arm(rng, suite, tokens=True)))
    cand = load_run(write_run(tmp_path / "c", _random_arm(rng, suite, tokens=True)))
    comparison = compare(base, cand, default_spec())
    reads: list[str] = []
    sizes: list[int] = []
    usage, majority = rerun_price.arm_usage, rerun_price.majority_passes

    def counted_usage(run: Run, cases: Sequence[str]) -> dict[str, float | None]:
        reads.append(run.run_id)
        return usage(run, cases)

    def counted_majority(rate: np.ndarray, runs: int) -> np.ndarray:
        sizes.append(len(rate))
        return majority(rate, runs)

    monkeypatch.setattr(rerun_price, "arm_usage", counted_usage)
    monkeypatch.setattr(rerun_price, "majority_passes", counted_majority)
    priced = price({"baseline": base, "candidate": cand}, comparison.cases, suite, 4, RULE, 1.0)
    assert priced.cheapest is None  # no plan reaches a certainty: every plan was priced
    assert sorted(reads) == ["b", "c"]
    distinct = max(len(set(priced.rates[arm].to_list())) for arm in ("baseline", "candidate"))
    assert len(sizes) == 2 * 14 and max(sizes) <= distinct < len(suite)
