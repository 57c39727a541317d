"""The columnar path: a run's results read in one pass, Arrow's JSON reader or Parquet.

Used when the fields have the types SPEC §2 gives them; a JSONL file whose lines do not (bad JSON,
a field of the wrong type, a label given as a string on some lines and as a mapping on others)
is handed to the line-by-line reader (`records`), which names the line and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.io.files import regular_file, unreadable
from flipgate.core.runs.checks import FIELDS, GATE_FIELDS, INT64_MAX, KNOWN_FIELDS, column_problem
from flipgate.core.runs.memory import Estimate, check_fits, estimate
from flipgate.core.runs.model import (
    CHECKS_SCHEMA,
    DECISIONS_SCHEMA,
    REPS_SCHEMA,
    SIDES,
    SINGLE_CHECK_RULE,
    SINGLE_DECISION_RULE,
    Frames,
    decision_column,
    drop_where,
)
from flipgate.core.runs.nesting import Lines
from flipgate.core.runs.records import read_jsonl_lines
from flipgate.core.runs.texts import JsonlTexts, ParquetTexts, Stamp, Texts, stamp_unchanged
from flipgate.core.runs.turns import messages_problem, turns_flagged

_PER_RULE = tuple(f.name for f in FIELDS if f.per_rule)


def read_jsonl(path: Path, *, lean: bool = False) -> tuple[Frames, Texts]:
    """Arrow's JSON reader: multi-threaded, it infers the schema from every line in the same pass
    (polars either samples the first lines and drops later fields, or reads the file twice), and
    it refuses a field whose type changes between lines instead of coercing it. The file is
    read twice, a block at a time: the line count and the nesting check, then Arrow's reader,
    so that its bytes are never all held (they share the page cache). The texts are parsed and
    their types checked, then left in the file: read again by line when asked for (`texts`)."""
    import pyarrow as pa  # only JSONL runs need it: the gate on Parquet starts without
    import pyarrow.json as pa_json

    regular_file(path)
    check_fits(path)
    stamp = Stamp.of(path)
    try:
        lines = Lines.scan_file(path)
        # Mapped, for the few bytes read again (a line nested too deep, the last byte): only
        # those pages are read in.
        octets = np.memmap(path, dtype=np.uint8, mode="r") if path.stat().st_size else _EMPTY
    except OSError as exc:
        raise unreadable(path, exc) from None
    problem = lines.nesting_problem(octets, path)
    if problem is not None:
        raise problem
    try:
        table = pa_json.read_json(str(path))
        table.validate(full=True)  # Arrow keeps bytes that are not UTF-8 in its strings
        if _nul_in_names(table.schema):
            return read_jsonl_lines(path)
        types = pl.from_arrow(table.schema.empty_table())
    except (pa.ArrowException, ValueError):  # the line reader names the line and the field
        return read_jsonl_lines(path)
    except OSError as exc:
        raise unreadable(path, exc) from None
    assert isinstance(types, pl.DataFrame)
    if table.num_rows == 0 or column_problem(types.schema) is not None:
        return read_jsonl_lines(path)
    kept = _kept(lean)  # the trajectories are checked, not kept
    df = pl.from_arrow(table.select([name for name in table.column_names if name in kept]))
    assert isinstance(df, pl.DataFrame)
    df = _with_line_numbers(df, octets, lines)
    texts = JsonlTexts(
        path,
        stamp,
        lines.newlines,
        schema=table.schema,
        extra=_extra_fields(table.column_names),
        rows=df["line"].to_numpy(),
        outputs=_outputs(table, df["line"]),
    )
    _check_turns(df, path)
    # Arrow's table (polars copied its strings) goes before the tidy frames are made.
    del table, lines
    frames = _frames_from_columns(df.drop("messages", strict=False), path)
    stamp_unchanged(path, stamp)
    return frames, texts


def _outputs(table: Any, lines: pl.Series) -> pl.DataFrame | None:
    """line, output: the outputs Arrow's reader parsed, kept beside the file (`texts`)."""
    if "output" not in table.column_names:
        return None
    outputs = pl.from_arrow(table.select(["output"]))
    assert isinstance(outputs, pl.DataFrame)
    return outputs.select(lines, pl.col("output").cast(pl.String))


def _kept(lean: bool) -> frozenset[str]:
    """The fields read into the tidy frames: the trajectories only for their checks, the other
    texts (the output, the team's own fields) not at all; the lean gate's, only the verdict's
    (no reasons)."""
    return (GATE_FIELDS if lean else KNOWN_FIELDS - {"output"}) | {"messages"}


def _read_columns(schema: Mapping[str, pl.DataType], lean: bool) -> list[str]:
    kept = _kept(lean)
    return [c for c in schema if c in kept]


