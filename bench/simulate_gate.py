"""Does the gate keep its promise? A Monte Carlo simulator of null and regressed run pairs.

    uv run python bench/simulate_gate.py [--sims 2000] [--seed 13]

Each simulated pair: per-case pass rates drawn around a 92% suite (most cases easy, some hard,
5% flaky near a coin flip), three repetitions per case and arm with 1-3% infra failures, each case
collapsed by the gate's majority (a tie fails; no gradable repetition: unpaired), then the
default gate's flip rule (alpha 0.05, margin 2, flip cap 10). A regression of d points breaks a
random share of cases in the candidate, sized so that the expected collapsed pass rate drops by
d points. Every figure has its Monte Carlo standard error, sqrt(p (1 - p) / sims).

It prints, per suite size (50, 200, 1,000 cases): the false-BLOCK and false-INCONCLUSIVE rates
with no change, the simulated power at 1, 2, 3 and 5 points beside the power computed exactly by
`flipgate.core.gate.stats.verdict_chances` at the simulation's mean flip share and effect; and,
with cases cloned from templates (20 templates of 10, a shared per-template shock in each arm),
the per-case test's false-BLOCK rate beside the per-template sign-flip test's.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

import numpy as np

from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.stats import FlipRule, critical_flips, sign_flip_p, verdict_chances

RULE = FlipRule(alpha=0.05, margin=2, flip_cap=10)
SIZES = (50, 200, 1000)
REGRESSIONS = (1.0, 2.0, 3.0, 5.0)
REPS = 3
BROKEN_RATE = 0.05  # a broken case's per-repetition pass rate


def case_rates(rng: np.random.Generator, sims: int, n: int) -> np.ndarray:
    """Per-case pass rates around a 92% suite: 80% easy, 15% hard, 5% flaky."""
    kind = rng.random((sims, n))
    easy = rng.beta(60, 1.2, (sims, n))
    hard = rng.beta(1.2, 3, (sims, n))
    flaky = rng.uniform(0.35, 0.75, (sims, n))
    return np.where(kind < 0.80, easy, np.where(kind < 0.95, hard, flaky))


def majority(p: np.ndarray) -> np.ndarray:
    return p**3 + 3 * p**2 * (1 - p)


def collapse(rng: np.random.Generator, rates: np.ndarray) -> np.ndarray:
    """Collapsed verdicts: 1 pass, 0 fail, -1 no gradable repetition (1-3% infra per arm)."""
    sims, n = rates.shape
    infra_share = rng.uniform(0.01, 0.03, (sims, 1, 1))
    infra = rng.random((sims, n, REPS)) < infra_share
    passed = rng.random((sims, n, REPS)) < rates[:, :, None]
    gradable = (~infra).sum(axis=2)
    passes = (passed & ~infra).sum(axis=2)
    return np.where(gradable == 0, -1, (2 * passes > gradable).astype(np.int8))


def verdicts(base: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(verdict codes 0 PASS / 1 BLOCK / 2 INCONCLUSIVE, b, c) per simulation."""
    paired = (base >= 0) & (cand >= 0)
    b = ((base == 1) & (cand == 0) & paired).sum(axis=1)
    c = ((base == 0) & (cand == 1) & paired).sum(axis=1)
    k = b + c
    crit = np.array(critical_flips(0, int(k.max()), RULE.alpha))[k]
    block = b >= crit
    passes = ~block & (b - c <= RULE.margin) & (b <= RULE.flip_cap)
    return np.where(block, 1, np.where(passes, 0, 2)), b, c


def regressed(rng: np.random.Generator, rates: np.ndarray, points: float) -> np.ndarray:
    """The candidate's rates: a random share of cases broken, dropping the pass rate by `points`."""
    drop = (majority(rates) - majority(np.full_like(rates, BROKEN_RATE))).mean()
    share = min(points / 100 / drop, 1.0)
    broken = rng.random(rates.shape) < share
    return np.where(broken, BROKEN_RATE, rates)


def rate(hits: np.ndarray) -> tuple[float, float]:
    p = float(hits.mean())
    return p, math.sqrt(p * (1 - p) / len(hits))


