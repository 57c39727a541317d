"""Does the judge flip rate's interval keep its promise? (issue 23 item 2)

    uv run python bench/simulate_judge_rate.py [--sims 4000] [--through 100] [--seed 23]

The model: every stored output is judged `judgings` times; each judging, independently, gives the
output the other verdict with chance q. An output "flipped" when it got more than one verdict, so
its chance to flip is r = 1 - (1 - q)^k - q^k, and the count of flipped outputs among n is
Binomial(n, r). For each (n, k, q) the script draws `--sims` judge repeat sets with numpy and
reports how often the 95% interval flipgate prints (`core.gate.judge.clopper_pearson`) holds r,
with its Monte Carlo standard error; Clopper-Pearson promises at least 95% at every r and n.

`--through` of those sets per setting are also written as runs (the arm's run and its judging
passes, the same outputs) and put through `judge_repeats()`, the code `flipgate gate` runs on
`rejudged/`: its count of flipped outputs and its interval must equal numpy's count and scipy's
exact interval (`binomtest(...).proportion_ci(method="exact")`), every time.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from scipy.stats import binomtest

from flipgate.core.gate.binomial import clopper_pearson
from flipgate.core.gate.judge import judge_repeats
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import run_from_records

SETTINGS = [  # (outputs, judgings, q: the chance one judging gives the other verdict)
    (40, 2, 0.02),
    (40, 3, 0.10),
    (200, 2, 0.01),
    (200, 3, 0.05),
    (1000, 2, 0.005),
    (1000, 4, 0.10),
]
LEVEL = 0.95


def flip_chance(judgings: int, q: float) -> float:
    return 1 - (1 - q) ** judgings - q**judgings


def as_run(run_id: str, verdicts: np.ndarray) -> Run:
    """One judging of the outputs: each output its own case, its verdict as given."""
    rows = [
        {"case": f"o{i:04d}", "rep": 0, "passed": {"judged": bool(v)}, "output": f"answer {i}"}
        for i, v in enumerate(verdicts)
    ]
    head = {"run_id": run_id, "key": {"model": "m", "judge": "j"}}
    return run_from_records(head, rows, source=Path(f"/sim/{run_id}"))


def through_the_gate(verdicts: np.ndarray) -> tuple[int, int, float, float]:
    """`judge_repeats` on the judgings (rows: judgings, columns: outputs)."""
    run, *passes = (as_run(f"j{k}", row) for k, row in enumerate(verdicts))
    [rate] = judge_repeats("baseline", run, passes, default_spec()).rules
    return rate.flipped, rate.outputs, rate.low, rate.high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=4000)
    parser.add_argument("--through", type=int, default=100)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'n':>5} {'k':>2} {'q':>6} {'r':>7} {'coverage':>9} {'se':>6} {'agree':>7}")
    for n, k, q in SETTINGS:
        r = flip_chance(k, q)
        # verdict of judging j on output i: True (the usual verdict) unless this judging erred
        wrong = rng.random((args.sims, k, n)) < q
        flipped = (wrong.any(axis=1) & ~wrong.all(axis=1)).sum(axis=1)
        held = 0
        for count in flipped:
            low, high = clopper_pearson(int(count), n, LEVEL)
            held += low <= r <= high
        coverage = held / args.sims
        se = math.sqrt(coverage * (1 - coverage) / args.sims)
        agree = 0
        for s in range(min(args.through, args.sims)):
            count, outputs, low, high = through_the_gate(~wrong[s])
            exact = binomtest(int(flipped[s]), n).proportion_ci(LEVEL, method="exact")
            agree += (
                count == flipped[s]
                and outputs == n
                and math.isclose(low, exact.low, abs_tol=1e-9)
                and math.isclose(high, exact.high, abs_tol=1e-9)
            )
        through = min(args.through, args.sims)
        print(f"{n:>5} {k:>2} {q:>6.3f} {r:>7.4f} {coverage:>9.4f} {se:>6.4f} {agree:>3}/{through}")


if __name__ == "__main__":
    main()
