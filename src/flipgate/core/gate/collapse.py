"""Per arm (SPEC §3.1): each repetition's pass or fail, then each case's repetitions collapsed.

An ordinary case passes when a strict majority of its gradable repetitions passes (a tie fails:
fail closed); a safety case passes only when every one does. Infra repetitions are neither.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import polars as pl

from flipgate.core.gate.outcomes import (
    SEVERITY,
    classify_frame,
    judge_decided,
    outcome_column,
    price_of,
    severity_name,
)
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import (
    SIDES,
    Run,
    decided_rules,
    decision_column,
    drop_where,
    out_of_case_order,
    rep_rows,
)
from flipgate.core.vocab import Aggregate

# The prefix of an arm's columns in the paired table.
PREFIX: dict[str, str] = {"baseline": "base", "candidate": "cand"}


@overload
def collapsed(aggregate: Aggregate, passes: int, gradable: int) -> bool: ...
@overload
def collapsed(aggregate: Aggregate, passes: pl.Expr, gradable: pl.Expr) -> pl.Expr: ...
def collapsed(aggregate: Aggregate, passes: Any, gradable: Any) -> Any:
    """Whether a case passes with `passes` of `gradable` repetitions passing: counts or columns."""
    return passes == gradable if aggregate == "all" else 2 * passes > gradable


def rep_results(run: Run, spec: GateSpec) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(the gradable repetitions' decisions classified, `outcomes.judge`; one row per rep with
    `passed`, `wrong`, `decisions`, `worst` and `cost`).

    Each repetition's rules are side by side in its row, so its sums are sums across the row's
    columns, put in place by its source `line` (unique within a run): no row per decision is
    made, and no bincount runs over them (12M an arm at a million cases).
    """
    judged = judge(run)
    n = run.reps.height
    index = rep_rows(run.reps)
    at = index[judged["line"].to_numpy()]  # each decided repetition's row of reps
    worst = np.full(n, len(SEVERITY), dtype=np.int8)  # no decision: past the last outcome
    decisions, wrong = np.zeros(n, dtype=np.uint32), np.zeros(n, dtype=np.uint32)
    failed, cost = np.zeros(n, dtype=bool), np.zeros(n)
    rules = decided_rules(judged)
    if rules:
        outcomes = [pl.col(outcome_column(rule)) for rule in rules]
        fails = [SEVERITY.index(outcome) for outcome in sorted(spec.fail_on)]
        prices = [
            price_of(outcome, pl.col(decision_column("actual", rule)), run.labels, spec)
            for outcome, rule in zip(outcomes, rules, strict=True)
        ]
        per_rep = judged.select(
            pl.min_horizontal(o.to_physical() for o in outcomes)
            .fill_null(len(SEVERITY))
            .alias("worst"),
            pl.sum_horizontal(o.is_not_null() for o in outcomes).alias("decisions"),
            pl.sum_horizontal(o != "agreement" for o in outcomes).alias("wrong"),
            pl.any_horizontal(o.to_physical().is_in(fails) for o in outcomes)
            .fill_null(False)
            .alias("failed"),
            pl.sum_horizontal(prices).alias("cost"),
        )
        worst[at] = per_rep["worst"].to_numpy()  # the enum is ordered worst first
        decisions[at] = per_rep["decisions"].to_numpy()
        wrong[at] = per_rep["wrong"].to_numpy()
        failed[at] = per_rep["failed"].to_numpy()
        cost[at] = per_rep["cost"].to_numpy()
    failed[index[run.checks.filter(~pl.col("passed"))["line"].to_numpy()]] = True
    is_infra = pl.col("status") == "infra"
    reps = (
        run.reps.select("case", "rep", "line", "status", "infra", "safety", "template")
        .with_columns(
            passed=pl.when(is_infra).then(None).otherwise(pl.Series(~failed)),
            decisions=pl.Series(decisions),
            wrong=pl.Series(wrong),
            worst_rank=pl.Series(worst),
            cost=pl.Series(cost),
        )
        .with_columns(worst=severity_name(pl.col("worst_rank")))
    )
    return judged, reps


def judge(run: Run) -> pl.DataFrame:
    """`run.decided` on its gradable repetitions (infra ones left out), each rule's decision
    classified beside its labels: `outcome/RULE` (`outcomes.outcome_column`; null: no decision
    on that rule). The reasons are left out: nothing the gate counts reads them."""
    infra = run.reps.filter(pl.col("status") == "infra")["line"]
    rules = decided_rules(run.decided)
    sides = [decision_column(side, rule) for rule in rules for side in SIDES]
    judged = drop_where(
        run.decided.select("case", "rep", "line", *sides), pl.col("line").is_in(infra.implode())
    )
    return judge_decided(judged, run.labels)