def results_estimate(path: Path, *, lean: bool = False) -> Estimate | None:
    """What reading the results file `path` will take (`memory.estimate`), the columns counted
    as `read_parquet` or `read_jsonl` will read them; None when the file cannot say."""
    if path.suffix != ".parquet":
        return estimate(path)
    try:
        schema = pl.read_parquet_schema(path)
    except Exception:  # the reader says what is wrong with it
        return None
    return estimate(path, (schema, _read_columns(schema, lean)))


def _extra_fields(names: Iterable[str]) -> list[str]:
    """The team's own fields, shown as a line's `extra` texts."""
    return [name for name in names if name not in KNOWN_FIELDS and name != "line"]


def _nul_in_names(schema: Any) -> bool:
    """Whether a field name, at any depth, holds a NUL (a rule named `"x\\u0000"`): polars cuts a
    name there, and two rules `x` and `x\\u0000` would make one struct with a field twice, which
    polars does not refuse but panics on. The line reader keeps each name a value."""
    import pyarrow as pa

    todo = list(schema)
    while todo:
        field = todo.pop()
        if "\x00" in field.name:
            return True
        kind = field.type
        if pa.types.is_struct(kind):
            todo.extend(kind.field(i) for i in range(kind.num_fields))
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
            todo.append(kind.value_field)
    return False


_EMPTY = np.zeros(0, dtype=np.uint8)


def _with_line_numbers(df: pl.DataFrame, octets: np.ndarray, lines: Lines) -> pl.DataFrame:
    """Each row's file line: blank lines are skipped by the reader, not by the count."""
    ends_open = octets.size > 0 and octets[-1] != ord("\n")
    if lines.newlines.size + ends_open == df.height:
        return _numbered(df)
    return df.with_columns(line=pl.Series(lines.filled(octets), dtype=pl.Int64))


def read_parquet(path: Path, *, lean: bool = False) -> tuple[Frames, Texts]:
    """The columns of the tidy frames read; the texts' columns only their types, from no rows
    (read by rows when asked for, `texts`)."""
    regular_file(path)
    stamp = Stamp.of(path)
    try:
        schema = pl.read_parquet_schema(path)
    except Exception as exc:
        raise InputError(path, f"not a readable Parquet file ({exc})") from None
    columns = _read_columns(schema, lean)
    check_fits(path, (schema, columns))
    try:
        df = plain_columns(pl.read_parquet(path, columns=columns))
        # The columns left unread still have their types checked, from no rows.
        unread = [c for c in schema if c not in columns]
        types = plain_columns(pl.read_parquet(path, columns=unread, n_rows=0)) if unread else df
    except Exception as exc:
        raise InputError(path, f"not a readable Parquet file ({exc})") from None
    problem = column_problem(pl.Schema({**df.schema, **types.schema}))
    if problem:
        name, message = problem
        line = 1
        if name == "messages" and name in df.columns:  # the first turn the type cannot hold
            line, (name, message) = next(
                (
                    (number, found)
                    for number, turns in enumerate(df[name].to_list(), start=1)
                    if (found := messages_problem(turns)) is not None
                ),
                (line, problem),
            )
        raise InputError(path, message, line=line, field=name)
    df = _numbered(df)
    _check_turns(df, path)
    df = df.drop("messages", strict=False)
    if "rep" in df.columns and isinstance(df.schema["rep"], pl.UInt64):
        too_big = df.filter(pl.col("rep") > INT64_MAX)
        if too_big.height:
            row = too_big.row(0, named=True)
            raise InputError(
                path, f"must be below 2^63, not {row['rep']}", line=row["line"], field="rep"
            )
    frames = _frames_from_columns(df, path)
    stamp_unchanged(path, stamp)
    return frames, ParquetTexts(path, stamp, schema, _extra_fields(schema), df.height)


def _numbered(df: pl.DataFrame) -> pl.DataFrame:
    """`line` = row number + 1, as a row index: it keeps the columns' chunks as they are, where an
    added contiguous column would make the next operation copy every column to line them up."""
    return df.with_row_index("line", offset=1).with_columns(pl.col("line").cast(pl.Int64))


def plain_columns(df: pl.DataFrame) -> pl.DataFrame:
    """Parquet's other spellings of our columns as the ones JSONL gives: a dictionary-encoded
    (categorical) string as a string, a map as a struct with one field per key."""
    df = df.with_columns(
        *(
            pl.col(name).cast(pl.String)
            for name, dtype in df.schema.items()
            if isinstance(dtype, pl.Categorical | pl.Enum)
        ),
        *(  # polars 2 reads a Parquet map as a Map; before, as a list of key/value structs
            pl.col(name).cast(pl.List(pl.Struct({"key": dtype.key, "value": dtype.value})))
            for name, dtype in df.schema.items()
            if _MAP is not None and isinstance(dtype, _MAP)
        ),
    )
    return df.with_columns(
        _map_to_struct(df, name)
        for name in _PER_RULE
        if name in df.columns and _is_entries(df.schema[name])
    )


