"""Does the whole gate keep alpha when it has several paths to BLOCK? A Monte Carlo simulator.

    uv run python bench/simulate_family.py [--sims 1000] [--synthetic 200000] [--seed 29]

Part 1: run pairs with no change, drawn by bench/simulate_gate.py's model (a 92% suite, three
repetitions, 1-3% infra; with templates, ten cases to one and a shock per template and run),
through the paths the sample gates configure, each path's p computed by the gate's own functions
(McNemar's or the sign-flip test on the flips, `excess.excess_test` on the false negatives,
`excess.budget_noise` on each relative budget, 2,000 swaps), and the gate's BLOCK decided two
ways at the first look (boundary 0.025 of alpha 0.05):

    per path   the old rule, `family: per_path`: the flips at 0.025, each other path at 0.05
    Holm       `family: holm`, the default: `family.holm_blocks` over the paths at 0.025

The gates: flips + the false-negative limit (listing-reviewer, support-assistant); flips + a p95
latency and a total-tokens budget, each +10% (agent-suite); and the same with +0% budgets and the
limit, four paths each near its own level (the hardest case for the old rule).

Part 2: synthetic p values, each exactly uniform under no change (a test at exactly its level),
m = 2, 3, 4 paths, independent or positively dependent (a Gaussian copula with correlation rho),
through the same two rules. Each rate with its Monte Carlo standard error.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

import numpy as np
from simulate_gate import (
    REPS,
    Suite,
    cells,
    false_negatives,
    latencies,
    matched,
    run,
    suite,
)

from flipgate.core.gate.excess import budget_noise, excess_test
from flipgate.core.gate.family import holm_blocks
from flipgate.core.gate.mcnemar import flip_p
from flipgate.core.gate.stats import sign_flip_p
from flipgate.core.vocab import Statistic

ALPHA, FIRST_LOOK = 0.05, 0.025
GATES = {  # name -> (the false-negative limit, the relative budgets' max_increase)
    "flips + FN limit": (True, ()),
    "flips + p95 and total +10%": (False, (0.10, 0.10)),
    "flips + FN + p95 and total +0%": (True, (0.0, 0.0)),
}


def per_cluster(values: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    out = np.zeros((len(values), int(clusters.max()) + 1), dtype=np.int64)
    np.add.at(out.T, clusters, values.T.astype(np.int64))
    return out


def flips_p(rng: np.random.Generator, s: Suite) -> np.ndarray:
    broke, fixed = cells(run(rng, s, s.rates), run(rng, s, s.rates))
    if s.templates is None:
        counts = zip(broke.sum(1), fixed.sum(1), strict=True)
        return np.array([flip_p(int(b), int(c)) for b, c in counts])
    nets = per_cluster(broke.astype(np.int64) - fixed, s.templates)
    return np.array([sign_flip_p([int(d) for d in row if d]) for row in nets])


def false_negatives_p(rng: np.random.Generator, s: Suite) -> np.ndarray:
    base, cand = false_negatives(rng, s)
    keep = np.minimum((base >= 0).sum(axis=2), (cand >= 0).sum(axis=2))
    per = per_cluster(matched(cand, keep) - matched(base, keep), s.clusters())
    return np.array([excess_test([int(d) for d in row if d], ALPHA)[0] for row in per])


def budget_p(rng: np.random.Generator, s: Suite, stat: Statistic, increase: float) -> np.ndarray:
    base, cand = latencies(rng, s)
    ids = np.repeat(s.clusters(), REPS)
    k = int(ids.max()) + 1
    return np.array(
        [
            budget_noise((b.ravel(), ids), (c.ravel(), ids), k, stat, ALPHA).p(increase)
            for b, c in zip(base, cand, strict=True)
        ]
    )


def rate(hits: np.ndarray) -> str:
    p = float(hits.mean())
    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / len(hits)):.3f}"


def gates(rng: np.random.Generator, sims: int) -> None:
    print("## Part 1: no change, the sample gates' paths, first look (0.025 of alpha 0.05)\n")
    print("| gate | cases | templates | flips alone | per path | Holm |")
    print("|---|---:|---|---:|---:|---:|")
    for name, (fn, budgets) in GATES.items():
        for n in (50, 200):
            for cloned in (False, True):
                s = suite(rng, sims, n, cloned)
                ps = [flips_p(rng, s)]
                if fn:
                    ps.append(false_negatives_p(rng, s))
                stats: tuple[Statistic, ...] = ("p95", "total")
                for stat, increase in zip(stats, budgets, strict=False):
                    ps.append(budget_p(rng, s, stat, increase))
                table = np.column_stack(ps)
                own = np.array([FIRST_LOOK] + [ALPHA] * (len(ps) - 1))
                alone = np.asarray(table[:, 0] <= FIRST_LOOK)
                per_path = np.asarray((table <= own).any(axis=1))
                holm = np.array([any(holm_blocks(list(row), FIRST_LOOK)) for row in table])
                print(
                    f"| {name} | {n:,} | {'10 a template' if cloned else 'none'} | "
                    f"{rate(alone)} | {rate(per_path)} | {rate(holm)} |",
                    flush=True,
                )
    print()


def synthetic(rng: np.random.Generator, sims: int) -> None:
    print("## Part 2: synthetic paths, each exactly at its level, first look\n")
    print("| paths | correlation | per path | Holm |")
    print("|---:|---:|---:|---:|")
    normal = NormalDist()
    for m in (2, 3, 4):
        for rho in (0.0, 0.5, 0.9):
            cov = np.full((m, m), rho) + (1 - rho) * np.eye(m)
            z = rng.multivariate_normal(np.zeros(m), cov, size=sims)
            p = np.vectorize(normal.cdf)(z)
            own = np.array([FIRST_LOOK] + [ALPHA] * (m - 1))
            per_path = (p <= own).any(axis=1)
            # Holm blocks anything exactly when the smallest p is at or below level / m; checked
            # against the procedure itself on the first thousand draws
            holm = p.min(axis=1) <= FIRST_LOOK / m
            check = [any(holm_blocks(list(row), FIRST_LOOK)) for row in p[:1000]]
            assert check == list(holm[:1000])
            print(f"| {m} | {rho:.1f} | {rate(per_path)} | {rate(holm)} |", flush=True)
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=1000)
    parser.add_argument("--synthetic", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--part", choices=("all", "gates", "synthetic"), default="all")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    if args.part in ("all", "synthetic"):
        synthetic(rng, args.synthetic)
    if args.part in ("all", "gates"):
        gates(rng, args.sims)


if __name__ == "__main__":
    main()
