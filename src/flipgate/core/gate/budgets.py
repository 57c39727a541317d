"""Second metrics with their own budgets (SPEC §3 `budgets`, seed 001's SECOND METRICS line).

Each budget takes one statistic of one numeric field of the results lines (`latency_ms`,
`cost_usd`, `steps`, `tokens`, or a team's own) over the gradable repetitions of the paired cases,
in each arm, and checks the candidate's against an absolute `max`, or against the baseline's same
statistic raised by `max_increase`. `p95` is the linear interpolation between order statistics
(numpy's and polars' default). A repetition that does not record the field is left out.

`max` is a statement about the candidate alone and is checked as it stands. `max_increase`
compares two noisy figures, so it is exceeded only beyond the noise (issue 27: "+10% p95" on 50
cases fired 18% of the time on runs that did not change): the paired permutation test of
excess.py, each case's (or template's) repetitions swapped between the arms, `permutations.count`
swaps from `permutations.seed`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.excess import BudgetNoise, budget_noise
from flipgate.core.gate.spec import Budget, GateSpec
from flipgate.core.runs.model import METRICS, Run
from flipgate.core.vocab import ARMS, BudgetCode

STATISTIC: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "mean": lambda column: column.mean(),
    "median": lambda column: column.median(),
    "p95": lambda column: column.quantile(0.95, interpolation="linear"),
    "total": lambda column: column.sum(),
}


@dataclass(frozen=True)
class BudgetCheck:
    """One budget against the runs: both arms' statistic, the limit it implies, met or not."""

    budget: Budget
    baseline: float | None  # None: no gradable baseline repetition of a paired case records it
    candidate: float
    # the tighter of `max` and the baseline's statistic raised by `max_increase` and by what the
    # noise reaches (`noise.noise`, the ratio at 1 - alpha with no change)
    limit: float
    exceeded: bool
    noise: BudgetNoise | None = None  # the permutation test of `max_increase`, if given

    @property
    def code(self) -> BudgetCode:
        return "budget_exceeded" if self.exceeded else "budget_met"


def check_budgets(
    spec: GateSpec, baseline: Run, candidate: Run, paired: pl.DataFrame, *, invalid: bool = False
) -> tuple[BudgetCheck, ...]:
    """Every budget of `spec`, met or not, over the gradable repetitions of the `paired` cases
    (`case`, and the `cluster` the permutation test swaps whole: its template, or itself).

    A budget no gradable repetition measures is bad input in gate.yaml, unless the comparison is
    `invalid` anyway (an all-infra arm measures nothing): then it is left out, and the verdict is
    INVALID with its reasons, not an error about the budget (issue 28 item 13)."""
    if not spec.budgets:
        return ()
    arms, frames = {}, {}
    for arm, run in (("baseline", baseline), ("candidate", candidate)):
        gradable = run.reps.filter(
            (pl.col("status") == "ok") & pl.col("case").is_in(paired["case"].implode())
        )
        # A metric's name is the team's: `*` or `^a$` would be a pattern to pl.col, so each
        # metric's column is named by its place
        metrics = sorted({budget.metric for budget in spec.budgets})
        values = pl.DataFrame(
            [_values(run, gradable, metric).alias(_column(metric, metrics)) for metric in metrics]
        )
        frames[arm] = values.with_columns(gradable["case"])
        stats = values.select(
            pl.when(pl.col(_column(budget.metric, metrics)).count() > 0)
            .then(STATISTIC[budget.stat](pl.col(_column(budget.metric, metrics))))
            .alias(str(i))
            for i, budget in enumerate(spec.budgets)
        ).row(0)
        arms[arm] = dict(enumerate(stats))
    checks = []
    for i, budget in enumerate(spec.budgets):
        base, cand = arms["baseline"][i], arms["candidate"][i]
        if cand is None or (budget.max_increase is not None and base is None):
            if invalid:
                continue
            arm = "candidate" if cand is None else "baseline"
            raise InputError(
                spec.source or Path("gate.yaml"),
                f"no gradable {arm} repetition of a paired case records `{budget.metric}`",
                line=budget.line,
                field=f"budgets.{budget.metric}",
            )
        noise = None
        if budget.max_increase is not None:
            column = _column(budget.metric, sorted({b.metric for b in spec.budgets}))
            noise = _noise(spec, budget, column, frames, paired)
        checks.append(_check(budget, None if base is None else float(base), float(cand), noise))
    return tuple(checks)