_MAP: Any = getattr(pl, "Map", None)


def _is_entries(dtype: pl.DataType) -> bool:
    """A map as a list of key/value structs."""
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return False
    return [f.name for f in dtype.inner.fields] == ["key", "value"]


def _map_to_struct(df: pl.DataFrame, name: str) -> pl.Expr:
    keys = df[name].explode().struct.field("key").drop_nulls().unique().sort().to_list()
    if not keys:  # every map empty: no rules
        return pl.lit(None).alias(name)
    entries = pl.col(name)
    return pl.struct(
        [
            entries.list.eval(
                pl.element().filter(pl.element().struct.field("key") == key).struct.field("value")
            )
            .list.first()
            .alias(str(key))
            for key in keys
        ]
    ).alias(name)


def _rule_columns(df: pl.DataFrame, name: str, single: str) -> dict[str, pl.Expr]:
    """rule -> expression for a label/bool/reason column given as a scalar or a struct."""
    if name not in df.columns or isinstance(df.schema[name], pl.Null):
        return {}
    dtype = df.schema[name]
    if isinstance(dtype, pl.Struct):
        return {f.name: pl.col(name).struct.field(f.name) for f in dtype.fields}
    return {single: pl.col(name)}


def _check_turns(df: pl.DataFrame, path: Path) -> None:
    """The value checks of the trajectory column that its type cannot show (`core.runs.turns`),
    on every path: the lean gate's too, which then leaves the column out."""
    dtype = df.schema.get("messages")
    if dtype is None or isinstance(dtype, pl.Null):
        return
    flagged = df.filter(turns_flagged(dtype))
    if flagged.height:
        row = flagged.sort("line").row(0, named=True)
        field, message = messages_problem(row["messages"]) or ("messages", "not a list of turns")
        raise InputError(path, message, line=row["line"], field=field)


def _frames_from_columns(df: pl.DataFrame, path: Path) -> Frames:
    if "rep" not in df.columns:
        df = df.with_columns(rep=pl.lit(0, pl.Int64))
    df = df.with_columns(pl.col("rep").cast(pl.Int64).fill_null(0))
    reps = df.select(
        pl.col("case"),
        pl.col("rep"),
        pl.col("line"),
        *[
            (pl.col(name) if name in df.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in REPS_SCHEMA.items()
            if name not in ("case", "rep", "line")
        ],
    ).with_columns(
        pl.col("status").fill_null("ok"),
        pl.col("safety").fill_null(False),
        pl.col("cached").fill_null(False),
    )

    expected = _rule_columns(df, "expected", SINGLE_DECISION_RULE)
    actual = _rule_columns(df, "actual", SINGLE_DECISION_RULE)
    reasons = _rule_columns(df, "reasons", SINGLE_DECISION_RULE)
    passed = _rule_columns(df, "passed", SINGLE_CHECK_RULE)
    if "reasons" in df.columns and not isinstance(df.schema["reasons"], pl.Struct | pl.Null):
        reasons = {r: pl.col("reasons") for r in (*expected, *actual, *passed)}
    null = pl.lit(None, pl.String)
    ids = [pl.col("case"), pl.col("rep")]
    rules = sorted(set(expected) | set(actual))
    # Each rule's labels and reason as a flat column, named `field/rule` (`decision_column`): a
    # line with no decision at all (an infra repetition, a checks-only line) is dropped, and the
    # rules stay side by side, as the file holds them: the gate reads them so.
    fields = {"expected": expected, "actual": actual, "reason": reasons}
    flat = df.select(
        *ids,
        pl.col("line"),
        *(
            by_rule.get(rule, null).cast(DECISIONS_SCHEMA[name]).alias(decision_column(name, rule))
            for rule in rules
            for name, by_rule in fields.items()
        ),
    )
    undecided = [pl.col(column).is_null() for column in flat.columns if column.startswith(SIDES)]
    decided = drop_where(flat, pl.all_horizontal(undecided)) if undecided else flat.clear()
    check_parts = [
        df.select(
            *ids,
            pl.lit(rule, pl.Categorical).alias("rule"),
            expr.alias("passed"),
            reasons.get(rule, null).cast(pl.String).alias("reason"),
            pl.col("line"),
        )
        for rule, expr in sorted(passed.items())
    ]
    checks = drop_where(
        pl.concat(check_parts) if check_parts else pl.DataFrame(schema=CHECKS_SCHEMA),
        pl.col("passed").is_null(),
    )
    return reps, decided, checks.cast(CHECKS_SCHEMA)  # type: ignore[arg-type]
