"""Does `outcomes.limits.mirror_approved_max: baseline` keep its level? A Monte Carlo simulator.

    uv run python bench/simulate_mirror.py [--sims 2000] [--seed 31]

Run pairs with no change, drawn by bench/simulate_gate.py's model (three repetitions, 1-3% infra;
with templates, ten cases to one and a shock per template and run), labelled on four rules: a
case's item on a rule is borderline (expected: escalate) with chance 0.1, and a model approves a
borderline item with confidence (decides the negative label, a "mirror approved") with the case's
rate, 2% for most items, 5-30% for some and 30-80% for a few, the same rate in both arms. The
limit decides two ways at the first look (0.025 of alpha 0.05):

    count      the rule as it was: BLOCK when on any rule the candidate has more confident
               approvals of borderline items than the baseline
    tested     each rule's excess over the baseline on matched repetitions, the sign-flip test
               of excess.py (`excess_test`, the false-negative limit's), one path per rule in the
               gate's Holm family with the flips (`family.holm_blocks` at 0.025)

and, for `tested`, the same with the flips' p left out (the limit's own share). Each rate with its
Monte Carlo standard error.
"""

from __future__ import annotations

import argparse

import numpy as np
from simulate_family import flips_p, per_cluster, rate
from simulate_gate import REPS, Suite, matched, shocked, suite

from flipgate.core.gate.excess import excess_test
from flipgate.core.gate.family import holm_blocks

ALPHA, FIRST_LOOK = 0.05, 0.025
RULES = 4
BORDERLINE = 0.1  # the chance that a case's item on a rule is borderline


def approvals(rng: np.random.Generator, s: Suite) -> tuple[np.ndarray, np.ndarray]:
    """Per arm, the confident approvals of borderline items: sims x n x rules x reps, -1 on an
    infra repetition (the whole repetition, every rule)."""
    sims, n = s.rates.shape
    borderline = rng.random((sims, n, RULES)) < BORDERLINE
    kind = rng.random((sims, n, RULES))
    approve = np.where(
        kind < 0.6,
        0.02,
        np.where(
            kind < 0.9,
            rng.uniform(0.05, 0.3, (sims, n, RULES)),
            rng.uniform(0.3, 0.8, (sims, n, RULES)),
        ),
    )
    arms = []
    for _ in range(2):
        shocks = np.stack([shocked(rng, s, approve[:, :, r]) for r in range(RULES)], axis=2)
        said = borderline[..., None] & (rng.random((sims, n, RULES, REPS)) < shocks[..., None])
        infra = rng.random((sims, n, 1, REPS)) < rng.uniform(0.01, 0.03, (sims, 1, 1, 1))
        arms.append(np.where(infra, -1, said.astype(np.int64)))
    return arms[0], arms[1]


def limit_ps(base: np.ndarray, cand: np.ndarray, s: Suite) -> tuple[np.ndarray, np.ndarray]:
    """(count: whether any rule's candidate count is above the baseline's, the rules' sign-flip
    p values: sims x rules)."""
    whole = np.where(cand >= 0, cand, 0).sum(axis=3) > np.where(base >= 0, base, 0).sum(axis=3)
    ps = np.ones((base.shape[0], RULES))
    for r in range(RULES):
        b, c = base[:, :, r, :], cand[:, :, r, :]
        keep = np.minimum((b >= 0).sum(axis=2), (c >= 0).sum(axis=2))
        per = per_cluster(matched(c, keep) - matched(b, keep), s.clusters())
        ps[:, r] = [excess_test([int(d) for d in row if d], ALPHA)[0] for row in per]
    return whole.any(axis=1), ps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| cases | templates | count, limit alone | tested, limit alone | flips + tested, Holm |")
    print("|---:|---|---:|---:|---:|")
    for n in (50, 200, 1000):
        for cloned in (False, True):
            s = suite(rng, args.sims, n, cloned)
            count, ps = limit_ps(*approvals(rng, s), s)
            alone = np.array([any(holm_blocks(list(row), FIRST_LOOK)) for row in ps])
            table = np.column_stack([flips_p(rng, s), ps])
            holm = np.array([any(holm_blocks(list(row), FIRST_LOOK)) for row in table])
            print(
                f"| {n:,} | {'10 a template' if cloned else 'none'} | {rate(count)} | "
                f"{rate(alone)} | {rate(holm)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