def show(label: str, value: tuple[float, float]) -> str:
    return f"{label} {value[0]:.3f} ± {value[1]:.3f}"


def independent(rng: np.random.Generator, sims: int) -> None:
    print("## independent cases, default gate (alpha 0.05, margin 2, flip cap 10)\n")
    print("| cases | no change: false BLOCK | no change: false INCONCLUSIVE | "
          + " | ".join(f"-{d:g} pts: simulated / computed" for d in REGRESSIONS) + " |")  # fmt: skip
    print("|---:|---:|---:|" + "---:|" * len(REGRESSIONS))
    for n in SIZES:
        rates = case_rates(rng, sims, n)
        base = collapse(rng, rates)
        null, _, _ = verdicts(base, collapse(rng, rates))
        cells = [show("", rate(null == 1)), show("", rate(null == 2))]
        for d in REGRESSIONS:
            cand = collapse(rng, regressed(rng, rates, d))
            got, b, c = verdicts(base, cand)
            paired = ((base >= 0) & (cand >= 0)).sum(axis=1)
            share = float(((b + c) / paired).mean())
            effect = float(((b - c) / paired).mean()) * 100
            computed = verdict_chances(round(paired.mean()), share, effect, RULE).block
            simulated = rate(got == 1)
            agree = abs(simulated[0] - computed) <= 3 * simulated[1] + 0.005
            cells.append(
                f"{simulated[0]:.3f} ± {simulated[1]:.3f} / {computed:.3f}"
                + ("" if agree else " (!)")
            )
        print(f"| {n:,} | " + " | ".join(c.strip() for c in cells) + " |")
    print()


def clustered(rng: np.random.Generator, sims: int, templates: int = 20, size: int = 10) -> None:
    """No change, cases cloned from templates: each arm draws one shock per template."""
    n = templates * size
    base_rates = case_rates(rng, sims, n)
    logit = np.log(base_rates / (1 - base_rates))
    normal = NormalDist()

    def arm() -> np.ndarray:
        shock = np.repeat(rng.normal(0, 2.0, (sims, templates)), size, axis=1)
        return collapse(rng, 1 / (1 + np.exp(-(logit + shock))))

    base, cand = arm(), arm()
    _, b, c = verdicts(base, cand)
    by_case = np.array([mcnemar_p(int(x), int(y)) <= RULE.alpha for x, y in zip(b, c, strict=True)])
    template = np.repeat(np.arange(templates), size)
    paired = (base >= 0) & (cand >= 0)
    broke = ((base == 1) & (cand == 0) & paired).astype(int)
    fixed = ((base == 0) & (cand == 1) & paired).astype(int)
    nets = np.stack([(broke - fixed)[:, template == t].sum(axis=1) for t in range(templates)], 1)
    by_template = np.array([sign_flip_p(list(map(int, row))) <= RULE.alpha for row in nets])
    # Durkalski et al. (2003): (sum d_k)^2 / sum d_k^2 against a chi-square, here one-sided.
    total, spread = nets.sum(axis=1), np.sqrt((nets**2).sum(axis=1))
    z = np.divide(total, spread, out=np.zeros(len(total)), where=spread > 0)
    durkalski = np.array([1 - normal.cdf(float(v)) <= RULE.alpha for v in z])
    print(f"## cloned cases: {templates} templates of {size}, no change\n")
    print("| test | false BLOCK (significance) |")
    print("|---|---:|")
    print(f"| per case (exact McNemar) | {show('', rate(by_case)).strip()} |")
    print(f"| per template (exact sign flip) | {show('', rate(by_template)).strip()} |")
    print(f"| per template (Durkalski 2003, normal) | {show('', rate(durkalski)).strip()} |")
    print(f"\nmean flips per run pair: {float((b + c).mean()):.1f}, alpha {RULE.alpha}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{args.sims:,} simulated run pairs per row, seed {args.seed}\n")
    independent(rng, args.sims)
    clustered(rng, args.sims)


if __name__ == "__main__":
    main()
