"""Does the gate keep its promise? A Monte Carlo simulator of run pairs, every path to BLOCK.

    uv run python bench/simulate_gate.py [--sims 4000] [--budget-sims 1000] [--seed 13]

Each simulated pair: per-case pass rates drawn around a 92% suite (80% easy, 15% hard, 5% flaky
near a coin flip), three repetitions per case and arm with 1-3% infra failures, each case collapsed
by the gate's majority (a tie fails; no gradable repetition: unpaired). With templates, cases are
cloned ten to a template and each run draws one shock per template (logit scale, sd 2), so clones
pass and fail together; with no change the two arms draw their shocks independently, as two runs
of the same system would.

Part 1 puts pairs with no change through every path to BLOCK (issue 27's table), under the new
rules (`looks: spend`, clusters counted by template, limits and budgets tested against noise) and
under the old ones beside them, and prints each false-BLOCK rate with its Monte Carlo standard
error, sqrt(p (1 - p) / sims). Part 2 checks the power of power.py against simulated regressions.

The paths the gate does not apply yet (the looks' boundaries, the outcome limit's sign-flip test,
the budgets' permutation test) are simulated here by calling their functions directly
(`looks.Looks.boundary`, `excess.excess_test`, `excess.budget_noise`), the same functions the gate
will call.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from flipgate.core.gate.excess import budget_noise, excess_test
from flipgate.core.gate.looks import PLAIN, SPEND, Looks
from flipgate.core.gate.mcnemar import FlipTest
from flipgate.core.gate.power import FlipRule, critical_flips, verdict_chances
from flipgate.core.gate.stats import sign_flip_p

ALPHA = 0.05
FULL, SMOKE = (2, 10), (1, 4)  # (margin, flip cap) of the default sets
SIZES = (50, 200, 1000)
SMOKE_CASES = 40
REGRESSIONS = (1.0, 2.0, 3.0, 5.0)
REPS, RERUN_REPS = 3, 5
TEMPLATE_SIZE, SHOCK_SD = 10, 2.0
BROKEN_RATE = 0.05  # a broken case's per-repetition pass rate
BUDGET = 0.10  # the latency budget: p95 at most 10% above the baseline's


# --------------------------------------------------------------------------- the suite and its runs


@dataclass(frozen=True)
class Suite:
    """`sims` suites of `n` cases: per-case pass rates, template ids (None: independent)."""

    rates: np.ndarray  # sims x n
    templates: np.ndarray | None  # n template ids, or None

    @property
    def n(self) -> int:
        return int(self.rates.shape[1])

    def clusters(self) -> np.ndarray:
        """Each case's cluster: its template, or itself."""
        return self.templates if self.templates is not None else np.arange(self.n)


