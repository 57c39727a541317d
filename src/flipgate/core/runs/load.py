"""Load a run (SPEC §2) into tidy tables, validating every line; and find the runs of a workspace.

A run becomes three polars frames:

- `reps`: one row per (case, rep) with status, safety, template, output, second metrics, the
  source `line`, `messages` (the trajectory as JSON text, see `turns`) and `extra` (the row's
  other fields as JSON text, shown in the drill-down);
- `decisions`: one row per labelled decision (case, rep, rule, expected, actual, reason, line);
- `checks`: one row per pass/fail check (case, rep, rule, passed, reason, line).

JSONL is read in one columnar pass (Arrow's reader) when its fields have the types SPEC §2 gives
them. When they do not (bad JSON, a field of the wrong type, a label given as a string on some
lines and as a mapping on others), the file is read again line by line, which either accepts the
mix or names the exact line and field that is wrong. Value checks (labels, duplicates, safety
consistency...) then run vectorised on the tidy frames, for both paths. The `line` of a repetition
is unique within a run: the gate keys its per-repetition sums by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import load_yaml
from flipgate.core.runs.turns import calls_flagged, messages_flagged, messages_problem

if TYPE_CHECKING:
    import pyarrow as pa

SINGLE_DECISION_RULE = "decision"  # the rule name of `expected: approve` (one decision per rep)
SINGLE_CHECK_RULE = "passed"  # the rule name of `passed: true` (one check per rep)
METRICS = ("latency_ms", "cost_usd", "steps", "tokens")
KNOWN_FIELDS = frozenset(
    {
        "case",
        "rep",
        "safety",
        "template",
        "expected",
        "actual",
        "passed",
        "status",
        "infra",
        "output",
        "reasons",
        "messages",
        *METRICS,
    }
)
SIDES = ("expected", "actual")  # the two labels of a decision
SUITES = ("smoke", "full")
# What the verdict is computed from; outputs, reasons, trajectories and extra fields are only shown.
GATE_FIELDS = frozenset(KNOWN_FIELDS - {"output", "reasons", "messages"})

Progress = Callable[[str], None]

REPS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "line": pl.Int64,
    "status": pl.String,
    "infra": pl.String,
    "safety": pl.Boolean,
    "template": pl.String,
    "output": pl.String,
    **dict.fromkeys(METRICS, pl.Float64),
    "messages": pl.String,
    "extra": pl.String,
}
DECISIONS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "rule": pl.String,
    "expected": pl.String,
    "actual": pl.String,
    "reason": pl.String,
    "line": pl.Int64,
}
CHECKS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "rule": pl.String,
    "passed": pl.Boolean,
    "reason": pl.String,
    "line": pl.Int64,
}


@dataclass(frozen=True)
class Labels:
    negative: str = "approve"
    positive: str = "reject"
    abstain: str = "escalate"

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
    notes: tuple[str, ...] = ()
    extra_manifest: dict[str, Any] = field(default_factory=dict)  # unknown run.yaml fields

    @property
    def rules(self) -> list[str]:
        return sorted(set(self.decisions["rule"]) | set(self.checks["rule"]))


@dataclass(frozen=True)
class Workspace:
    """A folder holding `baseline/`, `candidate/`, and optionally `gate.yaml` and `flaky.yaml`."""

    path: Path
    baseline: Path
    candidate: Path
    gate: Path | None
    flaky: Path | None


def is_workspace(path: Path) -> bool:
    return path.is_dir() and (path / "baseline").exists() and (path / "candidate").exists()


def load_workspace(path: Path) -> Workspace:
    if not path.exists():
        raise InputError(path, "no such workspace")
    if not is_workspace(path):
        raise InputError(path, "not a workspace: it needs baseline/ and candidate/ folders")
    gate, flaky = path / "gate.yaml", path / "flaky.yaml"
    return Workspace(
        path=path,
        baseline=path / "baseline",
        candidate=path / "candidate",
        gate=gate if gate.exists() else None,
        flaky=flaky if flaky.exists() else None,
    )


# --------------------------------------------------------------------------- entry point


def load_run(
    path: Path,
    *,
    progress: Progress | None = None,
    import_options: Any = None,
    lean: bool = False,
) -> Run:
    """Load a run directory, the path of its `run.yaml`, or an Inspect/promptfoo log.

    `lean` is for the headless gate, which needs no stored outputs, reasons or extra fields: from
    Parquet, only the columns the verdict needs are read; from JSONL, every field is parsed and
    its type checked, and only those columns are kept (the app keeps and checks them all).
    """
    from flipgate.core.importers import ImportOptions, detect_format, read_external

    report = progress or (lambda _message: None)
    if not path.exists():
        raise InputError(path, "no such run (expected a run directory, its run.yaml, or a log)")
    if path.is_file() and path.name != "run.yaml":
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
    run_dir = path.parent if path.is_file() else path
    manifest_path = run_dir / "run.yaml"
    if not manifest_path.exists():
        single_log = run_dir / "results.json"
        if single_log.exists() and detect_format(single_log) is not None:
            return load_run(single_log, progress=progress, import_options=import_options)
        raise InputError(run_dir, "not a run: no run.yaml in this folder")
    manifest = _read_manifest(manifest_path)
    jsonl, parquet = run_dir / "results.jsonl", run_dir / "results.parquet"
    if jsonl.exists() and parquet.exists():
        raise InputError(
            run_dir, "a run holds exactly one of results.jsonl and results.parquet, not both"
        )
    if not jsonl.exists() and not parquet.exists():
        raise InputError(run_dir, "no results: a run needs results.jsonl or results.parquet")
    labels = _labels(manifest, manifest_path)
    report(f"reading {run_dir.name}/{(jsonl if jsonl.exists() else parquet).name}")
    if jsonl.exists():
        frames = _read_jsonl(jsonl, labels, lean=lean)
        results = jsonl
    else:
        frames = _read_parquet(parquet, lean=lean)
        results = parquet
    report(f"checking {run_dir.name}")
    _validate(frames, results, labels)
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
    manifest = _check_manifest(manifest, where)
    labels = _labels(manifest, where)
    frames = _frames_from_records(((i + 1, r) for i, r in enumerate(records)), source, labels)
    _validate(frames, source, labels)
    return _make_run(manifest, source, frames, labels, source_format, notes)


# --------------------------------------------------------------------------- manifest


def _read_manifest(path: Path) -> dict[str, Any]:
    data, lines = load_yaml(path)
    if not isinstance(data, dict):
        raise InputError(path, "run.yaml must be a mapping", line=1)
    try:
        return _check_manifest(data, path)
    except InputError as exc:
        raise InputError(
            path, exc.message, line=lines.line(exc.field or ""), field=exc.field
        ) from None


def _check_manifest(data: dict[str, Any], path: Path) -> dict[str, Any]:
    run_id = data.get("run_id")
    if not isinstance(run_id, str) or not run_id.strip():
        raise InputError(path, "required: a non-empty string naming the run", field="run_id")
    suite = data.get("suite", "full")
    if suite not in SUITES:
        raise InputError(path, f"must be 'smoke' or 'full', not {suite!r}", field="suite")
    created = data.get("created")
    if created is not None and not isinstance(created, datetime | date):
        try:
            datetime.fromisoformat(str(created).replace("Z", "+00:00"))
        except ValueError:
            raise InputError(path, f"not an ISO 8601 time: {created!r}", field="created") from None
    change = data.get("change")
    if change is not None:
        if not isinstance(change, dict):
            raise InputError(path, "must be a mapping with `keys` and `summary`", field="change")
        keys = change.get("keys", [])
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise InputError(path, "must be a list of key components", field="change.keys")
    key = data.get("key", {})
    if not isinstance(key, dict):
        raise InputError(path, "must be a mapping of component -> version", field="key")
    return data


def _labels(manifest: dict[str, Any], path: Path) -> Labels:
    given = manifest.get("labels") or {}
    if not isinstance(given, dict) or not set(given) <= {"negative", "positive", "abstain"}:
        raise InputError(path, "must map negative, positive and abstain to labels", field="labels")
    labels = Labels(**{k: str(v) for k, v in given.items()})
    if len(set(labels.all())) != 3:
        raise InputError(path, "the three labels must differ", field="labels")
    return labels


def _parse_time(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _make_run(
    manifest: dict[str, Any],
    path: Path,
    frames: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame],
    labels: Labels,
    source_format: str,
    notes: tuple[str, ...],
) -> Run:
    change = manifest.get("change") or {}
    known = {"run_id", "suite", "created", "change", "key", "labels"}
    reps, decisions, checks = frames
    return Run(
        path=path,
        run_id=manifest["run_id"],
        suite=manifest.get("suite", "full"),
        created=_parse_time(manifest.get("created")),
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
        extra_manifest={k: v for k, v in manifest.items() if k not in known},
    )


# --------------------------------------------------------------------------- fast path


def _read_jsonl(
    path: Path, labels: Labels, *, lean: bool
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Arrow's JSON reader: multi-threaded, it infers the schema from every line in the same pass
    (polars either samples the first lines and drops later fields, or reads the file twice), and
    it refuses a field whose type changes between lines instead of coercing it. The file is
    memory-mapped, not copied: the reader and the line count share the page cache."""
    import pyarrow as pa  # only JSONL runs need it: the gate on Parquet starts without
    import pyarrow.json as pa_json

    with pa.memory_map(str(path)) as source:
        data = source.read_buffer()
        try:
            table = pa_json.read_json(pa.BufferReader(data))
            types = pl.from_arrow(table.schema.empty_table())
        except (pa.ArrowException, ValueError):  # the line reader names the line and the field
            return _read_jsonl_lines(path, labels)
        assert isinstance(types, pl.DataFrame)
        if table.num_rows == 0 or _schema_problem(types.schema) is not None:
            return _read_jsonl_lines(path, labels)
        if lean:
            table = table.select([name for name in table.column_names if name in GATE_FIELDS])
        df = pl.from_arrow(table)
        assert isinstance(df, pl.DataFrame)
        return _frames_from_columns(_with_line_numbers(df, data), path)


