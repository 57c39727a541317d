"""Read a table a hosted platform exports (LangSmith, Braintrust, MLflow, Langfuse...) as a run:
CSV, TSV, JSON Lines, a JSON list of rows, or Parquet, with the columns named by options.

- `--case-column C`: the case of each row (required);
- `--rep-column C`: its repetition (an integer >= 0); without it, a case's rows are its
  repetitions in file order;
- `--score-column C` (repeatable, at least one): a rule each. A column of booleans passes on
  true; of numbers, at or above `--pass-threshold` (default 1); of words, on yes/pass/true and
  fails on no/fail/false (case aside); a NaN is not graded (infra `unscored`); anything else is
  refused, naming the row and the column;
- `--error-column C`: a row whose cell there is not empty errored (infra, with that text).

A column inside a nested object (JSON Lines, Parquet) is named by its path: `scores.Factuality`.
The other columns are kept with the row, shown in the drill-down. A table states no plan, so the
plan is each case as often as the most repeated one, and whether the run finished is not known.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    PASS_THRESHOLD,
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    Option,
    check_unique,
    short_digest,
)
from flipgate.core.importers.notes import ImportNote, RepetitionsMissing
from flipgate.core.order import natural_key

SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet")
PASSING_WORDS = {
    "yes": True,
    "pass": True,
    "true": True,
    "no": False,
    "fail": False,
    "false": False,
}


def recognises(file: LogFile) -> bool:
    suffix = file.path.suffix.lower()
    if suffix == ".json":  # a JSON list of rows; a JSON object is some tool's log
        return isinstance(file.document, list)
    return suffix in SUFFIXES


def _read(file: LogFile, options: ImportOptions) -> ImportedRun:
    path = file.path
    if options.case_column is None or not options.score_column:
        raise InputError(
            path,
            "a table export: name its case column and its score columns with --case-column "
            "and --score-column (a run in flipgate's own format is a folder holding run.yaml)",
            field="--case-column" if options.case_column is None else "--score-column",
        )
    rows = _rows(file)
    wanted = {"case": options.case_column}
    if options.rep_column:
        wanted["rep"] = options.rep_column
    if options.error_column:
        wanted["error"] = options.error_column
    wanted.update((f"score{i}", column) for i, column in enumerate(options.score_column))
    kinds: dict[str, str] = {}
    records = []
    counts: dict[str, int] = {}
    for number, row in enumerate(rows, 1):
        picked = {name: _cell(path, number, row, column, kinds) for name, column in wanted.items()}
        other = {k: v for k, v in row.items() if k not in wanted.values() and v is not None}
        records.append(_record(path, number, picked, other, options, counts))
    records.sort(key=lambda r: (natural_key(r["case"]), r["rep"]))
    check_unique(path, records, "case")
    return _imported(path, records)


def _rows(file: LogFile) -> list[dict[str, Any]]:
    """The table's rows as JSON values: a JSON export as it is written, so that a column mixing
    types is seen (a table reader would quietly make it text); CSV and Parquet as typed."""
    path, suffix = file.path, file.path.suffix.lower()
    if suffix == ".json":
        rows = file.document
    elif suffix in (".jsonl", ".ndjson"):
        rows = _json_lines(path)
    else:
        rows = _typed_table(path, suffix)
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict):
            raise InputError(path, "a row must be an object", field=f"row {number}")
    return list(rows)


def _json_lines(path: Path) -> list[Any]:
    rows = []
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise InputError(path, f"not JSON ({exc})", line=number) from None
    return rows


def _typed_table(path: Path, suffix: str) -> list[dict[str, Any]]:
    import polars as pl

    try:
        if suffix == ".parquet":
            table = pl.read_parquet(path)
        else:
            separator = "\t" if suffix == ".tsv" else ","
            table = pl.read_csv(path, separator=separator, infer_schema_length=None)
    except (pl.exceptions.PolarsError, OSError, ValueError) as exc:
        raise InputError(path, f"not a readable table ({exc})") from None
    return table.to_dicts()


def _cell(path: Path, number: int, row: dict[str, Any], column: str, kinds: dict[str, str]) -> Any:
    """The value of `column` in `row` (a dotted path reaches into nested objects); a column
    holding values of two types (a number here, text there) is refused at the first odd one."""
    if column in row:
        value = row[column]
    else:
        value = row
        for part in column.split("."):
            if not isinstance(value, dict) or part not in value:
                raise InputError(
                    path,
                    f"no column {column!r}; the row has: {', '.join(row)}",
                    field=f"row {number}",
                )
            value = value[part]
    if value is not None:
        kind = (
            "number"
            if isinstance(value, int | float) and not isinstance(value, bool)
            else type(value).__name__
        )
        first = kinds.setdefault(column, kind)
        if kind != first:
            raise InputError(
                path,
                f"{value!r} is a {kind} in a column of {first}s",
                field=f"row {number}.{column}",
            )
    return value


def _record(
    path: Path,
    number: int,
    row: dict[str, Any],
    other: dict[str, Any],
    options: ImportOptions,
    counts: dict[str, int],
) -> dict[str, Any]:
    where = f"row {number}"
    case = row["case"]
    if isinstance(case, bool) or not isinstance(case, str | int) or case == "":
        raise InputError(
            path,
            f"{case!r} is no case id (text or a whole number)",
            field=f"{where}.{options.case_column}",
        )
    case = str(case)
    rep = row.get("rep")
    if "rep" in row:
        if isinstance(rep, bool) or not isinstance(rep, int) or rep < 0:
            raise InputError(
                path,
                f"{rep!r} is not a repetition number (0, 1, ...)",
                field=f"{where}.{options.rep_column}",
            )
    else:
        rep = counts.get(case, 0)
    counts[case] = max(counts.get(case, 0), rep + 1)
    record: dict[str, Any] = {"case": case, "rep": rep}
    error = row.get("error")
    if error is not None and str(error).strip():
        record.update(status="infra", infra=str(error))
    else:
        passed: dict[str, bool] = {}
        for i, column in enumerate(options.score_column):
            verdict = _passes(path, f"{where}.{column}", row[f"score{i}"], options)
            if verdict is None:
                record.update(status="infra", infra="unscored")
                break
            passed[column] = verdict
        else:
            record["passed"] = passed
    kept = {k: _plain(v) for k, v in other.items()}
    if kept:
        record["columns"] = kept
    return record


def _passes(path: Path, field: str, value: Any, options: ImportOptions) -> bool | None:
    """A score cell as pass or fail; None for NaN (not graded)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return None if math.isnan(value) else value >= options.pass_threshold
    if isinstance(value, str) and value.strip().lower() in PASSING_WORDS:
        return PASSING_WORDS[value.strip().lower()]
    if value is None:
        raise InputError(path, "no score, and no error said why", field=field)
    raise InputError(
        path, f"{value!r} is no score: a bool, a number, or yes/no, pass/fail", field=field
    )