def suite(rng: np.random.Generator, sims: int, n: int, cloned: bool) -> Suite:
    kind = rng.random((sims, n))
    easy, hard = rng.beta(60, 1.2, (sims, n)), rng.beta(1.2, 3, (sims, n))
    flaky = rng.uniform(0.35, 0.75, (sims, n))
    rates = np.where(kind < 0.80, easy, np.where(kind < 0.95, hard, flaky))
    return Suite(rates, np.arange(n) // TEMPLATE_SIZE if cloned else None)


def shocked(rng: np.random.Generator, s: Suite, rates: np.ndarray) -> np.ndarray:
    """One run's per-case rates: a shock per template (none without templates)."""
    if s.templates is None:
        return rates
    shock = rng.normal(0, SHOCK_SD, (rates.shape[0], int(s.templates.max()) + 1))[:, s.templates]
    logit = np.log(rates / (1 - rates))
    return np.asarray(1 / (1 + np.exp(-(logit + shock))))


def collapse(rng: np.random.Generator, rates: np.ndarray, reps: int = REPS) -> np.ndarray:
    """Collapsed verdicts: 1 pass, 0 fail, -1 no gradable repetition (1-3% infra per arm)."""
    sims, n = rates.shape
    infra = rng.random((sims, n, reps)) < rng.uniform(0.01, 0.03, (sims, 1, 1))
    passed = rng.random((sims, n, reps)) < rates[:, :, None]
    gradable = (~infra).sum(axis=2)
    passes = (passed & ~infra).sum(axis=2)
    return np.where(gradable == 0, -1, (2 * passes > gradable).astype(np.int8))


def run(rng: np.random.Generator, s: Suite, rates: np.ndarray, reps: int = REPS) -> np.ndarray:
    return collapse(rng, shocked(rng, s, rates), reps)


# --------------------------------------------------------------------------- the flip rule


def cells(base: np.ndarray, cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(broke, fixed) per case: boolean sims x n."""
    paired = (base >= 0) & (cand >= 0)
    return (base == 1) & (cand == 0) & paired, (base == 0) & (cand == 1) & paired


def blocks(
    broke: np.ndarray,
    fixed: np.ndarray,
    boundary: float,
    clusters: np.ndarray | None,
    test: FlipTest = "exact",
) -> np.ndarray:
    """Whether the significance rule blocks each simulation: by case (McNemar's critical count)
    or, given each case's cluster, by the sign-flip test on the clusters' nets."""
    b, c = broke.sum(axis=1), fixed.sum(axis=1)
    if clusters is None:
        crit = np.array(critical_flips(0, int((b + c).max()), boundary, test))
        return np.asarray(b >= crit[b + c])
    nets = np.zeros((len(b), int(clusters.max()) + 1), dtype=np.int64)
    np.add.at(nets.T, clusters, (broke.astype(np.int64) - fixed).T)
    return np.array([sign_flip_p([int(d) for d in row if d], test) <= boundary for row in nets])


def undecided(broke: np.ndarray, fixed: np.ndarray, rule: tuple[int, int]) -> np.ndarray:
    """Beyond the margin or the flip cap: INCONCLUSIVE where the test did not block."""
    b, c = broke.sum(axis=1), fixed.sum(axis=1)
    return np.asarray((b - c > rule[0]) | (b > rule[1]))


@dataclass(frozen=True)
class Rules:
    """The rules a path is judged by: the new defaults, or the old ones."""

    looks: Looks
    by_template: bool

    def clusters(self, s: Suite) -> np.ndarray | None:
        return s.templates if self.by_template and s.templates is not None else None


NEW, OLD = Rules(SPEND, True), Rules(PLAIN, False)
PLAIN_BY_TEMPLATE = Rules(PLAIN, True)  # `looks: {rule: plain}` with the default clusters


def one_look(rng: np.random.Generator, s: Suite, rules: Rules, test: FlipTest) -> np.ndarray:
    broke, fixed = cells(run(rng, s, s.rates), run(rng, s, s.rates))
    return blocks(broke, fixed, rules.looks.boundary(ALPHA, 1), rules.clusters(s), test)


def rerun(
    rng: np.random.Generator,
    s: Suite,
    rules: Rules,
    base: np.ndarray,
    cand: np.ndarray,
    look: int,
) -> np.ndarray:
    """Looks `look` and on: BLOCK now, or INCONCLUSIVE and then BLOCK on the rerun of every
    flipped case (both arms, RERUN_REPS repetitions, the same rule again)."""
    clusters = rules.clusters(s)
    broke, fixed = cells(base, cand)
    blocked = blocks(broke, fixed, rules.looks.boundary(ALPHA, look), clusters)
    again = ~blocked & undecided(broke, fixed, FULL)
    flipped = broke | fixed
    base2, cand2 = base.copy(), cand.copy()
    fresh_base, fresh_cand = (run(rng, s, s.rates, RERUN_REPS) for _ in range(2))
    base2[flipped], cand2[flipped] = fresh_base[flipped], fresh_cand[flipped]
    broke2, fixed2 = cells(base2, cand2)
    late = blocks(broke2, fixed2, rules.looks.boundary(ALPHA, look + 1), clusters)
    return np.asarray(blocked | (again & late))


def escalation(rng: np.random.Generator, s: Suite, rules: Rules) -> np.ndarray:
    return rerun(rng, s, rules, run(rng, s, s.rates), run(rng, s, s.rates), 1)


def smoke_then_full(rng: np.random.Generator, s: Suite, rules: Rules) -> np.ndarray:
    """The smoke set (the first 40 cases) at look 1; INCONCLUSIVE: the full set run at look 2,
    and its own rerun at look 3."""
    smoke = Suite(
        s.rates[:, :SMOKE_CASES], None if s.templates is None else s.templates[:SMOKE_CASES]
    )
    broke, fixed = cells(run(rng, smoke, smoke.rates), run(rng, smoke, smoke.rates))
    first = blocks(broke, fixed, rules.looks.boundary(ALPHA, 1), rules.clusters(smoke))
    onward = ~first & undecided(broke, fixed, SMOKE)
    later = rerun(rng, s, rules, run(rng, s, s.rates), run(rng, s, s.rates), 2)
    return np.asarray(first | (onward & later))


# --------------------------------------------------------------------------- outcome limits


def false_negatives(rng: np.random.Generator, s: Suite) -> tuple[np.ndarray, np.ndarray]:
    """Per arm, each case's false negatives per repetition (sims x n x reps, -1 on an infra
    repetition): violations present on 0, 1 or 2 rules, each missed with the case's rate, the
    rate shocked per template and run as the pass rates are."""
    sims, n = s.rates.shape
    positives = rng.choice([0, 1, 2], size=(sims, n), p=[0.7, 0.25, 0.05])
    kind = rng.random((sims, n))
    miss = np.where(
        kind < 0.6,
        0.02,
        np.where(kind < 0.9, rng.uniform(0.05, 0.3, (sims, n)), rng.uniform(0.3, 0.8, (sims, n))),
    )
    arms = []
    for _ in range(2):
        rate = shocked(rng, s, miss)
        counts = rng.binomial(positives[:, :, None], rate[:, :, None], (sims, n, REPS))
        infra = rng.random((sims, n, REPS)) < rng.uniform(0.01, 0.03, (sims, 1, 1))
        arms.append(np.where(infra, -1, counts))
    return arms[0], arms[1]


def matched(arm: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each case's count over its first `keep` gradable repetitions."""
    gradable = arm >= 0
    order = np.cumsum(gradable, axis=2) - 1
    return np.asarray(np.where(gradable & (order < keep[:, :, None]), arm, 0).sum(axis=2))


def fn_limit(rng: np.random.Generator, s: Suite, rules: Rules) -> np.ndarray:
    """`false_negative_max: baseline`. Old: more false negatives than the baseline blocks. New:
    the excess on matched repetitions blocks beyond noise (the sign-flip test at alpha)."""
    base, cand = false_negatives(rng, s)
    if rules is OLD:
        return np.asarray(
            np.where(cand >= 0, cand, 0).sum((1, 2)) > np.where(base >= 0, base, 0).sum((1, 2))
        )
    keep = np.minimum((base >= 0).sum(axis=2), (cand >= 0).sum(axis=2))
    diff = matched(cand, keep) - matched(base, keep)
    clusters = s.clusters()
    per = np.zeros((len(diff), int(clusters.max()) + 1), dtype=np.int64)
    np.add.at(per.T, clusters, diff.T)
    return np.array([excess_test([int(d) for d in row if d], ALPHA)[0] <= ALPHA for row in per])


# --------------------------------------------------------------------------- budgets


def latencies(rng: np.random.Generator, s: Suite) -> tuple[np.ndarray, np.ndarray]:
    """Per arm, log-normal latencies (sims x n x reps): a case's own level, a template shock per
    run, and each repetition's noise."""
    sims, n = s.rates.shape
    level = rng.normal(6.8, 0.6, (sims, n))
    arms = []
    for _ in range(2):
        shock = 0.0
        if s.templates is not None:
            shock = rng.normal(0, 0.3, (sims, int(s.templates.max()) + 1))[:, s.templates]
        arms.append(
            np.exp(
                level[:, :, None]
                + np.asarray(shock)[..., None]
                + rng.normal(0, 0.35, (sims, n, REPS))
            )
        )
    return arms[0], arms[1]


def p95_budget(
    rng: np.random.Generator, s: Suite, rules: Rules, increase: float, sims: int
) -> np.ndarray:
    """`latency_ms: {stat: p95, max_increase: increase}`. Old: the candidate's p95 above the
    baseline's raised by the budget. New: above it beyond noise (the paired permutation test)."""
    base, cand = latencies(rng, Suite(s.rates[:sims], s.templates))
    limit = 1 + increase
    if rules is OLD:
        flat = base.shape[0], -1
        ratio = np.quantile(cand.reshape(flat), 0.95, axis=1) / np.quantile(
            base.reshape(flat), 0.95, axis=1
        )
        return np.asarray(ratio > limit)
    ids = np.repeat(s.clusters(), REPS)
    k = int(ids.max()) + 1
    return np.array(
        [
            budget_noise((b.ravel(), ids), (c.ravel(), ids), k, "p95", ALPHA).beyond(increase)
            for b, c in zip(base, cand, strict=True)
        ]
    )


# --------------------------------------------------------------------------- the tables


def rate(hits: np.ndarray) -> str:
    p = float(hits.mean())
    return f"{p:.3f} ± {math.sqrt(p * (1 - p) / len(hits)):.3f}"


def no_change(rng: np.random.Generator, sims: int, boot: int) -> None:
    paths: list[tuple[str, Callable[[Suite, Rules], np.ndarray]]] = [
        ("one look", lambda s, r: one_look(rng, s, r, "exact")),
        ("one look, mid-p", lambda s, r: one_look(rng, s, r, "mid_p")),
        ("INCONCLUSIVE, rerun", lambda s, r: escalation(rng, s, r)),
        ("smoke, full, rerun", lambda s, r: smoke_then_full(rng, s, r)),
        ("FN limit", lambda s, r: fn_limit(rng, s, r)),
        ("p95 +10%", lambda s, r: p95_budget(rng, s, r, BUDGET, boot)),
        ("p95 +0%", lambda s, r: p95_budget(rng, s, r, 0.0, boot)),
    ]
    for title, rules in (("new rules", NEW), ("old rules", OLD)):
        print(f"## no change: false BLOCK, {title}\n")
        print("| cases | templates | " + " | ".join(name for name, _ in paths) + " |")
        print("|---:|---|" + "---:|" * len(paths))
        for n in SIZES:
            for cloned in (False, True):
                s = suite(rng, sims, n, cloned)
                row = [
                    "" if name.startswith("smoke") and n <= SMOKE_CASES else rate(path(s, rules))
                    for name, path in paths
                ]
                print(
                    f"| {n:,} | {'10 a template' if cloned else 'none'} | " + " | ".join(row) + " |"
                )
        print()


def plain_looks(rng: np.random.Generator, sims: int) -> None:
    """Seed 001's plain rule (alpha at every look) as `looks: {rule: plain}` keeps it, templates
    counted once: the rate looks.PLAIN_FALSE_BLOCK reports."""
    print("## no change: false BLOCK over the escalation, `looks: {rule: plain}`\n")
    print("| cases | templates | one look | INCONCLUSIVE, rerun | smoke, full, rerun |")
    print("|---:|---|---:|---:|---:|")
    for n in SIZES:
        for cloned in (False, True):
            s = suite(rng, sims, n, cloned)
            row = [
                rate(one_look(rng, s, PLAIN_BY_TEMPLATE, "exact")),
                rate(escalation(rng, s, PLAIN_BY_TEMPLATE)),
                rate(smoke_then_full(rng, s, PLAIN_BY_TEMPLATE)),
            ]
            label = "10 a template" if cloned else "none"
            print(f"| {n:,} | {label} | " + " | ".join(row) + " |")
    print()


def regressed(
    rng: np.random.Generator, s: Suite, points: float, whole_templates: bool
) -> np.ndarray:
    """The candidate's rates: a random share of cases (or of whole templates) broken, dropping
    the expected pass rate by `points`."""

    def majority(p: np.ndarray) -> np.ndarray:
        return p**3 + 3 * p**2 * (1 - p)

    rates = s.rates
    drop = (majority(rates) - majority(np.full_like(rates, BROKEN_RATE))).mean()
    share = min(points / 100 / drop, 1.0)
    if whole_templates and s.templates is not None:
        hit = rng.random((rates.shape[0], int(s.templates.max()) + 1)) < share
        broken = hit[:, s.templates]
    else:
        broken = rng.random(rates.shape) < share
    return np.where(broken, BROKEN_RATE, rates)


def power(rng: np.random.Generator, sims: int) -> None:
    """Simulated P(BLOCK) at the first look against power.py's, at the null's flip share and the
    simulated effect; with templates, on the design effect measured with no change, for a
    regression that breaks single cases and one that breaks whole templates."""
    boundary = SPEND.boundary(ALPHA, 1)
    rule = FlipRule(boundary, *FULL)
    print(f"## power: P(BLOCK) at the first look (p <= {boundary}), simulated / computed\n")
    print(
        "| cases | templates | a regression breaks | noise | design effect | "
        + " | ".join(f"-{d:g} pts" for d in REGRESSIONS)
        + " |"
    )
    print("|---:|---|---|---:|---:|" + "---:|" * len(REGRESSIONS))
    for n in SIZES:
        for cloned, whole in ((False, False), (True, False), (True, True)):
            s = suite(rng, sims, n, cloned)
            base = run(rng, s, s.rates)
            broke, fixed = cells(base, run(rng, s, s.rates))
            flips = broke.sum(1) + fixed.sum(1)
            paired = float(((base >= 0).sum(1)).mean())
            noise = float((flips / paired).mean())
            design = 1.0
            if s.templates is not None:
                nets = np.zeros((sims, int(s.templates.max()) + 1))
                np.add.at(nets.T, s.templates, (broke.astype(int) - fixed).T)
                design = max(1.0, float((nets**2).sum(1).sum() / max(flips.sum(), 1)))
            found = []
            for d in REGRESSIONS:
                cand = run(rng, s, regressed(rng, s, d, whole))
                broke, fixed = cells(base, cand)
                effect = float(((broke.sum(1) - fixed.sum(1)) / paired).mean()) * 100
                got = blocks(broke, fixed, boundary, s.templates)
                computed = verdict_chances(round(paired), noise, effect, rule, design).block
                p = float(got.mean())
                se = math.sqrt(p * (1 - p) / sims)
                flag = "" if abs(p - computed) <= 3 * se + 0.005 else " (!)"
                found.append(f"{p:.3f} ± {se:.3f} / {computed:.3f}{flag}")
            label = "10 a template" if cloned else "none"
            hits = "whole templates" if whole else "single cases"
            print(
                f"| {n:,} | {label} | {hits} | {noise:.3f} | {design:.2f} | "
                + " | ".join(found)
                + " |"
            )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=4000)
    parser.add_argument("--budget-sims", type=int, default=1000, help="for the budgets' paths")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--part", choices=("all", "null", "plain", "power"), default="all")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    boot = min(args.sims, args.budget_sims)
    print(
        f"{args.sims:,} simulated run pairs per cell ({boot:,} for the budgets), seed {args.seed}, alpha {ALPHA}\n"
    )
    if args.part in ("all", "null"):
        no_change(rng, args.sims, boot)
    if args.part in ("all", "plain"):
        plain_looks(rng, args.sims)
    if args.part in ("all", "power"):
        power(rng, args.sims)


if __name__ == "__main__":
    main()