LINE_COUNT_BLOCK = 1 << 18  # bytes compared at a time: the comparison stays in the CPU cache


def _with_line_numbers(df: pl.DataFrame, data: pa.Buffer) -> pl.DataFrame:
    """Each row's file line: blank lines are skipped by the reader, not by the count."""
    octets = np.frombuffer(data, dtype=np.uint8)
    newlines = sum(
        int(np.count_nonzero(octets[at : at + LINE_COUNT_BLOCK] == ord("\n")))
        for at in range(0, octets.size, LINE_COUNT_BLOCK)
    )
    if newlines + (0 if octets[-1] == ord("\n") else 1) == df.height:
        return _numbered(df)
    lines = [n for n, raw in enumerate(bytes(data).splitlines(), start=1) if raw.strip()]
    return df.with_columns(line=pl.Series(lines, dtype=pl.Int64))


def _read_parquet(path: Path, *, lean: bool) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    try:
        schema = pl.read_parquet_schema(path)
        columns = [c for c in schema if c in GATE_FIELDS] if lean else list(schema)
        df = _maps_as_structs(pl.read_parquet(path, columns=columns))
        # The columns the lean gate leaves unread still have their types checked, from no rows.
        unread = [c for c in schema if c not in columns]
        types = _maps_as_structs(pl.read_parquet(path, columns=unread, n_rows=0)) if unread else df
    except Exception as exc:
        raise InputError(path, f"not a readable Parquet file ({exc})") from None
    problem = _schema_problem(pl.Schema({**df.schema, **types.schema}))
    if problem:
        name, message = problem
        raise InputError(path, message, line=1, field=name)
    return _frames_from_columns(_numbered(df), path)