def _plain(value: Any) -> Any:
    """A cell as JSON can hold it (dates as text)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return str(value)
    return value


def _imported(path: Path, records: list[dict[str, Any]]) -> ImportedRun:
    from flipgate.core.importers.completeness import by_plan

    most = max((r["rep"] + 1 for r in records), default=1)
    planned = dict.fromkeys((r["case"] for r in records), most)
    completeness = by_plan(records, planned, plan_known=False, when_missing="repetitions missing")
    cases = sorted({r["case"] for r in records}, key=natural_key)
    manifest = {
        "run_id": path.stem,
        "key": {
            "model": "unknown",  # a table export does not say; declare it in run.yaml if known
            "eval_set": f"cases@{short_digest(json.dumps(cases))}",
            "harness": f"table:{path.suffix.lstrip('.').lower()}",
        },
        "table": {"file": path.name},
        "completeness": completeness.to_manifest(),
    }
    notes: list[ImportNote] = []
    if completeness.totals.missing:
        notes.append(RepetitionsMissing(completeness.totals.missing, most))
    return ImportedRun(path, "table", manifest, records, notes, completeness)


def _text(given: str) -> str:
    if not given.strip():
        raise ValueError("needs a column name")
    return given


IMPORTER = Importer(
    name="table",
    title="table export",
    options=(
        Option("case_column", "the column holding each row's case", "value", _text, "COLUMN"),
        Option("rep_column", "the column holding each row's repetition", "value", _text, "COLUMN"),
        Option(
            "score_column",
            "a column holding a score: a rule each (repeatable)",
            "values",
            lambda given: tuple(map(_text, given)),
            "COLUMN",
        ),
        Option("error_column", "a column saying a row errored", "value", _text, "COLUMN"),
        PASS_THRESHOLD,
    ),
    recognises=recognises,
    read=_read,
)
