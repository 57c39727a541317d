"""Read a run (SPEC §2) into its tidy frames (see `model`), checking every line (see `checks`).

JSONL is read in one columnar pass (Arrow's reader) when its fields have the types SPEC §2 gives
them. When they do not (bad JSON, a field of the wrong type, a label given as a string on some
lines and as a mapping on others, a key given twice, bytes that are not UTF-8), the file is read
again line by line, which either accepts the mix or names the exact line and field that is
wrong. Before either parses a byte, `Lines.nesting_problem` refuses a line nested deeper than
`MAX_DEPTH`: Arrow's reader takes 14 s over one line nested 5,000 deep, and crashes deeper.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.io.files import read_bytes, regular_file, unreadable
from flipgate.core.runs.checks import (
    FIELDS,
    GATE_FIELDS,
    INT64_MAX,
    KNOWN_FIELDS,
    column_problem,
    record_problem,
    validate,
)
from flipgate.core.runs.manifest import (
    MANIFEST_FIELDS,
    check_manifest,
    labels_of,
    parse_time,
    read_manifest,
)
from flipgate.core.runs.model import (
    CHECKS_SCHEMA,
    DECISIONS_SCHEMA,
    METRICS,
    REPS_SCHEMA,
    SIDES,
    SINGLE_CHECK_RULE,
    SINGLE_DECISION_RULE,
    Frames,
    Labels,
    Progress,
    Run,
    drop_where,
)
from flipgate.core.runs.turns import messages_problem, turns_flagged

if TYPE_CHECKING:
    pass

MAX_DEPTH = 64  # objects and lists inside one another on one line; SPEC §2's own need five
_PER_RULE = tuple(f.name for f in FIELDS if f.per_rule)


# --------------------------------------------------------------------------- entry point


def load_run(
    path: Path,
    *,
    progress: Progress | None = None,
    import_options: Any = None,
    lean: bool = False,
    keep: frozenset[str] = frozenset(),
) -> Run:
    """Load a run directory, the path of its `run.yaml`, or an Inspect/promptfoo log.

    `lean` is for the headless gate, which needs no stored outputs, reasons or extra fields: from
    Parquet, only the columns the verdict needs are read; from JSONL, every field is parsed and
    its type checked, and only those columns are kept (the app keeps and checks them all), and
    the fields named in `keep` (a budget's own metric).
    """
    from flipgate.core.importers import ImportOptions, detect_format, read_external

    report = progress or (lambda _message: None)
    if not path.exists():
        raise InputError(path, "no such run (expected a run directory, its run.yaml, or a log)")
    if not path.is_dir() and path.name != "run.yaml":
        report(f"importing {path.name}")  # read_external names a file that is neither tool's
        imported = read_external(path, import_options or ImportOptions())
        return run_from_records(
            imported.manifest,
            imported.records,
            source=path,
            manifest_path=path,
            source_format=imported.tool,
            notes=tuple(imported.notes),
        )
    run_dir = path if path.is_dir() else path.parent
    manifest_path = run_dir / "run.yaml"
    if not manifest_path.exists():
        single_log = run_dir / "results.json"
        if single_log.exists() and detect_format(single_log) is not None:
            return load_run(single_log, progress=progress, import_options=import_options)
        raise InputError(run_dir, "not a run: no run.yaml in this folder")
    manifest = read_manifest(manifest_path)
    jsonl, parquet = run_dir / "results.jsonl", run_dir / "results.parquet"
    if jsonl.exists() and parquet.exists():
        raise InputError(
            run_dir, "a run holds exactly one of results.jsonl and results.parquet, not both"
        )
    if not jsonl.exists() and not parquet.exists():
        raise InputError(run_dir, "no results: a run needs results.jsonl or results.parquet")
    labels = labels_of(manifest, manifest_path)
    results = jsonl if jsonl.exists() else parquet
    report(f"reading {run_dir.name}/{results.name}")
    if results == jsonl:
        frames = read_jsonl(jsonl, lean=lean, keep=keep)
    else:
        frames = read_parquet(parquet, lean=lean, keep=keep)
    report(f"checking {run_dir.name}")
    validate(frames, results, labels)
    return _make_run(manifest, run_dir, frames, labels, "flipgate", ())


def run_from_records(
    manifest: dict[str, Any],
    records: Iterable[dict[str, Any]],
    *,
    source: Path,
    manifest_path: Path | None = None,
    source_format: str = "flipgate",
    notes: tuple[str, ...] = (),
) -> Run:
    """Build a run from records in the results.jsonl shape (importers, tests)."""
    where = manifest_path or source
    manifest = check_manifest(manifest, where)
    labels = labels_of(manifest, where)
    frames = _frames_from_records(((i + 1, r) for i, r in enumerate(records)), source)
    validate(frames, source, labels)
    return _make_run(manifest, source, frames, labels, source_format, notes)


def _make_run(
    manifest: dict[str, Any],
    path: Path,
    frames: Frames,
    labels: Labels,
    source_format: str,
    notes: tuple[str, ...],
) -> Run:
    change = manifest.get("change") or {}
    reps, decisions, checks = frames
    return Run(
        path=path,
        run_id=manifest["run_id"],
        suite=manifest.get("suite", "full"),
        created=parse_time(manifest.get("created")),
        key={str(k): str(v) for k, v in (manifest.get("key") or {}).items()},
        change_keys=tuple(change.get("keys", [])),
        change_summary=change.get("summary"),
        labels=labels,
        manifest=manifest,
        reps=reps,
        decisions=decisions,
        checks=checks,
        source_format=source_format,
        notes=notes,
        extra_manifest={k: v for k, v in manifest.items() if k not in MANIFEST_FIELDS},
    )


# --------------------------------------------------------------------------- nesting


_STRUCTURE = np.zeros(256, dtype=np.bool_)
_STRUCTURE[[ord(c) for c in '"\\{}[]']] = True
SCAN_BLOCK = 1 << 20  # bytes compared at a time, into buffers allocated once


@dataclass(frozen=True)
class Lines:
    """Where a JSONL file's lines end and its `{` and `[` stand: one vectorised pass."""

    newlines: np.ndarray
    openers: np.ndarray

    @classmethod
    def scan(cls, octets: np.ndarray) -> Lines:
        shifted = np.empty(min(SCAN_BLOCK, octets.size), dtype=np.uint8)
        hits = np.empty(shifted.size, dtype=np.bool_)
        newlines, openers = [], []
        for at in range(0, octets.size, SCAN_BLOCK):
            block = octets[at : at + SCAN_BLOCK]
            found = hits[: block.size]
            np.equal(block, ord("\n"), out=found)
            newlines.append(np.flatnonzero(found) + at)
            np.bitwise_or(block, 0x20, out=shifted[: block.size])  # `[` | 0x20 is `{`
            np.equal(shifted[: block.size], ord("{"), out=found)
            openers.append(np.flatnonzero(found) + at)
        empty = np.zeros(0, dtype=np.int64)
        return cls(np.concatenate(newlines or [empty]), np.concatenate(openers or [empty]))

    def nesting_problem(self, octets: np.ndarray, path: Path) -> InputError | None:
        """The first line nested deeper than `MAX_DEPTH`, found without parsing. A line nests
        no deeper than it has `{` and `[`: only one with more is scanned for its depth."""
        if self.openers.size <= MAX_DEPTH:
            return None
        per_line = np.bincount(np.searchsorted(self.newlines, self.openers))
        for line in np.flatnonzero(per_line > MAX_DEPTH):
            begin = int(self.newlines[line - 1]) + 1 if line else 0
            end = int(self.newlines[line]) if line < self.newlines.size else octets.size
            if _deep_at(octets[begin:end]) is not None:
                return InputError(
                    path,
                    f"nested deeper than {MAX_DEPTH} levels",
                    line=int(line) + 1,
                    field=_top_level_key(octets[begin:end].tobytes()),
                )
        return None


def _deep_at(line: np.ndarray) -> int | None:
    """The offset of the first bracket of `line` past `MAX_DEPTH`, outside strings: a quote
    counts when an even run of backslashes precedes it."""
    at = np.flatnonzero(_STRUCTURE[line])
    code = line[at]
    index = np.arange(at.size)
    backslash = code == ord("\\")
    adjacent = np.diff(at) == 1
    # The length of the run of adjacent backslashes each backslash ends.
    follows = np.zeros(at.size, dtype=np.bool_)
    follows[1:] = backslash[1:] & backslash[:-1] & adjacent
    run = index - np.maximum.accumulate(np.where(backslash & ~follows, index, 0)) + 1
    escaped = np.zeros(at.size, dtype=np.bool_)
    escaped[1:] = backslash[:-1] & adjacent & (run[:-1] % 2 == 1)
    quote = (code == ord('"')) & ~escaped
    outside = (np.cumsum(quote) - quote) % 2 == 0
    opens = np.isin(code, (ord("{"), ord("[")))
    closes = np.isin(code, (ord("}"), ord("]")))
    depth = np.cumsum((opens.astype(np.int64) - closes) * outside)
    deep = np.flatnonzero(depth > MAX_DEPTH)
    return int(at[deep[0]]) if deep.size else None


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"\s*:|[{}\[\]]')


def _top_level_key(line: bytes) -> str | None:
    """The key of the line's top-level field that holds the deep nesting."""
    depth, key = 0, None
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in (b"{", b"["):
            depth += 1
            if depth > MAX_DEPTH:
                return key
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1:
            try:
                key = json.loads(text[: text.rindex(b":")])
            except ValueError:
                key = None
    return key


# --------------------------------------------------------------------------- columnar path


def read_jsonl(path: Path, *, lean: bool = False, keep: frozenset[str] = frozenset()) -> Frames:
    """Arrow's JSON reader: multi-threaded, it infers the schema from every line in the same pass
    (polars either samples the first lines and drops later fields, or reads the file twice), and
    it refuses a field whose type changes between lines instead of coercing it. The file is
    memory-mapped, not copied: the reader and the line count share the page cache."""
    import pyarrow as pa  # only JSONL runs need it: the gate on Parquet starts without
    import pyarrow.json as pa_json

    regular_file(path)
    try:
        source = pa.memory_map(str(path))
    except OSError as exc:
        raise unreadable(path, exc) from None
    with source:
        data = source.read_buffer()
        octets = np.frombuffer(data, dtype=np.uint8)
        lines = Lines.scan(octets)
        problem = lines.nesting_problem(octets, path)
        if problem is not None:
            raise problem
        try:
            table = pa_json.read_json(pa.BufferReader(data))
            table.validate(full=True)  # Arrow keeps bytes that are not UTF-8 in its strings
            types = pl.from_arrow(table.schema.empty_table())
        except (pa.ArrowException, ValueError):  # the line reader names the line and the field
            return read_jsonl_lines(path)
        assert isinstance(types, pl.DataFrame)
        if table.num_rows == 0 or column_problem(types.schema) is not None:
            return read_jsonl_lines(path)
        if lean:
            kept = GATE_FIELDS | keep
            table = table.select([name for name in table.column_names if name in kept])
        df = pl.from_arrow(table)
        assert isinstance(df, pl.DataFrame)
        return _frames_from_columns(_with_line_numbers(df, octets, lines), path)


def _with_line_numbers(df: pl.DataFrame, octets: np.ndarray, lines: Lines) -> pl.DataFrame:
    """Each row's file line: blank lines are skipped by the reader, not by the count."""
    ends_open = octets.size > 0 and octets[-1] != ord("\n")
    if lines.newlines.size + ends_open == df.height:
        return _numbered(df)
    numbers = [n for n, raw in enumerate(octets.tobytes().split(b"\n"), start=1) if raw.strip()]
    return df.with_columns(line=pl.Series(numbers, dtype=pl.Int64))


def read_parquet(path: Path, *, lean: bool = False, keep: frozenset[str] = frozenset()) -> Frames:
    regular_file(path)
    try:
        schema = pl.read_parquet_schema(path)
        columns = [c for c in schema if c in GATE_FIELDS | keep] if lean else list(schema)
        df = _plain_columns(pl.read_parquet(path, columns=columns))
        # The columns the lean gate leaves unread still have their types checked, from no rows.
        unread = [c for c in schema if c not in columns]
        types = _plain_columns(pl.read_parquet(path, columns=unread, n_rows=0)) if unread else df
    except Exception as exc:
        raise InputError(path, f"not a readable Parquet file ({exc})") from None
    problem = column_problem(pl.Schema({**df.schema, **types.schema}))
    if problem:
        name, message = problem
        raise InputError(path, message, line=1, field=name)
    df = _numbered(df)
    if "rep" in df.columns and isinstance(df.schema["rep"], pl.UInt64):
        too_big = df.filter(pl.col("rep") > INT64_MAX)
        if too_big.height:
            row = too_big.row(0, named=True)
            raise InputError(
                path, f"must be below 2^63, not {row['rep']}", line=row["line"], field="rep"
            )
    return _frames_from_columns(df, path)


def _numbered(df: pl.DataFrame) -> pl.DataFrame:
    """`line` = row number + 1, as a row index: it keeps the columns' chunks as they are, where an
    added contiguous column would make the next operation copy every column to line them up."""
    return df.with_row_index("line", offset=1).with_columns(pl.col("line").cast(pl.Int64))


def _plain_columns(df: pl.DataFrame) -> pl.DataFrame:
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


def _turns_as_json(df: pl.DataFrame, path: Path) -> pl.Expr:
    """The trajectory column as JSON text, after the value checks its type cannot show.

    Arrow gives every turn (and every call's arguments) the union of the fields seen on any line,
    so a field a turn lacks comes back as null: readers of the text take null for absent.
    """
    dtype = df.schema.get("messages")
    if dtype is None or isinstance(dtype, pl.Null):
        return pl.lit(None, pl.String).alias("messages")
    flagged = df.filter(turns_flagged(dtype))
    if flagged.height:
        row = flagged.sort("line").row(0, named=True)
        field, message = messages_problem(row["messages"]) or ("messages", "not a list of turns")
        raise InputError(path, message, line=row["line"], field=field)
    turns = pl.col("messages").list.eval(pl.element().struct.json_encode()).list.join(",")
    return (pl.lit("[") + turns + pl.lit("]")).alias("messages")


def _frames_from_columns(df: pl.DataFrame, path: Path) -> Frames:
    if "rep" not in df.columns:
        df = df.with_columns(rep=pl.lit(0, pl.Int64))
    df = df.with_columns(pl.col("rep").cast(pl.Int64).fill_null(0))
    extra_cols = [c for c in df.columns if c not in KNOWN_FIELDS and c != "line"]
    extra = pl.struct(extra_cols).struct.json_encode() if extra_cols else pl.lit(None, pl.String)
    reps = df.select(
        pl.col("case"),
        pl.col("rep"),
        pl.col("line"),
        *[
            (pl.col(name) if name in df.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in REPS_SCHEMA.items()
            if name not in ("case", "rep", "line", "messages", "extra")
        ],
        _turns_as_json(df, path),
        extra.alias("extra"),
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
    # Each rule's labels and reason as a flat column, named `field/rule`: a line with no
    # decision at all (an infra repetition, a checks-only line) is dropped before the rules
    # multiply the rows by four, and flat columns filter at half the cost of struct columns.
    fields = {"expected": expected, "actual": actual, "reason": reasons}
    flat = df.select(
        *ids,
        pl.col("line"),
        *(
            by_rule[rule].cast(pl.String).alias(f"{name}/{rule}")
            for name, by_rule in fields.items()
            for rule in rules
            if rule in by_rule
        ),
    )
    undecided = [pl.col(column).is_null() for column in flat.columns if column.startswith(SIDES)]
    decided = drop_where(flat, pl.all_horizontal(undecided)) if undecided else flat

    decision_parts = [
        decided.select(
            *ids,
            pl.lit(rule, pl.String).alias("rule"),
            *(
                (pl.col(f"{name}/{rule}") if rule in by_rule else null).alias(name)
                for name, by_rule in fields.items()
            ),
            pl.col("line"),
        )
        for rule in rules
    ]
    check_parts = [
        df.select(
            *ids,
            pl.lit(rule, pl.String).alias("rule"),
            expr.alias("passed"),
            reasons.get(rule, null).cast(pl.String).alias("reason"),
            pl.col("line"),
        )
        for rule, expr in sorted(passed.items())
    ]
    decisions = drop_where(
        pl.concat(decision_parts) if decision_parts else pl.DataFrame(schema=DECISIONS_SCHEMA),
        pl.col("expected").is_null() & pl.col("actual").is_null(),
    )
    checks = drop_where(
        pl.concat(check_parts) if check_parts else pl.DataFrame(schema=CHECKS_SCHEMA),
        pl.col("passed").is_null(),
    )
    return reps, decisions.cast(DECISIONS_SCHEMA), checks.cast(CHECKS_SCHEMA)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- line-by-line path


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ: `json` keeps the last of two, a reader sees the first."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def read_jsonl_lines(path: Path) -> Frames:
    data = read_bytes(path)
    octets = np.frombuffer(data, dtype=np.uint8)
    problem = Lines.scan(octets).nesting_problem(octets, path)
    if problem is not None:
        raise problem

    def records() -> Iterator[tuple[int, dict[str, Any]]]:
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw, object_pairs_hook=_unique_keys)
            except UnicodeDecodeError:
                raise InputError(path, "not UTF-8 text", line=number) from None
            except _DuplicateKey as twice:
                raise InputError(
                    path, "this key is given twice", line=number, field=twice.key
                ) from None
            except json.JSONDecodeError as exc:
                raise InputError(
                    path, f"not valid JSON ({exc.msg}, column {exc.colno})", line=number
                ) from None
            if not isinstance(record, dict):
                raise InputError(path, "each line must be a JSON object", line=number)
            yield number, record

    return _frames_from_records(records(), path)


def _frames_from_records(records: Iterable[tuple[int, dict[str, Any]]], path: Path) -> Frames:
    reps: dict[str, list[Any]] = {name: [] for name in REPS_SCHEMA}
    decisions: dict[str, list[Any]] = {name: [] for name in DECISIONS_SCHEMA}
    checks: dict[str, list[Any]] = {name: [] for name in CHECKS_SCHEMA}

    for line, record in records:
        problem = record_problem(record)
        if problem is not None:
            name, message = problem
            raise InputError(path, message, line=line, field=name)
        case, rep = record["case"], record.get("rep", 0)
        expected = _by_rule(record.get("expected"), SINGLE_DECISION_RULE)
        actual = _by_rule(record.get("actual"), SINGLE_DECISION_RULE)
        passed = _by_rule(record.get("passed"), SINGLE_CHECK_RULE)
        reasons_given = record.get("reasons")
        if isinstance(reasons_given, str):
            reasons = dict.fromkeys((*expected, *actual, *passed), reasons_given)
        else:
            reasons = _by_rule(reasons_given, SINGLE_DECISION_RULE)
        extra = {k: v for k, v in record.items() if k not in KNOWN_FIELDS}

        for name, value in (
            ("case", case),
            ("rep", rep),
            ("line", line),
            ("status", "ok" if record.get("status") is None else record["status"]),
            ("infra", record.get("infra")),
            ("safety", record.get("safety", False) is True),
            ("cached", record.get("cached", False) is True),
            ("template", record.get("template")),
            ("output", record.get("output")),
            *((name, _float(record.get(name))) for name in METRICS),
            ("messages", _json(record.get("messages"))),
            ("extra", json.dumps(extra, ensure_ascii=False) if extra else None),
        ):
            reps[name].append(value)
        for rule in sorted(set(expected) | set(actual)):
            for name, value in (
                ("case", case),
                ("rep", rep),
                ("rule", rule),
                ("expected", expected.get(rule)),
                ("actual", actual.get(rule)),
                ("reason", reasons.get(rule)),
                ("line", line),
            ):
                decisions[name].append(value)
        for rule in sorted(passed):
            for name, value in (
                ("case", case),
                ("rep", rep),
                ("rule", rule),
                ("passed", passed[rule]),
                ("reason", reasons.get(rule)),
                ("line", line),
            ):
                checks[name].append(value)

    return (
        pl.DataFrame(reps, schema=REPS_SCHEMA),
        pl.DataFrame(decisions, schema=DECISIONS_SCHEMA),
        pl.DataFrame(checks, schema=CHECKS_SCHEMA),
    )


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _float(value: Any) -> float | None:
    """A metric as a float; an integer past a float's range as the infinity Arrow reads it as."""
    if value is None:
        return None
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _by_rule(value: Any, single: str) -> dict[str, Any]:
    """A checked field's value as rule -> value, without the rules it leaves empty."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {rule: item for rule, item in value.items() if item is not None}
    return {single: value}