def classified_decisions(run: Run, spec: GateSpec) -> pl.DataFrame:
    """The decisions of `run`'s gradable repetitions one row each (`Run.decisions`), with
    `outcome` and `price`: what the app and the reports list, never made by the gate itself."""
    infra = run.reps.filter(pl.col("status") == "infra")["line"]
    return classify_frame(
        run.decisions.filter(~pl.col("line").is_in(infra.implode())), run.labels, spec
    )


def collapse(reps: pl.DataFrame, spec: GateSpec, prefix: str) -> pl.DataFrame:
    """One row per case: the collapsed verdict (SPEC §3.1) and what the drill-down shows.

    The cases leave sorted, so that the arms pair in order with no sort after the join, each
    case's pattern in rep order. Most runs are written case by case, rep by rep; any other is
    sorted so first. Each case is then a run of rows, summed by `reduceat` over where the runs
    start: a polars group-by pays about a tenth of a microsecond a case for each sum (1 s an arm
    at a million cases, where these take 0.15).
    """
    if reps.select(out_of_case_order().any()).item():
        reps = reps.sort("case", "rep", maintain_order=True)
    ids = reps.select(pl.col("case").rle_id())["case"].to_numpy()
    starts = np.flatnonzero(np.diff(ids, prepend=-1)).astype(np.int64)
    status = reps.select(ok=pl.col("status") == "ok", infra=pl.col("status") == "infra")
    gradable = status["ok"].to_numpy()
    passed = reps["passed"].fill_null(False).to_numpy() & gradable

    def per_case(values: np.ndarray) -> pl.Series:
        summed = np.add.reduceat(values, starts, dtype=np.uint32) if starts.size else values[:0]
        return pl.Series(summed, dtype=pl.UInt32)

    worst = reps["worst_rank"].to_numpy()
    cases = pl.DataFrame(
        {
            "case": reps["case"].gather(starts).set_sorted(),
            "safety": reps["safety"].gather(starts),
            "template": _first_present(reps["template"], ids, starts.size),
            "reps": pl.Series(np.diff(np.append(starts, reps.height)), dtype=pl.UInt32),
            "infra": per_case(status["infra"].to_numpy()),
            "gradable": per_case(gradable),
            "passes": per_case(passed),
            "pattern": _runs_of(reps["passed"], ids, starts),  # null = infra; in rep order
            "decisions": per_case(reps["decisions"].to_numpy()),
            "wrong": per_case(reps["wrong"].to_numpy()),
            "worst": pl.Series(np.minimum.reduceat(worst, starts) if starts.size else worst),
            "cost": np.bincount(ids, weights=reps["cost"].to_numpy(), minlength=starts.size),
        }
    )
    n_pass, n_gradable = pl.col("passes"), pl.col("gradable")
    cases = cases.with_columns(
        severity_name(pl.col("worst")),
        passed=pl.when(n_gradable == 0)
        .then(None)
        .when(pl.col("safety"))
        .then(collapsed(spec.aggregate_safety, n_pass, n_gradable))
        .otherwise(collapsed(spec.aggregate_ordinary, n_pass, n_gradable)),
    )
    keep = ("case", "safety", "template")
    return cases.rename({c: f"{prefix}_{c}" for c in cases.columns if c not in keep})


def _first_present(values: pl.Series, ids: np.ndarray, n: int) -> pl.Series:
    """Each run's first non-null value of `values` (null: none), the runs numbered by `ids`."""
    present = np.flatnonzero(values.is_not_null().to_numpy())
    run = ids[present]
    first = np.diff(run, prepend=-1) != 0
    at = np.zeros(n, dtype=np.int64)
    at[run[first]] = present[first]
    found = np.zeros(n, dtype=bool)
    found[run[first]] = True
    return pl.select(pl.when(pl.Series(found)).then(values.gather(at))).to_series()


def _runs_of(values: pl.Series, ids: np.ndarray, starts: np.ndarray) -> pl.Series:
    """`values` cut at `starts` into one list a run (the runs numbered by `ids`). Where every run
    is as long, as when each case has its repetitions, a reshape; else grouped by run. Not Arrow's
    lists from offsets: pyarrow is a tenth of a second of every Parquet gate's start-up."""
    lengths = np.diff(np.append(starts, values.len()))
    if not lengths.size:
        return pl.Series(values.name, [], dtype=pl.List(values.dtype))
    if (lengths == lengths[0]).all():
        shaped = values.reshape((lengths.size, int(lengths[0])))
        return shaped.cast(pl.List(values.dtype))
    runs = pl.DataFrame({"run": ids, values.name: values})
    return runs.group_by("run", maintain_order=True).agg(values.name)[values.name]


def collapsed_verdicts(run: Run, spec: GateSpec) -> pl.DataFrame:
    """One row per case of `run`: case, safety, passed (null: no gradable repetition).

    The gate's own collapse (SPEC §3.1), for comparing runs that are not a baseline/candidate pair.
    """
    _, reps = rep_results(run, spec)
    return collapse(reps, spec, "run").select(
        "case", "safety", pl.col("run_passed").alias("passed")
    )
