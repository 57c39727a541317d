"""SPEC §2's checks of a results file, each written once, for both ways of reading it.

`FIELDS` is the table of the fields SPEC §2 names and the type each holds: the line reader checks
a parsed line against it (`record_problem`), the columnar readers (Arrow's JSON reader, Parquet)
check a column's type against it (`column_problem`). A new field is one more row.

`validate` then runs the value checks (`value_checks`: labels, duplicates, safety consistency,
finite metrics...) vectorised on the tidy frames, whichever reader built them; the first
offending line in file order is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.runs.model import (
    METRICS,
    SIDES,
    Frames,
    Labels,
    decided_rules,
    decision_column,
    long_decisions,
    out_of_case_order,
)
from flipgate.core.runs.turns import messages_problem, turns_type_ok

INT64_MAX = 2**63 - 1
_INTEGERS = (pl.Int8, pl.Int16, pl.Int32, pl.Int64, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64)
_NUMBERS = (*_INTEGERS, pl.Float32, pl.Float64)


@dataclass(frozen=True)
class Kind:
    """A value SPEC §2 allows: as a parsed JSON value (`holds`) and as a column type (`dtypes`).

    A nested kind (a trajectory) also says which part of a value is wrong (`problem`: the field
    path and a sentence) and judges a whole nested column type (`column_holds`)."""

    word: str
    holds: Callable[[Any], bool]
    dtypes: tuple[type[pl.DataType], ...]
    problem: Callable[[Any], tuple[str, str] | None] | None = None
    column_holds: Callable[[pl.DataType], bool] | None = None


TEXT = Kind("a string", lambda v: isinstance(v, str), (pl.String,))
LABEL = Kind("a label", TEXT.holds, TEXT.dtypes)
FLAG = Kind("true/false", lambda v: isinstance(v, bool), (pl.Boolean,))
# Python's ints are unbounded: a rep past Int64 cannot be held in the tables.
WHOLE = Kind("a non-negative integer", lambda v: type(v) is int and v <= INT64_MAX, _INTEGERS)
NUMBER = Kind("a number", lambda v: type(v) in (int, float), _NUMBERS)
TURNS = Kind(
    "a list of turns",
    lambda v: messages_problem(v) is None,
    (pl.List,),
    problem=messages_problem,
    column_holds=turns_type_ok,
)


@dataclass(frozen=True)
class Field:
    name: str
    kind: Kind
    per_rule: bool = False  # one value, or a mapping rule -> value
    required: bool = False

    @property
    def wants(self) -> str:
        one = self.kind.word
        return f"must be {one} or a mapping rule -> {one}" if self.per_rule else f"must be {one}"


FIELDS = (
    Field("case", TEXT, required=True),
    Field("rep", WHOLE),
    Field("status", TEXT),
    Field("infra", TEXT),
    Field("safety", FLAG),
    Field("cached", FLAG),
    Field("template", TEXT),
    Field("output", TEXT),
    *(Field(name, NUMBER) for name in METRICS),
    Field("expected", LABEL, per_rule=True),
    Field("actual", LABEL, per_rule=True),
    Field("reasons", TEXT, per_rule=True),
    Field("passed", FLAG, per_rule=True),
    Field("messages", TURNS),
)
KNOWN_FIELDS = frozenset(f.name for f in FIELDS)
# What the verdict is computed from; outputs, reasons, trajectories and extra fields are shown.
GATE_FIELDS = frozenset(KNOWN_FIELDS - {"output", "reasons", "messages"})


def _shown(value: Any) -> str:
    """A value in an error message: a long one is cut, its type still plain."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def record_problem(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first field of a parsed line that breaks `FIELDS`, as (field, message)."""
    for spec in FIELDS:
        value = record.get(spec.name)
        if value is None:
            if spec.required:
                return spec.name, "required on every line"
            continue
        if spec.kind.holds(value):
            continue
        if spec.kind.problem is not None and (where := spec.kind.problem(value)) is not None:
            return where
        if spec.per_rule and isinstance(value, dict):
            for rule, item in value.items():
                if item is not None and not spec.kind.holds(item):
                    return f"{spec.name}.{rule}", f"{spec.wants}, not {_shown(item)}"
            continue
        return spec.name, f"{spec.wants}, not {_shown(value)}"
    return None


