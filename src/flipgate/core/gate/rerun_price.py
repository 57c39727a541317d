"""The rerun plan priced (issue 23 item 4): what it takes, and what it buys.

What it takes: every flipped case rerun on both arms with R repetitions (SPEC §3.6), so
2 x cases x R repetitions, and their tokens and cost from the runs' own usage fields (`tokens`,
`cost_usd`: our format's, Inspect's model usage, promptfoo's token usage): per case and arm, the
mean over its gradable repetitions, else the arm's mean; "unknown" (None) for an arm whose run
records none.

What it buys: the chance that the second look resolves the verdict (BLOCK or PASS, not
INCONCLUSIVE again) under the gate's rule, computed from a stated model:

- each repetition of a flipped case passes independently, in each arm, with the case's observed
  share of passing gradable repetitions in that arm shrunk by one pass and one fail,
  (k + 1) / (n + 2) (Laplace's rule: a single observed pass is not a certainty);
- a case rerun with R repetitions passes on a strict majority (a tie fails), as the gate
  collapses it; so it flips pass -> fail with A(1 - B) and fail -> pass with (1 - A)B, where A
  and B are the baseline's and candidate's chances to pass;
- the cases that did not flip keep their cells, so b' and c' come only from the rerun cases;
- the rule on (b', c'): BLOCK when the exact McNemar p is at most the second look's boundary
  (`alpha`, a parameter: the plain rule gives spec.alpha, an alpha-spending rule its own), else
  PASS when b' - c' <= margin and b' <= flip cap, else INCONCLUSIVE. Safety, validity, outcome
  limits and budgets are not flip counts and are left out.

The distribution of (b', c') is convolved exactly, case by case, up to `EXACT_UP_TO` flipped
cases; above, it is the bivariate normal with the same means and covariance, taken on the
integer lattice. `tests/core/test_rerun_price.py` checks both against a brute-force enumeration
and a simulation that reruns the cases repetition by repetition and applies the gate's test.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from flipgate.core.gate.binomial import above
from flipgate.core.gate.power import FlipRule, critical_flips
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, Arm

EXACT_UP_TO = 300  # flipped cases convolved exactly; above, a normal approximation
USAGE = ("tokens", "cost_usd")
# The cheapest plan is looked for among odd repetition counts up to this many a case and arm: an
# even count can tie, and a tie fails the case whatever its repetitions say.
MAX_PLAN_RUNS = 25


@dataclass(frozen=True)
class CaseRates:
    """A flipped case's chance that one repetition passes, per arm, under the stated model."""

    case: str
    baseline: float
    candidate: float


@dataclass(frozen=True)
class Usage:
    """What the plan's repetitions of one arm take; None: the run records no such usage. The
    tokens are an estimate from the run's means, said in whole tokens as a count is."""

    repetitions: int
    tokens: int | None
    cost_usd: float | None


@dataclass(frozen=True)
class Chance:
    """The chance the second look resolves the verdict, and how it was found."""

    resolves: float
    block: float
    passes: float
    method: str  # "exact", or "normal" above EXACT_UP_TO flipped cases


@dataclass(frozen=True)
class PricedPlan:
    """One plan: R repetitions of every flipped case on both arms, what it takes and buys."""

    runs: int
    cases: int
    usage: dict[Arm, Usage]
    chance: Chance

    @property
    def repetitions(self) -> int:
        return sum(u.repetitions for u in self.usage.values())

    @property
    def tokens(self) -> int | None:
        """Both arms' tokens, the sum of their whole tokens; None when either arm's is unknown."""
        values = [u.tokens for u in self.usage.values()]
        return None if any(v is None for v in values) else sum(v or 0 for v in values)

    @property
    def cost_usd(self) -> float | None:
        """Both arms' cost; None when either arm's is unknown."""
        values = [u.cost_usd for u in self.usage.values()]
        return None if any(v is None for v in values) else float(sum(v or 0 for v in values))


@dataclass(frozen=True)
class PlanPrice:
    """The plan of the gate spec, and the cheapest plan that reaches `target`."""

    plan: PricedPlan
    target: float
    cheapest: PricedPlan | None  # None: no plan up to MAX_PLAN_RUNS reaches the target
    alpha: float  # the second look's boundary the chance was computed at
    rates: tuple[CaseRates, ...]

    def to_data(self) -> dict[str, object]:
        """Figures only (the plan file's `price`, the JSON's `escalation.price`): no words."""
        return {
            "plan": _plan_data(self.plan),
            "target": self.target,
            "cheapest": None if self.cheapest is None else _plan_data(self.cheapest),
            "boundary": self.alpha,
            "model": MODEL,
            "rates": [
                {"case": r.case, "baseline": r.baseline, "candidate": r.candidate}
                for r in self.rates
            ],
        }


# The stated model of the chance, as a code (docs/gate.md says it in words).
MODEL = "laplace_rates_majority"


def _plan_data(plan: PricedPlan) -> dict[str, object]:
    return {
        "runs": plan.runs,
        "cases": plan.cases,
        "repetitions": plan.repetitions,
        "tokens": plan.tokens,
        "cost_usd": plan.cost_usd,
        "by_arm": {
            arm: {"repetitions": u.repetitions, "tokens": u.tokens, "cost_usd": u.cost_usd}
            for arm, u in plan.usage.items()
        },
        "chance": {
            "resolves": plan.chance.resolves,
            "block": plan.chance.block,
            "pass": plan.chance.passes,
            "method": plan.chance.method,
        },
    }


# --------------------------------------------------------------------------- the model


