"""Which cases diverge: the arms' outputs or trajectories differ, whatever the verdicts say.

The case list's divergence filter (issue 22 item 6) finds a pass/pass case whose tool path
changed. The arms' repetitions pair by index (rep k with rep k), as the who-flipped split pairs
them, and a pair differs

    output      its stored outputs differ after the split's normalisation (`sources.normalise`:
                JSON key order, `gate.yaml`'s volatile parts, whitespace)
    trajectory  its trajectories have a first divergence (`trajectory.align`): an assistant or
                tool turn that differs, call ids aside

Only repetitions graded in both arms pair, as in the split: a repetition one arm lacks or that
errored (infra), or an output or trajectory one arm did not store, is nothing to compare and never
counts as a divergence (the case's ledger state and the drill-down say what is missing).

Outputs are compared in columns; only the pairs whose text differs are normalised, and only the
trajectories whose text differs are parsed and aligned, a chunk at a time with progress, so that
runs whose arms mostly agree cost a join and a string comparison.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.sources import normalise
from flipgate.core.vocab import ARMS, Arm
from flipgate.present.trajectory import align, parse_turns

CHUNK = 2_000  # trajectory pairs aligned between two progress reports
Progress = Callable[[int, int], None]  # before each chunk: pairs aligned, pairs to align


def _silent(done: int, total: int) -> None:
    """No progress to show."""


def diverged(
    comparison: Comparison, progress: Progress = _silent, among: pl.Series | None = None
) -> pl.DataFrame:
    """One row per case with a pair of repetitions that differs: case, `output` and
    `trajectory` (whether some pair's output, or trajectory, differs). `among`: the cases to
    look at (None: every case), so that the cost is the cases looked at; `progress` is called
    before each chunk, and may raise to stop the search there."""
    base, cand = (_graded(comparison, arm, among) for arm in ARMS)
    pairs = base.join(cand, on=["case", "rep"], suffix="_cand")
    output = _outputs_differ(pairs, comparison.spec.volatile)
    trajectory = _trajectories_differ(pairs, progress)
    found = pl.concat(
        [
            output.select("case", output=pl.lit(True), trajectory=pl.lit(False)),
            trajectory.select("case", output=pl.lit(False), trajectory=pl.lit(True)),
        ]
    )
    return found.group_by("case").agg(pl.col("output").any(), pl.col("trajectory").any())


def _graded(comparison: Comparison, arm: Arm, among: pl.Series | None) -> pl.DataFrame:
    """case, rep, output and messages of the arm's gradable repetitions (not infra), as the
    who-flipped split reads them, of the cases `among` (None: all)."""
    graded = comparison.reps[arm].filter(pl.col("passed").is_not_null()).select("case", "rep")
    if among is not None:
        graded = graded.filter(pl.col("case").is_in(among.implode()))
    run = comparison.run(arm)
    stored = run.reps.select("case", "rep", "line").join(graded, on=["case", "rep"], how="semi")
    return run.texts.beside(stored, ["output", "messages"]).drop("line")


def _outputs_differ(pairs: pl.DataFrame, volatile: tuple[str, ...]) -> pl.DataFrame:
    """The pairs whose outputs differ once normalised (both stored, their texts apart)."""
    # null where either arm stored none: dropped, nothing to compare
    apart = pairs.filter(pl.col("output") != pl.col("output_cand"))
    if apart.is_empty():
        return apart
    return apart.filter(
        normalise(apart["output"], volatile) != normalise(apart["output_cand"], volatile)
    )


def _trajectories_differ(pairs: pl.DataFrame, progress: Progress) -> pl.DataFrame:
    """The pairs whose trajectories fork (both stored, their texts apart)."""
    apart = pairs.filter(pl.col("messages") != pl.col("messages_cand")).select(
        "case", "messages", "messages_cand"
    )
    forks: list[bool] = []
    for start in range(0, apart.height, CHUNK):
        progress(start, apart.height)
        chunk = apart.slice(start, CHUNK)
        forks += [
            align(parse_turns(b), parse_turns(c)).divergence is not None
            for b, c in chunk.select("messages", "messages_cand").iter_rows()
        ]
    return apart.filter(pl.Series(forks, dtype=pl.Boolean))