def column_problem(schema: Mapping[str, pl.DataType]) -> tuple[str, str] | None:
    """The first column whose type `FIELDS` does not allow, as (field, message)."""

    def allowed(dtype: Any, kind: Kind) -> bool:  # a DataType, or a struct field's class
        return any(dtype == t for t in (pl.Null, *kind.dtypes))

    for spec in FIELDS:
        if spec.name not in schema:
            if spec.required:
                return spec.name, "required on every line"
            continue
        dtype = schema[spec.name]
        if spec.required and dtype == pl.Null:  # null on every line
            return spec.name, "required on every line"
        if spec.kind.column_holds is not None:
            if not spec.kind.column_holds(dtype):
                return spec.name, spec.wants
            continue
        if allowed(dtype, spec.kind):
            continue
        if spec.per_rule and isinstance(dtype, pl.Struct):
            wrong = next((f for f in dtype.fields if not allowed(f.dtype, spec.kind)), None)
            if wrong is None:
                continue
            return f"{spec.name}.{wrong.name}", spec.wants
        return spec.name, spec.wants
    return None


# --------------------------------------------------------------------------- value checks


@dataclass(frozen=True)
class ValueCheck:
    """One check of SPEC §2 on the tidy frames: the rows that break it, and what to say.

    `field` and `message` are templates filled from the first offending row (`{rule}`, `{rep}`).
    """

    name: str
    table: Literal["reps", "decisions"]
    breaks: pl.Expr
    field: str
    message: str
    # Found from the order of the rows when they are written case by case (most runs are):
    # only a run written out of that order pays for the grouping `breaks` needs.
    grouped: bool = False

    def error(self, path: Path, row: dict[str, Any]) -> InputError:
        shown = {
            k: v[:57] + "..." if isinstance(v, str) and len(v) > 60 else v for k, v in row.items()
        }
        return InputError(
            path,
            self.message.format(**shown),
            line=row["line"],
            field=self.field.format(**shown),
        )


def value_checks(frames: Frames, labels: Labels) -> list[ValueCheck]:
    """The value checks, in the order their errors are reported."""
    reps, decided, checks = frames
    # An infra repetition produced no gradable result: a half-written decision there is no error.
    infra = reps.select(pl.col("line").filter(pl.col("status") == "infra")).to_series()
    # most runs have none: then a missing label is all the check looks for (a null count, free)
    not_infra = ~pl.col("line").is_in(infra.implode()) if infra.len() else pl.lit(True)
    rules_decided = decided_rules(decided)
    allowed = list(labels.all())
    named = ", ".join(allowed).replace("{", "{{").replace("}", "}}")
    return [
        ValueCheck("case", "reps", pl.col("case").is_null(), "case", "required on every line"),
        ValueCheck(
            "blank case",
            "reps",
            blank("case"),
            "case",
            "must be a non-empty string",
        ),
        ValueCheck("rep", "reps", pl.col("rep") < 0, "rep", f"must be {WHOLE.word}, not {{rep}}"),
        ValueCheck(
            "status",
            "reps",
            (pl.col("status") != "ok") & (pl.col("status") != "infra"),  # a third of is_in's time
            "status",
            "must be 'ok' or 'infra', not {status!r}",
        ),
        ValueCheck(
            "duplicate",
            "reps",
            pl.struct("case", "rep").is_duplicated()
            & (pl.col("line") > pl.col("line").min().over("case", "rep")),
            "rep",
            "duplicate (case, rep): {case} rep {rep} appears twice",
            grouped=True,
        ),
        ValueCheck(
            "mixed safety",
            "reps",
            pl.col("safety") != pl.col("safety").sort_by("line").first().over("case"),
            "safety",
            "`safety` differs between the lines of case {case}",
            grouped=True,
        ),
        ValueCheck(
            "blank template",
            "reps",
            blank("template"),
            "template",
            "must be a non-empty string (leave it out for a case of no template)",
        ),
        ValueCheck(  # a line that names none (an infra repetition, often) says nothing against
            "mixed template",
            "reps",
            pl.col("template")
            != pl.col("template").sort_by("line").drop_nulls().first().over("case"),
            "template",
            "`template` differs between the lines of case {case}",
            grouped=True,
        ),
        *(
            ValueCheck(
                f"no {side}",
                "decisions",
                pl.col(side).is_null() & not_infra,
                f"{side}.{{rule}}",
                f"rule {{rule!r}} has an `{other}` label but no `{side}` label",
            )
            for side, other in zip(SIDES, reversed(SIDES), strict=True)
            # the columns' counts, kept: no null in any rule's, no decision to look at
            if any(decided[decision_column(side, rule)].null_count() for rule in rules_decided)
        ),
        *(
            ValueCheck(
                side,
                "decisions",
                pl.col(side).is_not_null() & ~pl.col(side).is_in(allowed),
                f"{side}.{{rule}}",
                f"label {{{side}!r}} is not one of the run's labels ({named})",
            )
            for side in SIDES
        ),
        ValueCheck(
            "ungraded",
            "reps",
            (pl.col("status") == "ok") & ~_graded(reps, decided, checks),
            "expected",
            "a repetition needs `expected`/`actual` labels or a `passed` check (or status: infra)",
        ),
        *(
            ValueCheck(
                name,
                "reps",
                ~pl.col(name).is_finite(),  # NaN and infinities in one pass
                name,
                "must be a finite number",
            )
            for name in METRICS
        ),
    ]


