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
    """One row per case: the collapsed verdict (SPEC §3.1) and what the drill-down shows."""
    gradable = pl.col("status") == "ok"
    n_pass = (gradable & pl.col("passed")).sum()
    n_gradable = gradable.sum()
    summary = (
        pl.col("safety").first(),
        pl.col("template").drop_nulls().first(),
        pl.len().alias("reps"),
        (pl.col("status") == "infra").sum().alias("infra"),
        n_gradable.alias("gradable"),
        n_pass.alias("passes"),
        pl.col("passed").alias("pattern"),  # null = infra; in row order within the case
        pl.col("decisions").sum(),
        pl.col("wrong").sum(),
        pl.col("worst_rank").min().alias("worst"),
        pl.col("cost").sum(),
        pl.when(n_gradable == 0)
        .then(None)
        .when(pl.col("safety").first())
        .then(collapsed(spec.aggregate_safety, n_pass, n_gradable))
        .otherwise(collapsed(spec.aggregate_ordinary, n_pass, n_gradable))
        .alias("passed"),
    )
    # The cases leave sorted, so that the arms pair in order with no sort after the join. Most
    # runs are written case by case, rep by rep: grouped in that order, their cases come out
    # sorted and their patterns in rep order (25 ms an arm, where sorting twice costs 45).
    if not reps.select(out_of_case_order().any()).item():
        cases = (
            reps.group_by("case", maintain_order=True)
            .agg(summary)
            .with_columns(pl.col("case").set_sorted())
        )
    else:
        cases = reps.sort("rep", maintain_order=True).group_by("case").agg(summary).sort("case")
    cases = cases.with_columns(severity_name(pl.col("worst")))
    keep = ("case", "safety", "template")
    return cases.rename({c: f"{prefix}_{c}" for c in cases.columns if c not in keep})


def collapsed_verdicts(run: Run, spec: GateSpec) -> pl.DataFrame:
    """One row per case of `run`: case, safety, passed (null: no gradable repetition).

    The gate's own collapse (SPEC §3.1), for comparing runs that are not a baseline/candidate pair.
    """
    _, reps = rep_results(run, spec)
    return collapse(reps, spec, "run").select(
        "case", "safety", pl.col("run_passed").alias("passed")
    )