def _numbered(df: pl.DataFrame) -> pl.DataFrame:
    """`line` = row number + 1, as a row index: it keeps the columns' chunks as they are, where an
    added contiguous column would make the next operation copy every column to line them up."""
    return df.with_row_index("line", offset=1).with_columns(pl.col("line").cast(pl.Int64))


def _maps_as_structs(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(
        [
            _map_to_struct(df, name)
            for name in ("expected", "actual", "reasons", "passed")
            if name in df.columns and isinstance(df.schema[name], pl.List)
        ]
    )


def _map_to_struct(df: pl.DataFrame, name: str) -> pl.Expr:
    """A Parquet map (list of key/value structs) as a struct with one field per key."""
    keys = df[name].explode().struct.field("key").drop_nulls().unique().sort().to_list()
    entries = pl.col(name)
    return pl.struct(
        [
            entries.list.eval(
                pl.element().filter(pl.element().struct.field("key") == key).struct.field("value")
            )
            .list.first()
            .alias(key)
            for key in keys
        ]
    ).alias(name)


_STRINGY = (pl.String, pl.Null)
_NUMERIC = (pl.Int64, pl.Int32, pl.Float64, pl.Float32, pl.Null)


def _struct_of(dtype: pl.DataType, allowed: tuple[type[pl.DataType], ...]) -> bool:
    return isinstance(dtype, pl.Struct) and all(
        any(isinstance(f.dtype, a) for a in allowed) for f in dtype.fields
    )


def _schema_problem(schema: pl.Schema) -> tuple[str, str] | None:
    """The first column whose type SPEC §2 does not allow, as (field, message)."""

    def one_of(dtype: pl.DataType, allowed: tuple[type[pl.DataType], ...]) -> bool:
        return any(isinstance(dtype, a) for a in allowed)

    if "case" not in schema:
        return "case", "required on every line"
    rules: dict[str, tuple[bool, str]] = {
        "case": (one_of(schema["case"], (pl.String,)), "must be a string"),
    }
    checks = {
        "rep": (
            (pl.Int64, pl.Int32, pl.UInt32, pl.UInt64, pl.Null),
            "must be a non-negative integer",
        ),
        "status": (_STRINGY, "must be 'ok' or 'infra'"),
        "infra": (_STRINGY, "must be a string"),
        "template": (_STRINGY, "must be a string"),
        "output": (_STRINGY, "must be a string"),
        "safety": ((pl.Boolean, pl.Null), "must be true or false"),
        **{m: (_NUMERIC, "must be a number") for m in METRICS},
    }
    for name, (allowed, message) in checks.items():
        if name in schema:
            rules[name] = (one_of(schema[name], allowed), message)
    for name in ("expected", "actual", "reasons"):
        if name in schema:
            dtype = schema[name]
            ok = one_of(dtype, _STRINGY) or _struct_of(dtype, _STRINGY)
            rules[name] = (ok, "must be a label or a mapping rule -> label")
    if "messages" in schema:
        rules["messages"] = (_turns_type_ok(schema["messages"]), "must be a list of turns")
    if "passed" in schema:
        dtype = schema["passed"]
        ok = one_of(dtype, (pl.Boolean, pl.Null)) or _struct_of(dtype, (pl.Boolean, pl.Null))
        rules["passed"] = (ok, "must be true/false or a mapping rule -> true/false")
    for name, (ok, message) in rules.items():
        if not ok:
            return name, message
    return None


def _turns_type_ok(dtype: pl.DataType) -> bool:
    """A trajectory as Arrow reads it: a list of turn structs whose text fields are strings and
    whose calls are structs with a string name (`turns.messages_problem` checks the values)."""
    if isinstance(dtype, pl.Null):
        return True
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return False
    fields = {f.name: f.dtype for f in dtype.inner.fields}
    if "role" not in fields or not isinstance(fields["role"], pl.String):
        return False
    texts = ("content", "tool_call_id", "name", "error")
    if any(not isinstance(fields[n], _STRINGY) for n in texts if n in fields):
        return False
    calls = fields.get("tool_calls")
    if calls is None or isinstance(calls, pl.Null):
        return True
    if not isinstance(calls, pl.List) or not isinstance(calls.inner, pl.Struct):
        return False
    call = {f.name: f.dtype for f in calls.inner.fields}
    arguments = call.get("arguments", pl.Null())
    return (
        isinstance(call.get("name"), pl.String)
        and isinstance(call.get("id", pl.Null()), _STRINGY)
        and isinstance(arguments, pl.Struct | pl.Null)
    )


def _turns_as_json(df: pl.DataFrame, path: Path) -> pl.Expr:
    """The trajectory column as JSON text, after the value checks its types cannot show.

    Arrow gives every turn (and every call's arguments) the union of the fields seen on any line,
    so a field a turn lacks comes back as null: readers of the text treat null as absent.
    """
    if "messages" not in df.columns or isinstance(df.schema["messages"], pl.Null):
        return pl.lit(None, pl.String).alias("messages")
    flagged = messages_flagged()
    inner = df.schema["messages"].inner  # type: ignore[attr-defined]
    if any(f.name == "tool_calls" and not isinstance(f.dtype, pl.Null) for f in inner.fields):
        flagged = flagged | calls_flagged()
    hits = df.filter(flagged)
    if hits.height:
        row = hits.sort("line").row(0, named=True)
        field, message = messages_problem(row["messages"]) or ("messages", "not a list of turns")
        raise InputError(path, message, line=row["line"], field=field)
    turns = pl.col("messages").list.eval(pl.element().struct.json_encode()).list.join(",")
    return (pl.lit("[") + turns + pl.lit("]")).alias("messages")


def _rule_columns(df: pl.DataFrame, name: str, single: str) -> dict[str, pl.Expr]:
    """rule -> expression for a label/bool/reason column given as a scalar or a struct."""
    if name not in df.columns or isinstance(df.schema[name], pl.Null):
        return {}
    dtype = df.schema[name]
    if isinstance(dtype, pl.Struct):
        return {f.name: pl.col(name).struct.field(f.name) for f in dtype.fields}
    return {single: pl.col(name)}


def _frames_from_columns(
    df: pl.DataFrame, path: Path
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
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
    ).with_columns(pl.col("status").fill_null("ok"), pl.col("safety").fill_null(False))

    expected = _rule_columns(df, "expected", SINGLE_DECISION_RULE)
    actual = _rule_columns(df, "actual", SINGLE_DECISION_RULE)
    reasons = _rule_columns(df, "reasons", SINGLE_DECISION_RULE)
    passed = _rule_columns(df, "passed", SINGLE_CHECK_RULE)
    if "reasons" in df.columns and not isinstance(df.schema["reasons"], pl.Struct):
        reasons = {r: pl.col("reasons") for r in (*expected, *passed)}
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


def drop_where(frame: pl.DataFrame, condition: pl.Expr) -> pl.DataFrame:
    """`frame` without the rows where `condition` holds. Checked first: a filter that keeps
    every row still copies every column (50 ms for a million decisions)."""
    return frame.filter(~condition) if frame.select(condition.any()).item() else frame


# --------------------------------------------------------------------------- line-by-line path


def _read_jsonl_lines(
    path: Path, labels: Labels
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    def records() -> Iterable[tuple[int, dict[str, Any]]]:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except UnicodeDecodeError:
                    raise InputError(path, "not UTF-8 text", line=number) from None
                except json.JSONDecodeError as exc:
                    raise InputError(
                        path, f"not valid JSON ({exc.msg}, column {exc.colno})", line=number
                    ) from None
                if not isinstance(record, dict):
                    raise InputError(path, "each line must be a JSON object", line=number)
                yield number, record

    return _frames_from_records(records(), path, labels)


def _frames_from_records(
    records: Iterable[tuple[int, dict[str, Any]]], path: Path, labels: Labels
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    reps: dict[str, list[Any]] = {name: [] for name in REPS_SCHEMA}
    decisions: dict[str, list[Any]] = {name: [] for name in DECISIONS_SCHEMA}
    checks: dict[str, list[Any]] = {name: [] for name in CHECKS_SCHEMA}

    for line, record in records:

        def bad(name: str, message: str, line: int = line) -> InputError:
            return InputError(path, message, line=line, field=name)

        case = record.get("case")
        if case is None:
            raise bad("case", "required on every line")
        if not isinstance(case, str):
            raise bad("case", f"must be a string, not {case!r}")
        rep = record.get("rep", 0)
        if isinstance(rep, bool) or not isinstance(rep, int):
            raise bad("rep", f"must be a non-negative integer, not {rep!r}")
        safety = record.get("safety", False)
        if not isinstance(safety, bool):
            raise bad("safety", f"must be true or false, not {safety!r}")
        for name in ("status", "infra", "template", "output"):
            value = record.get(name)
            if value is not None and not isinstance(value, str):
                raise bad(name, f"must be a string, not {type(value).__name__}")
        metrics = {}
        for name in METRICS:
            value = record.get(name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise bad(name, f"must be a number, not {value!r}")
            metrics[name] = None if value is None else float(value)
        messages = record.get("messages")
        problem = messages_problem(messages)
        if problem:
            raise bad(*problem)
        extra = {k: v for k, v in record.items() if k not in KNOWN_FIELDS}

        expected = _as_rule_map(
            record.get("expected"),
            SINGLE_DECISION_RULE,
            str,
            bad("expected", "must be a label or a mapping rule -> label"),
        )
        actual = _as_rule_map(
            record.get("actual"),
            SINGLE_DECISION_RULE,
            str,
            bad("actual", "must be a label or a mapping rule -> label"),
        )
        passed = _as_rule_map(
            record.get("passed"),
            SINGLE_CHECK_RULE,
            bool,
            bad("passed", "must be true/false or a mapping rule -> true/false"),
        )
        reasons_raw = record.get("reasons")
        if isinstance(reasons_raw, str):
            reasons: dict[str, Any] = dict.fromkeys((*expected, *actual, *passed), reasons_raw)
        else:
            reasons = _as_rule_map(
                reasons_raw,
                SINGLE_DECISION_RULE,
                str,
                bad("reasons", "must be a mapping rule -> text"),
            )

        for name, value in (
            ("case", case),
            ("rep", rep),
            ("line", line),
            ("status", record.get("status") or "ok"),
            ("infra", record.get("infra")),
            ("safety", safety),
            ("template", record.get("template")),
            ("output", record.get("output")),
            *metrics.items(),
            ("messages", None if messages is None else json.dumps(messages, ensure_ascii=False)),
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


def _as_rule_map(value: Any, single: str, kind: type, error: InputError) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, kind) and not (kind is str and isinstance(value, bool)):
        return {single: value}
    if isinstance(value, dict):
        for rule, item in value.items():
            if item is None:
                continue
            if not isinstance(item, kind) or (kind is str and isinstance(item, bool)):
                raise InputError(
                    error.path, error.message, line=error.line, field=f"{error.field}.{rule}"
                )
        return {rule: item for rule, item in value.items() if item is not None}
    raise error


# --------------------------------------------------------------------------- value checks


def _validate(
    frames: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame], path: Path, labels: Labels
) -> None:
    """SPEC §2's checks, vectorised; the first offending line (in file order) is reported.

    Each table answers all its checks in one pass, every condition at once (on as many cores);
    the offending line is looked up only for a check that fails, in the order they are listed.
    """
    reps, decisions, checks = frames
    if reps.height == 0:
        raise InputError(path, "no results: the file holds no lines")

    # An infra repetition produced no gradable result: a half-written decision there is no error.
    infra = reps.filter(pl.col("status") == "infra")["line"].implode()
    allowed = list(labels.all())
    on_reps = {
        "case": pl.col("case").is_null() | (pl.col("case").str.strip_chars() == ""),
        "rep": pl.col("rep") < 0,
        "status": ~pl.col("status").is_in(["ok", "infra"]),
        "ungraded": (pl.col("status") == "ok") & ~_graded(reps, decisions, checks),
        **{name: pl.col(name).is_nan() | pl.col(name).is_infinite() for name in METRICS},
    }
    on_decisions = {
        **{f"no {side}": pl.col(side).is_null() & ~pl.col("line").is_in(infra) for side in SIDES},
        **{side: pl.col(side).is_not_null() & ~pl.col(side).is_in(allowed) for side in SIDES},
    }
    # A run written case by case, rep by rep (most are) needs no grouping for the per-case
    # checks: no (case, rep) can repeat, and each line's safety need only match the line before.
    same_case = pl.col("case") == pl.col("case").shift()
    order = {
        "out of order": out_of_case_order(),
        "safety changes": same_case & (pl.col("safety") != pl.col("safety").shift()),
    }
    failing = _failing(reps, on_reps | order) | _failing(decisions, on_decisions)
    if "out of order" in failing:
        per_case = reps.group_by("case").agg(
            (pl.len() != pl.col("rep").n_unique()).alias("duplicate"),
            (pl.col("safety").n_unique() > 1).alias("mixed safety"),
        )
        failing |= {name for name in ("duplicate", "mixed safety") if per_case[name].any()}
    elif "safety changes" in failing:
        failing.add("mixed safety")
    failing -= order.keys()
    if not failing:
        return

    def first(df: pl.DataFrame, condition: pl.Expr) -> dict[str, Any]:
        return df.filter(condition).sort("line").row(0, named=True)

    if "case" in failing:
        row = first(reps, on_reps["case"])
        raise InputError(
            path, "required on every line, a non-empty string", line=row["line"], field="case"
        )
    if "rep" in failing:
        row = first(reps, on_reps["rep"])
        raise InputError(
            path, f"must be a non-negative integer, not {row['rep']}", line=row["line"], field="rep"
        )
    if "status" in failing:
        row = first(reps, on_reps["status"])
        raise InputError(
            path,
            f"must be 'ok' or 'infra', not {row['status']!r}",
            line=row["line"],
            field="status",
        )
    if "duplicate" in failing:
        row = first(
            reps,
            pl.struct("case", "rep").is_duplicated()
            & (pl.col("line") > pl.col("line").min().over("case", "rep")),
        )
        raise InputError(
            path,
            f"duplicate (case, rep): {row['case']} rep {row['rep']} appears twice",
            line=row["line"],
            field="rep",
        )
    if "mixed safety" in failing:
        row = first(reps, pl.col("safety") != pl.col("safety").sort_by("line").first().over("case"))
        raise InputError(
            path,
            f"`safety` differs between the lines of case {row['case']}",
            line=row["line"],
            field="safety",
        )
    for side, other in zip(SIDES, reversed(SIDES), strict=True):
        if f"no {side}" in failing:
            row = first(decisions, on_decisions[f"no {side}"])
            raise InputError(
                path,
                f"rule {row['rule']!r} has an `{other}` label but no `{side}` label",
                line=row["line"],
                field=f"{side}.{row['rule']}",
            )
    for side in SIDES:
        if side in failing:
            row = first(decisions, on_decisions[side])
            raise InputError(
                path,
                f"label {row[side]!r} is not one of the run's labels ({', '.join(allowed)})",
                line=row["line"],
                field=f"{side}.{row['rule']}",
            )
    if "ungraded" in failing:
        row = first(reps, on_reps["ungraded"])
        raise InputError(
            path,
            "a repetition needs `expected`/`actual` labels or a `passed` check (or status: infra)",
            line=row["line"],
            field="expected",
        )
    for name in METRICS:
        if name in failing:
            row = first(reps, on_reps[name])
            raise InputError(path, "must be a finite number", line=row["line"], field=name)


def out_of_case_order() -> pl.Expr:
    """The rows of a repetitions table that break "case by case, in sorted order, each case's
    reps ascending": on none of them, the per-case work needs no hash grouping and no sort."""
    case, rep = pl.col("case"), pl.col("rep")
    return ~((case > case.shift()) | ((case == case.shift()) & (rep > rep.shift())))


def _failing(table: pl.DataFrame, conditions: dict[str, pl.Expr]) -> set[str]:
    """The names of the conditions that hold on some row of `table`, from one select."""
    found = table.select(condition.any().alias(name) for name, condition in conditions.items())
    return {name for name, hit in found.row(0, named=True).items() if hit}


def _graded(reps: pl.DataFrame, decisions: pl.DataFrame, checks: pl.DataFrame) -> pl.Series:
    """Per repetition, whether a decision or a check grades it: a lookup by source line, where an
    `is_in` over a million decision lines costs four times more."""
    reps_lines = reps["line"].to_numpy()
    graded = np.zeros(int(reps_lines.max()) + 1, dtype=np.bool_)
    graded[decisions["line"].to_numpy()] = True
    graded[checks["line"].to_numpy()] = True
    return pl.Series(graded[reps_lines])