def blank(name: str) -> pl.Expr:
    """A string of nothing but whitespace: no character outside Unicode's White_Space, the set
    `str.strip_chars` strips, found without building the stripped strings (a third less time)."""
    return ~pl.col(name).str.contains(r"\S")


def validate(frames: Frames, path: Path, labels: Labels) -> None:
    """Raise the first value check that fails, at the first offending line (in file order).

    Each table answers all its ungrouped checks in one select, every condition at once (on as
    many cores); the offending line is looked up only for a check that fails.
    """
    reps, decided, _ = frames
    if reps.height == 0:
        raise InputError(path, "no results: the file holds no lines")
    rules = value_checks(frames, labels)
    # A run written case by case, rep by rep needs no grouping for the per-case checks: no
    # (case, rep) can repeat, and each line's safety and template need only match the line before.
    same_case = pl.col("case") == pl.col("case").shift()
    order = {
        "out of order": out_of_case_order(),
        "safety changes": same_case & (pl.col("safety") != pl.col("safety").shift()),
        # the template named last before this line: in a case's run of rows, one that differs
        # is a mix, or a change from the case before (the grouped check tells them apart)
        "template changes": same_case
        & (pl.col("template") != pl.col("template").forward_fill().shift()),
    }
    plain = [rule for rule in rules if not rule.grouped]
    failing = _holding(reps, {r.name: r.breaks for r in plain if r.table == "reps"} | order)
    failing |= _holding_by_rule(
        decided, {r.name: r.breaks for r in plain if r.table == "decisions"}
    )
    grouped = [rule for rule in rules if rule.grouped]
    if "out of order" in failing:
        failing |= _holding(reps, {rule.name: rule.breaks for rule in grouped})
    else:  # in order, a case's lines are one run of rows: a change within it may be a mix
        changed = [r for r in grouped if f"{r.name.removeprefix('mixed ')} changes" in failing]
        failing |= _holding(reps, {rule.name: rule.breaks for rule in changed})
    for rule in rules:
        if rule.name in failing:
            table = reps if rule.table == "reps" else long_decisions(decided)  # only to name it
            row = table.filter(rule.breaks).sort("line").row(0, named=True)
            raise rule.error(path, row)


def _holding(table: pl.DataFrame, conditions: dict[str, pl.Expr]) -> set[str]:
    """The names of the conditions that hold on some row of `table`, from one select."""
    if not conditions:
        return set()
    found = table.select(condition.any().alias(name) for name, condition in conditions.items())
    return {name for name, hit in found.row(0, named=True).items() if hit}


def _holding_by_rule(decided: pl.DataFrame, conditions: dict[str, pl.Expr]) -> set[str]:
    """`_holding` over the decisions of `decided` (`model.decided`), rule by rule: each rule's
    columns under the names a decision's row has, where the rows one per decision would be made
    for this alone."""
    if not conditions:
        return set()
    found: set[str] = set()
    for rule in decided_rules(decided):
        columns = decided.lazy().select(
            "line", *(pl.col(decision_column(side, rule)).alias(side) for side in SIDES)
        )
        decision = pl.any_horizontal(pl.col(side).is_not_null() for side in SIDES)
        hits = columns.select(
            (condition & decision).any().alias(name) for name, condition in conditions.items()
        ).collect()
        found |= {name for name, hit in hits.row(0, named=True).items() if hit}
    return found


def _graded(reps: pl.DataFrame, decided: pl.DataFrame, checks: pl.DataFrame) -> pl.Series:
    """Per repetition, whether a decision or a check grades it: a lookup by source line, where an
    `is_in` over a million lines costs four times more."""
    reps_lines = reps["line"].to_numpy()
    graded = np.zeros(int(reps_lines.max()) + 1, dtype=np.bool_)
    for lines in (decided["line"], checks["line"]):
        graded[lines.to_numpy()] = True
    return pl.Series(graded[reps_lines])