def _column(metric: str, metrics: list[str]) -> str:
    """The column that holds `metric`'s values: named by its place, never by the team's name."""
    return f"metric {metrics.index(metric)}"


def _noise(
    spec: GateSpec,
    budget: Budget,
    column: str,
    frames: dict[str, pl.DataFrame],
    paired: pl.DataFrame,
) -> BudgetNoise:
    """The permutation test of `budget`'s ratio, over the repetitions that record the field."""
    both = (
        pl.concat(
            frames[arm].select("case", pl.col(column).alias("value"), arm=pl.lit(arm))
            for arm in ARMS
        )
        .drop_nulls("value")
        .join(paired.select("case", "cluster"), on="case")
        .with_columns(id=pl.col("cluster").rank("dense").cast(pl.Int64) - 1)
    )
    arm_values = [
        (
            both.filter(pl.col("arm") == arm)["value"].to_numpy().astype(float),
            both.filter(pl.col("arm") == arm)["id"].to_numpy(),
        )
        for arm in ARMS
    ]
    return budget_noise(
        arm_values[0],
        arm_values[1],
        both["cluster"].n_unique(),
        budget.stat,
        spec.alpha,
        spec.permutation_count,
        spec.permutation_seed,
    )


def _values(run: Run, gradable: pl.DataFrame, metric: str) -> pl.Series:
    """The field's values on the gradable repetitions (null where not recorded); a team's own
    field is read from the line's other fields, and a value there that is not a number is an input
    error."""
    if metric in METRICS:
        return gradable[metric]
    numbers = pl.Struct({metric: pl.Float64})
    extra = run.texts.beside(gradable.select("line"), ["extra"])
    try:
        decoded = extra["extra"].str.json_decode(numbers)
    except pl.exceptions.PolarsError:
        decoded = None
    # the name as the line's JSON spells it, matched literally: `a(b` is no pattern
    named = re.escape(json.dumps(metric, ensure_ascii=False))
    if decoded is None or extra["extra"].str.contains(f'{named}:\\s*[\\["{{tf]').any():
        for line, fields in extra.iter_rows():  # the error path only
            value = json.loads(fields).get(metric) if fields else None
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise InputError(
                    _results_file(run), f"must be a number, not {value!r}", line=line, field=metric
                )
    if decoded is None:
        raise InputError(_results_file(run), "must be a number on every line", field=metric)
    return decoded.struct.unnest().to_series(0)  # by place: `*` names every field to polars


def _results_file(run: Run) -> Path:
    for name in ("results.jsonl", "results.parquet"):
        if (run.path / name).exists():
            return run.path / name
    return run.path


def held_budget(check: BudgetCheck, alpha: float) -> BudgetCheck:
    """The check with its relative budget tested at `alpha`, the boundary family.py holds it
    to when the gate's paths share alpha; its absolute `max` as it stands."""
    noise = None if check.noise is None else replace(check.noise, alpha=alpha)
    return _check(check.budget, check.baseline, check.candidate, noise)


def _check(
    budget: Budget, base: float | None, cand: float, noise: BudgetNoise | None
) -> BudgetCheck:
    limits, exceeded = [], False
    if budget.max_increase is not None:
        assert base is not None and noise is not None
        limits.append(_relative_limit(base, (1 + budget.max_increase) * noise.noise))
        exceeded = noise.beyond(budget.max_increase)
    if budget.max is not None:
        limits.append(budget.max)
        exceeded = exceeded or cand > budget.max
    return BudgetCheck(budget, base, cand, min(limits), exceeded, noise)


def _relative_limit(base: float, reach: float) -> float:
    """The candidate figure whose ratio to `base` (excess.ratio) is `reach`: on a negative
    baseline a rise is measured against its size, so -10 at +10% reaches -9, never -11."""
    return math.inf if math.isinf(reach) else base + abs(base) * (reach - 1)
