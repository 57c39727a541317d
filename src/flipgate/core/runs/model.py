"""A run (SPEC §2) as the gate holds it: the manifest of `run.yaml` and three tidy frames.

- `reps`: one row per (case, rep) with status, safety, template, second metrics and the
  source `line`; its texts (the stored output, the trajectory, the line's other fields) are
  read where they are stored when asked for, by `line` (`Run.texts`, see `texts`);
- `decided`: the decisions as read, one row per repetition that holds a label (case, rep, line)
  with each rule's labels and reason side by side, a column per rule and field (`expected/RULE`,
  `actual/RULE`, `reason/RULE`, see `decision_column`); the gate reads this;
- `decisions`: the same decisions one row per labelled decision (case, rep, rule, expected,
  actual, reason, line), rule by rule, made from `decided` on first use and kept, for the app
  and the reports: a million cases make 12M rows an arm, which the gate never builds;
- `checks`: one row per pass/fail check (case, rep, rule, passed, reason, line).

A rule and a label are categories (`pl.Categorical`, read back as the same strings): a million
cases make 12M decisions an arm, where strings cost the gate's peak a quarter (bench/README.md).
A label that is not the run's still reads (the checks name it), so not an `Enum`.

The `line` of a repetition is unique within a run: the gate keys its per-repetition sums by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
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
Frames = tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]  # reps, decided, checks
DECIDED_FIELDS = ("expected", "actual", "reason")  # a decision's columns, each rule's own

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
    decided: pl.DataFrame  # a row per decided repetition, a column per rule and field
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
        return sorted(set(self.decision_rules) | set(self.checks["rule"]))

    @property
    def decision_rules(self) -> tuple[str, ...]:
        """The rules the decisions name (a column each), sorted."""
        return decided_rules(self.decided)

    @cached_property
    def decisions(self) -> pl.DataFrame:
        """One row per labelled decision (`DECISIONS_SCHEMA`), rule by rule, each rule's in the
        order of `decided`: made on first use, never on the gate's path."""
        return long_decisions(self.decided)


def decision_column(name: str, rule: str) -> str:
    """The column of `decided` holding `rule`'s field `name` (`DECIDED_FIELDS`)."""
    return f"{name}/{rule}"


def decided_rules(decided: pl.DataFrame) -> tuple[str, ...]:
    """The rules that hold a decision in a `decided` frame (a label on a side), sorted: a
    rule's column can hold none (every line's value null, or only infra lines', filtered)."""
    prefix = decision_column("expected", "")
    named = (c.removeprefix(prefix) for c in decided.columns if c.startswith(prefix))
    return tuple(
        sorted(
            rule
            for rule in named
            if any(
                decided[decision_column(side, rule)].null_count() < decided.height for side in SIDES
            )
        )
    )


def rule_decisions(decided: pl.DataFrame, rule: str) -> pl.DataFrame:
    """One rule's decisions of a `decided` frame as rows of `DECISIONS_SCHEMA`: the repetitions
    that give it a label."""
    sides = [pl.col(decision_column(side, rule)) for side in SIDES]
    return decided.filter(sides[0].is_not_null() | sides[1].is_not_null()).select(
        "case",
        "rep",
        pl.lit(rule, pl.Categorical).alias("rule"),
        *(pl.col(decision_column(name, rule)).alias(name) for name in DECIDED_FIELDS),
        "line",
    )


def long_decisions(decided: pl.DataFrame) -> pl.DataFrame:
    """`decided` one row per decision: rule by rule, each in the order of `decided`."""
    parts = [rule_decisions(decided, rule) for rule in decided_rules(decided)]
    if not parts:
        return pl.DataFrame(schema=DECISIONS_SCHEMA)
    return pl.concat(parts).cast(DECISIONS_SCHEMA)  # type: ignore[arg-type]


def decided_schema(rules: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The columns of a `decided` frame over `rules`."""
    ids = {name: DECISIONS_SCHEMA[name] for name in ("case", "rep", "line")}
    return ids | {
        decision_column(name, rule): DECISIONS_SCHEMA[name]
        for rule in rules
        for name in DECIDED_FIELDS
    }


def decided_from_long(decisions: pl.DataFrame) -> pl.DataFrame:
    """A `decided` frame from decisions one row each (`DECISIONS_SCHEMA`'s columns; strings
    are cast): importers' records and a run rewritten decision by decision. A repetition's
    row is its first decision's place; a rule given twice on one line is a bug."""
    decisions = decisions.select(list(DECISIONS_SCHEMA)).cast(DECISIONS_SCHEMA)  # type: ignore[arg-type]
    if decisions.select(pl.struct("line", "rule").is_duplicated().any()).item():
        raise ValueError("a line gives a rule twice")
    rules = sorted(decisions["rule"].cast(pl.String).unique().to_list())
    decided = decisions.select("case", "rep", "line").unique("line", maintain_order=True)
    for rule in rules:
        own = decisions.filter(pl.col("rule") == rule).select(
            "line", *(pl.col(name).alias(decision_column(name, rule)) for name in DECIDED_FIELDS)
        )
        decided = decided.join(own, on="line", how="left", maintain_order="left")
    return decided.cast(decided_schema(rules))  # type: ignore[arg-type]


def with_decisions(run: Run, decisions: pl.DataFrame, **changes: Any) -> Run:
    """`run` with its decisions rewritten one row each (`decided_from_long`), and `changes`."""
    return replace(run, decided=decided_from_long(decisions), **changes)


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
