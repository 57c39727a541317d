"""Triage step 2, flaky (SPEC §5): the flipped cases that look noisy, each with its signs (listed,
unsteady across identical baseline runs, repetitions split within an arm, a verdict the judge alone
moves); facts `flaky_list`, `baseline_repeats`, `no_baseline_repeats`, `noisy_case`,
`judge_unstable`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import ClassVar, Literal

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.order import natural_sort
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import Arm, TriageClass, TriageFactCode

Mark = Literal["pass", "fail", "missing"]  # a case's collapsed verdict in one run
SplitIn = Literal["both", "baseline", "candidate"]  # where a case's repetitions split


@dataclass(frozen=True)
class FlakyListSize:
    code: ClassVar[TriageFactCode] = "flaky_list"
    entries: int


@dataclass(frozen=True)
class BaselineRepeats:
    """The identical baseline runs given, and the cases whose verdict flips between them."""

    code: ClassVar[TriageFactCode] = "baseline_repeats"
    runs: tuple[str, ...]  # run ids, the baseline's first
    cases: tuple[str, ...]


@dataclass(frozen=True)
class NoBaselineRepeats:
    code: ClassVar[TriageFactCode] = "no_baseline_repeats"


@dataclass(frozen=True)
class ListedEntry:
    """A flipped case's entry on the flaky list."""

    added: date
    owner: str
    reason: str
    evidence: str


@dataclass(frozen=True)
class NoisyCase:
    """A flipped case and every sign that it is noisy."""

    code: ClassVar[TriageFactCode] = "noisy_case"
    case: str
    listed: ListedEntry | None
    marks: tuple[Mark, ...] | None  # across the baseline runs, when it flips between them
    split_in: SplitIn | None  # where its repetitions split
    baseline: tuple[int, int]  # (passing, gradable) repetitions
    candidate: tuple[int, int]


@dataclass(frozen=True)
class JudgeUnstable:
    """Flipped cases whose verdict in `arm` moved when only the judge ran again on the same
    stored outputs (`rejudged/`, `core/gate/judge.py`): noise the flaky list holds, with the
    judge's evidence (`flipgate flaky propose --rejudged`)."""

    code: ClassVar[TriageFactCode] = "judge_unstable"
    arm: Arm
    judgings: int  # the run and its rejudgings
    cases: tuple[str, ...]


@dataclass(frozen=True)
class FlakyFindings:
    code: ClassVar[TriageClass] = "flaky"
    listed: int
    unsteady: int  # flipping between the baseline runs
    split_both: int
    split_one: int  # split in one arm only
    judge_unstable: int = 0  # flipped cases the judge alone moves


FACTS = (FlakyListSize, BaselineRepeats, NoBaselineRepeats, NoisyCase, JudgeUnstable)


def check_repeats(baseline: Run, repeats: Sequence[Run]) -> None:
    for repeat in repeats:
        differs = moved_components(baseline.key, repeat.key)
        if differs:
            detail = ", ".join(
                f"{c.name} is {c.shown_after} here, {c.shown_before} in the baseline"
                for c in differs
            )
            raise InputError(
                repeat.path,
                f"baseline repeat {repeat.run_id} is not a repeat of {baseline.run_id}: "
                f"its key differs ({detail})",
                field=f"key.{differs[0].name}",
            )


