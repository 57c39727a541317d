"""Per arm (SPEC §3.1): each repetition's pass or fail, then each case's repetitions collapsed.

An ordinary case passes when a strict majority of its gradable repetitions passes (a tie fails:
fail closed); a safety case passes only when every one does. Infra repetitions are neither.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import polars as pl

from flipgate.core.gate.outcomes import SEVERITY, classify_frame, severity_name
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run, out_of_case_order, rep_rows
from flipgate.core.vocab import Aggregate

# The prefix of an arm's columns in the paired table.
PREFIX: dict[str, str] = {"baseline": "base", "candidate": "cand"}
AGREEMENT = SEVERITY.index("agreement")


@overload
def collapsed(aggregate: Aggregate, passes: int, gradable: int) -> bool: ...
@overload
def collapsed(aggregate: Aggregate, passes: pl.Expr, gradable: pl.Expr) -> pl.Expr: ...
def collapsed(aggregate: Aggregate, passes: Any, gradable: Any) -> Any:
    """Whether a case passes with `passes` of `gradable` repetitions passing: counts or columns."""
    return passes == gradable if aggregate == "all" else 2 * passes > gradable


def rep_results(run: Run, spec: GateSpec) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(classified decisions of gradable reps, one row per rep with `passed` and `wrong`).

    Per-rep sums are bincounts over each decision's repetition position, found through its source
    `line` (unique within a run): a hash group-by of a million decisions costs ten times more.
    """
    infra = run.reps.filter(pl.col("status") == "infra")["line"]
    decisions = classify_frame(
        run.decisions.filter(~pl.col("line").is_in(infra.implode())), run.labels, spec
    )
    n = run.reps.height
    index = rep_rows(run.reps)
    at = index[decisions["line"].to_numpy()]  # each decision's repetition, as a row of reps

    def per_rep(where: np.ndarray) -> np.ndarray:
        """How many of the rows at `where` each repetition holds: counted unweighted, a mask's
        rows picked first, where a bincount weighted by the mask converts it to floats (over a
        third of this step's time at a million cases)."""
        return np.bincount(where, minlength=n)

    codes = decisions["outcome"].to_physical().to_numpy().astype(np.int8)
    worst = np.full(n, len(SEVERITY), dtype=np.int8)  # no decision: past the last outcome
    np.minimum.at(worst, at, codes)  # the enum is ordered worst first
    fails = np.array([outcome in spec.fail_on for outcome in SEVERITY])[codes]
    failed = np.zeros(n, dtype=bool)
    failed[at[fails]] = True
    failed[index[run.checks.filter(~pl.col("passed"))["line"].to_numpy()]] = True
    is_infra = pl.col("status") == "infra"
    reps = (
        run.reps.select("case", "rep", "line", "status", "infra", "safety", "template")
        .with_columns(
            passed=pl.when(is_infra).then(None).otherwise(pl.Series(~failed)),
            decisions=pl.Series(per_rep(at).astype(np.uint32)),
            wrong=pl.Series(per_rep(at[codes != AGREEMENT]).astype(np.uint32)),
            worst_rank=pl.Series(worst),
            cost=pl.Series(np.bincount(at, weights=decisions["price"].to_numpy(), minlength=n)),
        )
        .with_columns(worst=severity_name(pl.col("worst_rank")))
    )
    return decisions, reps


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
