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
from itertools import repeat
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
    natural_key,
    short_digest,
)

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
    table = _frame(file)
    wanted = {"case": options.case_column}
    if options.rep_column:
        wanted["rep"] = options.rep_column
    if options.error_column:
        wanted["error"] = options.error_column
    for i, column in enumerate(options.score_column):
        wanted[f"score{i}"] = column
    picked = table.select(
        [_column(path, table, column).alias(name) for name, column in wanted.items()]
    )
    rest = table.select([c for c in table.columns if c not in wanted.values()])
    others = rest.iter_rows(named=True) if rest.width else repeat({})
    records = []
    counts: dict[str, int] = {}
    for number, (row, other) in enumerate(
        zip(picked.iter_rows(named=True), others, strict=False), 1
    ):
        records.append(_record(path, number, row, other, options, counts))
    records.sort(key=lambda r: (natural_key(r["case"]), r["rep"]))
    check_unique(path, records, "case")
    return _imported(path, records)


def _frame(file: LogFile) -> Any:
    import polars as pl

    path, suffix = file.path, file.path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv"):
            return pl.read_csv(
                path, separator="\t" if suffix == ".tsv" else ",", infer_schema_length=None
            )
        if suffix == ".parquet":
            return pl.read_parquet(path)
        if suffix == ".json":
            return pl.DataFrame(file.document, infer_schema_length=None)
        return pl.read_ndjson(path, infer_schema_length=None)
    except (pl.exceptions.PolarsError, OSError, ValueError, TypeError) as exc:
        raise InputError(path, f"not a readable table ({exc})") from None


def _column(path: Path, table: Any, name: str) -> Any:
    """The column `name`, or the field a dotted path names inside a nested column."""
    import polars as pl

    if name in table.columns:
        return pl.col(name)
    head, *fields = name.split(".")
    if head not in table.columns or not fields:
        raise InputError(
            path, f"no column {name!r}; the table has: {', '.join(table.columns)}", field=name
        )
    expr, dtype = pl.col(head), table.schema[head]
    for field in fields:
        names = [f.name for f in dtype.fields] if isinstance(dtype, pl.Struct) else []
        if field not in names:
            raise InputError(path, f"no field {field!r} inside {head!r}", field=name)
        dtype = dict(zip(names, (f.dtype for f in dtype.fields), strict=True))[field]
        expr = expr.struct.field(field)
    return expr


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
    if case is None or isinstance(case, dict | list) or str(case) == "":
        raise InputError(path, "no case id", field=f"{where}.{options.case_column}")
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
    kept = {k: _plain(v) for k, v in other.items() if v is not None}
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
    notes = []
    if completeness.totals.missing:
        notes.append(
            f"{completeness.totals.missing} repetitions are missing: some cases have fewer rows "
            f"than the {most} of the most repeated"
        )
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