def flaky_step(comparison: Comparison, flips: pl.DataFrame, repeats: Sequence[Run]) -> TriageStep:
    flaky = comparison.flaky
    facts: list[FlakyListSize | BaselineRepeats | NoBaselineRepeats | NoisyCase | JudgeUnstable] = [
        FlakyListSize(len(flaky.entries))
    ]
    # Each sign that a flipped case is noisy: listed, unsteady across the baseline runs, its
    # repetitions split.
    entries = pl.DataFrame(
        [(e.case, e.added, e.owner, e.reason, e.evidence) for e in flaky.entries],
        schema={
            "case": pl.String,
            "added": pl.Date,
            "owner": pl.String,
            "reason": pl.String,
            "evidence": pl.String,
        },
        orient="row",
    ).unique("case", keep="first")
    signs = flips.with_row_index("row").join(
        entries.select("case", entry=pl.struct("added", "owner", "reason", "evidence")),
        on="case",
        how="left",
    )
    unsteady = pl.lit(None, pl.List(pl.String))
    if repeats:
        runs = (comparison.baseline.run_id, *(r.run_id for r in repeats))
        flipping = _unsteady(comparison, repeats)
        facts.append(BaselineRepeats(runs, tuple(flipping["case"])))
        signs = signs.join(flipping, on="case", how="left")
        unsteady = pl.col("marks")
    else:
        facts.append(NoBaselineRepeats())

    split = {
        arm: pl.col(f"{prefix}_passes")
        .fill_null(0)
        .is_between(1, pl.col(f"{prefix}_gradable").fill_null(0) - 1)
        for arm, prefix in PREFIX.items()
    }
    where = (
        pl.when(split["baseline"] & split["candidate"])
        .then(pl.lit("both"))
        .when(split["baseline"])
        .then(pl.lit("baseline"))
        .when(split["candidate"])
        .then(pl.lit("candidate"))
    )
    # Named in this order: listed, unsteady (by case id), split in both arms (noise alone would
    # flip them: these three explain the flip), then split in one arm only.
    rank = (
        pl.when(pl.col("listed"))
        .then(0)
        .when(unsteady.is_not_null())
        .then(1)
        .when(where == "both")
        .then(2)
        .when(where.is_not_null())
        .then(3)
    )
    noisy = (
        signs.with_columns(rank=rank, marks=unsteady, split_in=where)
        .filter(pl.col("rank").is_not_null())
        .sort("rank", pl.when(pl.col("rank") == 1).then("case"), "row")
    )
    columns = ("case", "listed", "entry", "marks", "split_in", *_counts("base"), *_counts("cand"))
    for case, listed, entry, marks, split_in, *counts in noisy.select(columns).iter_rows():
        facts.append(
            NoisyCase(
                case,
                ListedEntry(**entry) if listed else None,
                None if marks is None else tuple(marks),
                split_in,
                (counts[0] or 0, counts[1] or 0),
                (counts[2] or 0, counts[3] or 0),
            )
        )
    # The judge alone (rejudged/): a flipped case whose verdict moves with no new output.
    flipped = set(flips["case"])
    judged = [
        JudgeUnstable(r.arm, r.judgings, cases)
        for r in comparison.judge_repeats
        if (cases := tuple(c for c in r.unstable_cases if c in flipped))
    ]
    facts += judged
    moved_by_judge = sorted({case for fact in judged for case in fact.cases})
    named = tuple(dict.fromkeys((*noisy["case"], *moved_by_judge)))
    explained = tuple(dict.fromkeys((*noisy.filter(pl.col("rank") < 3)["case"], *moved_by_judge)))
    listed, unsteady_n, split_both, split_any = noisy.select(
        listed=pl.col("listed").sum(),
        unsteady=pl.col("marks").is_not_null().sum(),
        split_both=(pl.col("split_in") == "both").sum(),
        split=pl.col("split_in").is_not_null().sum(),
    ).row(0)
    return TriageStep(
        "flaky",
        FlakyFindings(listed, unsteady_n, split_both, split_any - split_both, len(moved_by_judge)),
        tuple(facts),
        named,
        bool(explained),
        explained,
    )


def _counts(prefix: str) -> tuple[str, str]:
    return f"{prefix}_passes", f"{prefix}_gradable"


def _unsteady(comparison: Comparison, repeats: Sequence[Run]) -> pl.DataFrame:
    """The cases whose collapsed verdict differs between the baseline and its repeats, by case
    id, with `marks`: pass, fail or missing in each run in turn."""
    runs = [f"run{i}" for i in range(len(repeats) + 1)]
    verdicts = comparison.cases.select("case", pl.col("base_passed").alias(runs[0])).filter(
        pl.col(runs[0]).is_not_null()
    )
    for run, repeat in zip(runs[1:], repeats, strict=True):
        # The gate's own collapse, applied to the baseline against its repeat.
        paired = compare(comparison.baseline, repeat, comparison.spec).cases
        verdicts = verdicts.join(
            paired.select("case", pl.col("cand_passed").alias(run)),
            on="case",
            how="full",
            coalesce=True,
        )
    mark = (
        pl.when(pl.col(run).is_null())
        .then(pl.lit("missing"))
        .when(pl.col(run))
        .then(pl.lit("pass"))
        .otherwise(pl.lit("fail"))
        for run in runs
    )
    passes = pl.any_horizontal(pl.col(run).fill_null(False) for run in runs)
    fails = pl.any_horizontal((~pl.col(run)).fill_null(False) for run in runs)
    return natural_sort(verdicts.filter(passes & fails).select("case", marks=pl.concat_list(mark)))
