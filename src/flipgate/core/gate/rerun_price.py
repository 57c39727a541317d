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
- the rule on (b', c'): BLOCK when the exact McNemar p is at most the flips' boundary at the
  second look (`alpha`, a parameter: the plain rule gives spec.alpha, an alpha-spending rule its
  own, and under Holm the flips' share of it, escalation.next_look_share), else PASS when
  b' - c' <= margin and b' <= flip cap, else INCONCLUSIVE. Safety, validity, outcome limits and
  budgets are not flip counts and are left out.

The distribution of (b', c') is convolved exactly, case by case, up to `EXACT_UP_TO` flipped
cases; above, it is the bivariate normal with the same means and covariance, taken on the
integer lattice. `tests/core/test_rerun_price.py` checks both against a brute-force enumeration
and a simulation that reruns the cases repetition by repetition and applies the gate's test.

The plans priced (the spec's and every odd count up to `MAX_PLAN_RUNS`) differ only in their
repetitions, so what one repetition of every case takes and each case's rates are found once, in
one vectorised pass over the flipped cases, and a plan adds only its lattice (issue 25).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from flipgate.core.gate.binomial import above
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.power import FlipRule, critical_flips
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, Arm

EXACT_UP_TO = 300  # flipped cases convolved exactly; above, a normal approximation
USAGE = ("tokens", "cost_usd")
# The cheapest plan is looked for among odd repetition counts up to this many a case and arm: an
# even count can tie, and a tie fails the case whatever its repetitions say.
MAX_PLAN_RUNS = 25


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
    alpha: float  # the flips' boundary at the second look, which the chance was computed at
    rates: pl.DataFrame  # a flipped case a row: `case`, and its `baseline` and `candidate` rate

    def to_data(self) -> dict[str, object]:
        """Figures only (the plan file's `price`, the JSON's `escalation.price`): no words."""
        return {
            "plan": _plan_data(self.plan),
            "target": self.target,
            "cheapest": None if self.cheapest is None else _plan_data(self.cheapest),
            "boundary": self.alpha,
            "model": MODEL,
            "rates": self.rates.select("case", *ARMS).to_dicts(),
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


def case_rates(cases: pl.DataFrame, flipped: Sequence[str]) -> pl.DataFrame:
    """(k + 1) / (n + 2) per flipped case and arm, k of its n gradable repetitions passing (the
    comparison's `cases`, a case a row, both arms side by side); 1/2 where an arm has none."""
    counts = {arm: [f"{PREFIX[arm]}_{count}" for count in ("passes", "gradable")] for arm in ARMS}

    def rate(arm: Arm) -> pl.Expr:
        passes, gradable = map(pl.col, counts[arm])
        return ((passes + 1) / (gradable + 2)).fill_null(0.5).alias(arm)

    wanted = _frame(flipped)
    per_case = cases.select("case", *counts["baseline"], *counts["candidate"]).filter(
        pl.col("case").is_in(wanted["case"].implode())  # first: the join then meets no more
    )
    return _in_order(wanted, per_case, pl.col("case"), *map(rate, ARMS))


def _frame(cases: Sequence[str]) -> pl.DataFrame:
    """`cases` as a frame of one column, `case`, to pick each one's row in order."""
    return pl.DataFrame({"case": list(cases)}, schema={"case": pl.String})


def _in_order(wanted: pl.DataFrame, per_case: pl.DataFrame, *columns: pl.Expr) -> pl.DataFrame:
    """`columns` of `per_case` (a case a row) for each of `wanted`'s cases, in its order; null
    where a case has no row."""
    return wanted.join(per_case, on="case", how="left", maintain_order="left").select(*columns)


def majority_passes(rate: np.ndarray, runs: int) -> np.ndarray:
    """The chance a case passes with `runs` repetitions each passing at `rate`: a strict
    majority of them (a tie fails): the binomial's tail past half."""
    return above(runs // 2, runs, rate)


def flip_chances(
    baseline: np.ndarray, candidate: np.ndarray, runs: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Per plan of `runs` repetitions (a row each) and case, the chance the case lands in b
    (pass -> fail) and in c (fail -> pass) after the rerun, from its arms' rates. A rate is a
    case's share of a few repetitions, so the rates take few values: each value's majority
    chance is found once for every plan."""
    base, cand = (_majority_by_runs(rate, runs) for rate in (baseline, candidate))
    return base * (1 - cand), (1 - base) * cand


def _majority_by_runs(rate: np.ndarray, runs: Sequence[int]) -> np.ndarray:
    values, at = np.unique(rate, return_inverse=True)
    return np.stack([majority_passes(values, r) for r in runs])[:, at]


def resolve_chance(broke: np.ndarray, fixed: np.ndarray, rule: FlipRule) -> Chance:
    """The chance (b', c') resolves under `rule` (its alpha the flips' boundary at the second
    look), where case i adds to b' with chance broke[i] and to c' with fixed[i], independently."""
    n = len(broke)
    if n <= EXACT_UP_TO:
        dist = np.zeros((n + 1, n + 1))
        dist[0, 0] = 1.0
        for i, (pb, pc) in enumerate(zip(broke, fixed, strict=True)):
            top = i + 1  # b' + c' <= i before case i: only that corner is non-zero
            now = dist[:top, :top].copy()
            dist[:top, :top] = now * (1 - pb - pc)
            dist[1 : top + 1, :top] += now * pb
            dist[:top, 1 : top + 1] += now * pc
        block, passes = _regions(np.arange(n + 1), np.arange(n + 1), n, rule)
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
    b, c = (
        np.arange(max(0, math.floor(m - 8 * d)), min(n, math.ceil(m + 8 * d)) + 1)
        for m, d in zip(mean, sd, strict=True)
    )
    block, passes = _regions(b, c, n, rule)
    if not (block.any() or passes.any()):  # no point of the lattice resolves: nothing to weigh
        return Chance(0.0, 0.0, 0.0, "normal")
    x, y = (b - mean[0])[:, np.newaxis], (c - mean[1])[np.newaxis, :]  # a column and a row
    inverse = np.linalg.inv(cov + np.eye(2) * 1e-9)
    # The quadratic form offset' inverse offset over the lattice, broadcast from the column and
    # the row: its four terms added in the order numpy's einsum("...i,ij,...j") adds them, so
    # the chance is the one it gave to the last bit, without a stacked grid of offsets.
    density = x * inverse[0, 0] * x + x * inverse[0, 1] * y
    density += y * inverse[1, 0] * x
    density += y * inverse[1, 1] * y
    density *= -0.5
    np.exp(density, out=density)
    density /= density.sum()
    p_block, p_pass = float(density[block].sum()), float(density[passes].sum())
    return Chance(min(1.0, p_block + p_pass), p_block, p_pass, "normal")


def _regions(
    b: np.ndarray, c: np.ndarray, cases: int, rule: FlipRule
) -> tuple[np.ndarray, np.ndarray]:
    """On the lattice of the b in `b` (rows) and the c in `c` (columns), where (b, c) BLOCKs (b
    at or above the critical b of its b + c flips, up to the cases) and where it PASSes.

    The critical b never falls as flips are added (the p of b breaks rises with the flips), so
    in row b the c that BLOCK are those up to the last count of flips whose critical b is at
    most b: a threshold a row, found from the critical b of the counts the lattice holds only."""
    top = max(cases, 1)
    first, last = min(int(b[0] + c[0]), top), min(int(b[-1] + c[-1]), top)
    crit = np.array(critical_flips(first, last, rule.alpha, rule.test))
    last_block = first + np.searchsorted(crit, b, side="right") - 1 - b  # the last c; row by row
    first_pass = np.maximum(last_block + 1, b - rule.margin)
    column = c[np.newaxis, :]
    block = column <= last_block[:, np.newaxis]
    passes = (column >= first_pass[:, np.newaxis]) & (b <= rule.flip_cap)[:, np.newaxis]
    return block, passes


# --------------------------------------------------------------------------- the price


def arm_usage(run: Run, cases: Sequence[str]) -> dict[str, float | None]:
    """What one repetition of each of `cases` takes in this arm, per usage field: the sum over
    the cases of each case's mean over its gradable repetitions, else the arm's mean; None where
    the run records none. Found once: a plan of R repetitions takes R times it. Lazily, so that
    only the usage columns of the gradable repetitions are read, not their outputs."""
    reps, gradable = run.reps.lazy(), pl.col("status") == "ok"
    mean = [pl.col(f).mean() for f in USAGE]
    arm = reps.select(pl.col(f).filter(gradable) for f in USAGE).select(
        *(pl.col(f).count().alias(f"{f}_count") for f in USAGE), *mean
    )
    wanted = _frame(cases)
    per_case = (
        reps.filter(gradable & pl.col("case").is_in(wanted["case"].implode()))
        .group_by("case")
        .agg(*mean)
    )
    found, by_case = pl.collect_all([arm, per_case])
    means = _in_order(wanted, by_case, *map(pl.col, USAGE))
    totals: dict[str, float | None] = dict.fromkeys(USAGE)
    for field in USAGE:
        if found[f"{field}_count"].item():  # else the run records none
            arm_mean = float(found[field].item())
            # Python's sum, in the cases' order: the figure as it has always been printed
            totals[field] = sum(means[field].fill_null(arm_mean).to_list())
    return totals


def plan_usage(once: Mapping[str, float | None], cases: int, runs: int) -> Usage:
    """What `runs` repetitions of each of `cases` cases take in an arm that takes `once` for one
    repetition of each (`arm_usage`)."""
    tokens, cost = (None if (one := once[f]) is None else runs * one for f in USAGE)
    return Usage(runs * cases, None if tokens is None else round(tokens), cost)


def price(
    runs_by_arm: Mapping[str, Run],
    cases: pl.DataFrame,
    flipped: Sequence[str],
    runs: int,
    rule: FlipRule,
    target: float,
) -> PlanPrice:
    """The plan of `runs` repetitions of each of the `flipped` cases priced, and the cheapest
    number of repetitions (the fewest: each costs the same) whose chance to resolve reaches
    `target`. `cases` is the comparison's, a case a row.

    The plans differ only in their repetitions: what one repetition of every case takes and
    each case's rates are found once, each plan's usage is a multiple of it, and the chances a
    case flips are found for every plan at once."""
    rates = case_rates(cases, flipped)
    once = {arm: arm_usage(runs_by_arm[arm], flipped) for arm in ARMS}
    tried = sorted({runs, *range(1, MAX_PLAN_RUNS + 1, 2)})
    broke, fixed = flip_chances(rates["baseline"].to_numpy(), rates["candidate"].to_numpy(), tried)

    def plan(r: int) -> PricedPlan:
        usage = {arm: plan_usage(once[arm], len(flipped), r) for arm in ARMS}
        i = tried.index(r)
        return PricedPlan(r, len(flipped), usage, resolve_chance(broke[i], fixed[i], rule))

    chosen = plan(runs)
    cheapest = next(
        (
            p
            for r in range(1, MAX_PLAN_RUNS + 1, 2)
            if (p := chosen if r == runs else plan(r)).chance.resolves >= target
        ),
        None,
    )
    return PlanPrice(chosen, target, cheapest, rule.alpha, rates)
