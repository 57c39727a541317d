"""A run (SPEC §2) as the gate holds it: the manifest of `run.yaml` and three tidy frames.

- `reps`: one row per (case, rep) with status, safety, template, second metrics and the
  source `line`; its texts (the stored output, the trajectory, the line's other fields) are
  read where they are stored when asked for, by `line` (`Run.texts`, see `texts`);
- `decisions`: one row per labelled decision (case, rep, rule, expected, actual, reason, line);
- `checks`: one row per pass/fail check (case, rep, rule, passed, reason, line).

A rule and a label are categories (`pl.Categorical`, read back as the same strings): a million
cases make 12M decisions an arm, where strings cost the gate's peak a quarter (bench/README.md).
A label that is not the run's still reads (the checks name it), so not an `Enum`.

The `line` of a repetition is unique within a run: the gate keys its per-repetition sums by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from flipgate.core.runs.texts import HeldTexts, Texts
from flipgate.core.vocab import DEFAULT_LABELS, Coded

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Completeness

SINGLE_DECISION_RULE = "decision"  # the rule name of `expected: approve` (one decision per rep)
SINGLE_CHECK_RULE = "passed"  # the rule name of `passed: true` (one check per rep)
METRICS = ("latency_ms", "cost_usd", "steps", "tokens")
SIDES = ("expected", "actual")  # the two labels of a decision

Progress = Callable[[str], None]
Frames = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]  # reps, decisions, checks

REPS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "line": pl.Int64,
    "status": pl.String,
    "infra": pl.String,
    "safety": pl.Boolean,
    "cached": pl.Boolean,
    "template": pl.String,
    **dict.fromkeys(METRICS, pl.Float64),
}
DECISIONS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "rule": pl.Categorical,
    "expected": pl.Categorical,
    "actual": pl.Categorical,
    "reason": pl.String,
    "line": pl.Int64,
}
CHECKS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "rule": pl.Categorical,
    "passed": pl.Boolean,
    "reason": pl.String,
    "line": pl.Int64,
}


@dataclass(frozen=True)
class Labels:
    negative: str = DEFAULT_LABELS["negative"]
    positive: str = DEFAULT_LABELS["positive"]
    abstain: str = DEFAULT_LABELS["abstain"]

    def all(self) -> tuple[str, str, str]:
        return (self.negative, self.positive, self.abstain)


@dataclass(frozen=True)
class Run:
    """One arm: the manifest of `run.yaml` and the results as tidy frames."""

    path: Path  # the run directory, or the external log it was imported from
    run_id: str
    suite: str
    created: datetime | None
    key: dict[str, str]
    change_keys: tuple[str, ...]
    change_summary: str | None
    labels: Labels
    manifest: dict[str, Any]
    reps: pl.DataFrame
    decisions: pl.DataFrame
    checks: pl.DataFrame
    source_format: str = "flipgate"  # or "inspect", "promptfoo"
    notes: tuple[Coded, ...] = ()  # what the run says of itself (present/run_notes.py words it)
    extra_manifest: dict[str, Any] = field(default_factory=dict)  # unknown run.yaml fields
    # whether the run finished and which repetitions it lacks, as its log or run.yaml states it;
    # None: it states nothing, and is taken as whole (the case ledger, `core/gate/ledger.py`)
    completeness: Completeness | None = None
    texts: Texts = field(default_factory=HeldTexts)  # each repetition's texts, by `line`

    @property
    def rules(self) -> list[str]:
        return sorted(set(self.decisions["rule"]) | set(self.checks["rule"]))


def drop_where(frame: pl.DataFrame, condition: pl.Expr) -> pl.DataFrame:
    """`frame` without the rows where `condition` holds. Checked first: a filter that keeps
    every row still copies every column (50 ms for a million decisions)."""
    return frame.filter(~condition) if frame.select(condition.any()).item() else frame


def rep_rows(reps: pl.DataFrame) -> np.ndarray:
    """line -> its row of `reps`, as a lookup table: where each decision or check of a run
    belongs, by index, where a join of a million decisions on `line` costs ten times more."""
    lines = reps["line"].to_numpy()
    rows = np.zeros(
        int(lines.max(initial=0)) + 1, dtype=np.int64
    )  # none: a run re-scored on no case
    rows[lines] = np.arange(reps.height)
    return rows


def out_of_case_order() -> pl.Expr:
    """The rows of a repetitions table that break "case by case, in sorted order, each case's
    reps ascending": on none of them, the per-case work needs no hash grouping and no sort."""
    case, rep = pl.col("case"), pl.col("rep")
    return ~((case > case.shift()) | ((case == case.shift()) & (rep > rep.shift())))