def case_rates(reps: Mapping[str, pl.DataFrame], cases: Sequence[str]) -> tuple[CaseRates, ...]:
    """(k + 1) / (n + 2) per flipped case and arm, from each arm's graded repetitions."""
    rates: dict[Arm, dict[str, float]] = {}
    for arm in ARMS:
        graded = reps[arm].filter(
            pl.col("case").is_in(list(cases)) & pl.col("passed").is_not_null()
        )
        counts = graded.group_by("case").agg(k=pl.col("passed").sum(), n=pl.len())
        rates[arm] = {
            case: (k + 1) / (n + 2) for case, k, n in counts.select("case", "k", "n").iter_rows()
        }
    return tuple(
        CaseRates(case, rates["baseline"].get(case, 0.5), rates["candidate"].get(case, 0.5))
        for case in cases
    )


def majority_passes(rate: np.ndarray, runs: int) -> np.ndarray:
    """The chance a case passes with `runs` repetitions each passing at `rate`: a strict
    majority of them (a tie fails): the binomial's tail past half."""
    return above(runs // 2, runs, rate)


def flip_chances(rates: Sequence[CaseRates], runs: int) -> tuple[np.ndarray, np.ndarray]:
    """Per case, the chance it lands in b (pass -> fail) and in c (fail -> pass) after the rerun."""
    base = majority_passes(np.array([r.baseline for r in rates]), runs)
    cand = majority_passes(np.array([r.candidate for r in rates]), runs)
    return base * (1 - cand), (1 - base) * cand


def resolve_chance(broke: np.ndarray, fixed: np.ndarray, rule: FlipRule) -> Chance:
    """The chance (b', c') resolves under `rule` (its alpha the second look's boundary), where
    case i adds to b' with chance broke[i] and to c' with fixed[i], independently."""
    n = len(broke)
    crit = np.array(critical_flips(0, max(n, 1), rule.alpha, rule.test))
    if n <= EXACT_UP_TO:
        dist = np.zeros((n + 1, n + 1))
        dist[0, 0] = 1.0
        for i, (pb, pc) in enumerate(zip(broke, fixed, strict=True)):
            top = i + 1  # b' + c' <= i before case i: only that corner is non-zero
            now = dist[:top, :top].copy()
            dist[:top, :top] = now * (1 - pb - pc)
            dist[1 : top + 1, :top] += now * pb
            dist[:top, 1 : top + 1] += now * pc
        b, c = np.indices(dist.shape)
        block, passes = _regions(b, c, crit, rule)
        p_block, p_pass = float(dist[block].sum()), float(dist[passes].sum())
        return Chance(min(1.0, p_block + p_pass), p_block, p_pass, "exact")
    # Above: b' and c' are sums of many independent small parts, near a bivariate normal; its
    # density is taken on the integer lattice within 8 standard deviations and normalised there.
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
    block, passes = _regions(b, c, crit, rule)
    p_block, p_pass = float(density[block].sum()), float(density[passes].sum())
    return Chance(min(1.0, p_block + p_pass), p_block, p_pass, "normal")


def _regions(
    b: np.ndarray, c: np.ndarray, crit: np.ndarray, rule: FlipRule
) -> tuple[np.ndarray, np.ndarray]:
    """Where (b, c) BLOCKs (b at or above the critical b of its b + c) and where it PASSes."""
    block = (b + c <= len(crit) - 1) & (b >= crit[np.minimum(b + c, len(crit) - 1)])
    passes = ~block & (b - c <= rule.margin) & (b <= rule.flip_cap)
    return block, passes


# --------------------------------------------------------------------------- the price


def arm_usage(run: Run, cases: Sequence[str], runs: int) -> Usage:
    """What `runs` repetitions of each of `cases` take in this arm: per case the mean of its
    gradable repetitions' usage, else the arm's mean; None where the run records none."""
    gradable = run.reps.filter(pl.col("status") == "ok")
    totals: dict[str, float | None] = {}
    for field in USAGE:
        if gradable[field].null_count() == gradable.height:
            totals[field] = None
            continue
        arm_mean = gradable.select(pl.col(field).mean()).item()
        per_case: dict[str, float | None] = dict(
            gradable.filter(pl.col("case").is_in(list(cases)))
            .group_by("case")
            .agg(pl.col(field).mean())
            .iter_rows()
        )
        means = (per_case.get(case) for case in cases)
        totals[field] = runs * sum(float(arm_mean if m is None else m) for m in means)
    tokens = totals["tokens"]
    return Usage(runs * len(cases), None if tokens is None else round(tokens), totals["cost_usd"])


def price(
    runs_by_arm: Mapping[str, Run],
    reps: Mapping[str, pl.DataFrame],
    cases: Sequence[str],
    runs: int,
    rule: FlipRule,
    target: float,
) -> PlanPrice:
    """The plan of `runs` repetitions priced, and the cheapest number of repetitions (the fewest:
    each costs the same) whose chance to resolve reaches `target`."""
    rates = case_rates(reps, cases)

    def plan(r: int) -> PricedPlan:
        usage = {arm: arm_usage(runs_by_arm[arm], cases, r) for arm in ARMS}
        return PricedPlan(r, len(cases), usage, resolve_chance(*flip_chances(rates, r), rule))

    chosen = plan(runs)
    cheapest = next(
        (p for r in range(1, MAX_PLAN_RUNS + 1, 2) if (p := plan(r)).chance.resolves >= target),
        None,
    )
    return PlanPrice(chosen, target, cheapest, rule.alpha, rates)
