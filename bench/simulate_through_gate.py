"""The simulation's rules against the real gate: the same simulated run pairs through both.

    uv run python bench/simulate_through_gate.py [--sims 200] [--seed 29]

`bench/simulate_gate.py` applies the gate's rules to thousands of simulated run pairs with numpy,
calling the gate's own functions (`critical_flips`, `sign_flip_p`, `excess_test`, `budget_noise`)
on arrays: `flipgate gate` itself would take hours for that. This script checks that those fast
paths are the gate's rules: it draws run pairs with no change (the same suite, templates and
noise as simulate_gate.py, at 50 and 200 cases, with and without clones), writes each pair as
runs (a pass/fail check per repetition, a labelled rule whose false negatives do not fail a
repetition, `latency_ms`, 1-3% infra repetitions), puts it through `compare()` with a spec that
holds the default rules and a budget `latency_ms: {stat: p95, max_increase: 0}` (its edge, where
the permutation test decides about alpha of the time), and puts the
same arrays through the fast paths. It prints, per path, how often the two agree and the
false-BLOCK rate through the gate with its Monte Carlo standard error.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import numpy as np
from simulate_gate import ALPHA, REPS, Suite, blocks, cells, matched, shocked, suite

from flipgate.core.gate.compare import compare
from flipgate.core.gate.excess import budget_noise, excess_test
from flipgate.core.gate.looks import SPEND
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs.reading import run_from_records

BUDGET = 0.0  # at the budget's edge, where the test decides about alpha of the time
SPEC = (
    "outcomes: {fail_on: [false_positive]}  # a false negative is the limit's, not a flip\n"
    "budgets: {latency_ms: {stat: p95, max_increase: 0.0}}\n"
    # each path at its own level, as the fast paths decide them: the paths together, sharing
    # the look's boundary by Holm (the default), are bench/simulate_family.py's
    "family: per_path\n"
)


def arm(rng: np.random.Generator, s: Suite, miss: np.ndarray, level: np.ndarray) -> dict[str, Any]:
    """One run's repetitions: infra, passed, false negatives (of two labelled rules), latency."""
    sims, n = s.rates.shape
    shape = (sims, n, REPS)
    infra = rng.random(shape) < rng.uniform(0.01, 0.03, (sims, 1, 1))
    passed = rng.random(shape) < shocked(rng, s, s.rates)[:, :, None]
    missed = rng.binomial(2, shocked(rng, s, miss)[:, :, None], shape)
    shock = 0.0
    if s.templates is not None:
        shock = rng.normal(0, 0.3, (sims, int(s.templates.max()) + 1))[:, s.templates, None]
    latency = np.exp(level[:, :, None] + shock + rng.normal(0, 0.35, shape))
    return {"infra": infra, "passed": passed, "missed": missed, "latency": latency}


def rows(a: dict[str, Any], i: int, s: Suite) -> list[dict[str, Any]]:
    """Simulation `i` of an arm as a run's lines."""
    found = []
    for case in range(s.n):
        template = {} if s.templates is None else {"template": f"t{s.templates[case]:03d}"}
        for rep in range(REPS):
            line: dict[str, Any] = {"case": f"c{case:04d}", "rep": rep, **template}
            if a["infra"][i, case, rep]:
                line |= {"status": "infra", "infra": "timeout"}
            else:
                k = int(a["missed"][i, case, rep])
                line |= {
                    "passed": bool(a["passed"][i, case, rep]),
                    "expected": {"r1": "reject", "r2": "reject"},
                    "actual": {
                        "r1": "approve" if k > 0 else "reject",
                        "r2": "approve" if k > 1 else "reject",
                    },
                    "latency_ms": float(a["latency"][i, case, rep]),
                }
            found.append(line)
    return found


def fast(base: dict[str, Any], cand: dict[str, Any], s: Suite) -> dict[str, np.ndarray]:
    """The same decisions by simulate_gate.py's numpy paths."""
    clusters = s.clusters()
    collapsed = []
    for a in (base, cand):
        gradable = (~a["infra"]).sum(axis=2)
        passes = (a["passed"] & ~a["infra"]).sum(axis=2)
        collapsed.append(np.where(gradable == 0, -1, (2 * passes > gradable).astype(np.int8)))
    broke, fixed = cells(*collapsed)
    significance = blocks(broke, fixed, SPEND.boundary(ALPHA, 1), s.templates)
    keep = np.minimum(*((~a["infra"]).sum(axis=2) for a in (base, cand)))
    counts = [matched(np.where(a["infra"], -1, a["missed"]), keep) for a in (base, cand)]
    per = np.zeros((len(keep), int(clusters.max()) + 1), dtype=np.int64)
    np.add.at(per.T, clusters, (counts[1] - counts[0]).T)
    limit = np.array([excess_test([int(d) for d in r if d], ALPHA)[0] <= ALPHA for r in per])
    budget = []
    for i in range(len(keep)):
        paired = keep[i] > 0  # a case with no gradable repetition in an arm is unpaired
        ids = np.full(len(paired), -1)
        ids[paired] = np.unique(clusters[paired], return_inverse=True)[1]
        arms = []
        for a in (base, cand):
            ok = ~a["infra"][i] & paired[:, None]
            arms.append((a["latency"][i][ok], np.broadcast_to(ids[:, None], ok.shape)[ok]))
        k = int(ids.max()) + 1
        noise = budget_noise(arms[0], arms[1], k, "p95", ALPHA)
        budget.append(noise.beyond(BUDGET))
    return {"significance": significance, "FN limit": limit, "p95 +0%": np.array(budget)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    spec_path = Path(__file__).parent / "data" / "through-gate.yaml"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(SPEC)
    spec = load_spec(spec_path)
    manifest = {"key": {"model": "m"}}
    print(f"{args.sims} run pairs with no change per row, seed {args.seed}, alpha {ALPHA}\n")
    print("| cases | templates | path | agree | false BLOCK through the gate |")
    print("|---:|---|---|---:|---:|")
    for n in (50, 200):
        for cloned in (False, True):
            s = suite(rng, args.sims, n, cloned)
            miss = np.where(
                rng.random(s.rates.shape) < 0.7, 0.02, rng.uniform(0.05, 0.5, s.rates.shape)
            )
            level = rng.normal(6.8, 0.6, s.rates.shape)
            base, cand = arm(rng, s, miss, level), arm(rng, s, miss, level)
            want = fast(base, cand, s)
            got: dict[str, list[bool]] = {path: [] for path in want}
            for i in range(args.sims):
                result = compare(
                    run_from_records(
                        {"run_id": "b", **manifest}, rows(base, i, s), source=Path("b")
                    ),
                    run_from_records(
                        {"run_id": "c", **manifest}, rows(cand, i, s), source=Path("c")
                    ),
                    spec,
                ).result
                excess = result.false_negatives
                got["significance"].append(result.p <= result.blocks_at)
                got["FN limit"].append(excess is not None and excess.beyond_noise)
                got["p95 +0%"].append(result.budgets[0].exceeded)
            for path, fired in got.items():
                hits = np.array(fired)
                agree = int((hits == want[path]).sum())
                p = float(hits.mean())
                error = math.sqrt(p * (1 - p) / len(hits))
                label = "10 a template" if cloned else "none"
                print(
                    f"| {n} | {label} | {path} | {agree} of {len(hits)} | {p:.3f} ± {error:.3f} |"
                )


if __name__ == "__main__":
    main()
