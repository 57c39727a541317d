"""What reading a run's results will take in memory, checked against what the machine has before
a byte is parsed: a run too big is bad input (exit 2, naming the file and the estimate), where
reading it anyway ends with the kernel killing the process, no message and nothing to act on.

The estimate is the columns as read (a JSONL file's size; a Parquet file's rows times the width of
the columns read) and, for every decision (a line's rules), what the gate holds of it: its
columns in the decisions as read and what is judged from them, `DECISION_BYTES`, measured on the
benchmark's pair (bench/README.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from flipgate.core.errors import InputError

# A decision's share of the gate's peak: its labels and reason in its repetition's row of
# `decided` (labels as categories), its outcome beside them, and its part of the repetition's
# row. Measured on the benchmark's million-case Parquet pair (4 rules a line): the gate peaks at
# 2.23 GB for 24M decisions (2.63 GB when each was a row of its own).
DECISION_BYTES = 95
SAMPLE_BYTES = 1 << 20  # a JSONL file's lines are counted and its rules read from its start
_MEMINFO = Path("/proc/meminfo")
ParquetColumns = tuple[Mapping[str, pl.DataType], list[str]]  # its schema, the columns read
_CGROUP = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Estimate:
    rows: int
    rules: int
    column_bytes: int

    @property
    def bytes(self) -> int:
        return self.column_bytes + self.rows * max(self.rules, 1) * DECISION_BYTES


def check_fits(path: Path, parquet: ParquetColumns | None = None) -> None:
    """Refuse `path` when reading it would take more memory than the machine has free (its
    cgroup's limit included); unknown free memory checks nothing. `parquet`: a Parquet file's
    schema and the columns that will be read; None for a JSONL file."""
    if available_memory() is None:
        return
    found = estimate(path, parquet)
    check_all_fit([(path, found)] if found is not None else [])


def check_all_fit(files: Sequence[tuple[Path, Estimate]]) -> None:
    """Refuse the results `files` (each with its estimate) when reading them all would take more
    memory than is free, naming the largest: the gate holds both arms at once, so a pair too big
    is refused before either is read (the first of a 10M-case Parquet pair takes 22 s to read,
    only for the second to be refused)."""
    free = available_memory()
    if free is None or not files:
        return
    needed = sum(found.bytes for _, found in files)
    if needed <= free:
        return
    path, _ = max(files, key=lambda file: file[1].bytes)
    lines = f"{sum(found.rows for _, found in files):,} lines"
    if len(files) > 1:  # held together: a pair, or a campaign's every run
        others = "the other run's" if len(files) == 2 else "the other runs'"
        lines = f"with {others}, {lines}"
    raise InputError(
        path,
        f"too big to read here: {lines} would take about {_gb(needed)} of memory, "
        f"and {_gb(free)} is free",
    )


def estimate(path: Path, parquet: ParquetColumns | None = None) -> Estimate | None:
    """What reading `path` will take; None when the file cannot say (its reader then will)."""
    return _jsonl(path) if parquet is None else _parquet(path, *parquet)


def _gb(n: int) -> str:
    return f"{n / 1e9:.1f} GB"


def _parquet(path: Path, schema: Mapping[str, pl.DataType], columns: list[str]) -> Estimate | None:
    """From the footer (row count) and the schema, without loading pyarrow: a value is taken at
    the width polars holds it (a string's view is 16 bytes; a long string's bytes are not seen)."""
    try:
        rows = pl.scan_parquet(path).select(pl.len()).collect().item()
    except Exception:  # the reader says what is wrong with the file
        return None
    decided = schema.get("expected")
    rules = len(decided.fields) if isinstance(decided, pl.Struct) else 1
    return Estimate(rows, rules, rows * sum(_width(schema[name]) for name in columns))


def _width(dtype: Any) -> int:
    """Bytes a value of `dtype` takes in a polars column (a DataType, or a struct field's)."""
    if isinstance(dtype, pl.Struct):
        return sum(int(_width(f.dtype)) for f in dtype.fields)
    return 8 if dtype.is_numeric() or dtype == pl.Boolean else 16


def _jsonl(path: Path) -> Estimate | None:
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(SAMPLE_BYTES)
    except OSError:  # the reader says why it cannot read the file
        return None
    lines = head.count(b"\n") or 1
    rows = size * lines // max(len(head), 1)
    try:  # nested too deep, cut at the sample's end, or not JSON: one rule (the reader names
        # a bad line)
        first = json.loads(head.split(b"\n", 1)[0])
    except (ValueError, RecursionError):
        first = None
    decided = first.get("expected") if isinstance(first, dict) else None
    rules = len(decided) if isinstance(decided, dict) else 1
    # Arrow's table of the file stands beside the tidy frames while they are made. The file is
    # mapped too, but its pages are the page cache's, which the kernel takes back when it must.
    return Estimate(rows, rules, size)


def available_memory() -> int | None:
    """Bytes the process may still take: the kernel's MemAvailable, and, in a container, what is
    left under its cgroup's limit; None when neither can be read."""
    found = [n for n in (_meminfo_available(), _cgroup_left()) if n is not None]
    return min(found) if found else None


def _meminfo_available() -> int | None:
    try:
        for line in _MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_left() -> int | None:
    try:
        limit = (_CGROUP / "memory.max").read_text().strip()
        if limit == "max":
            return None
        used = int((_CGROUP / "memory.current").read_text())
        return max(int(limit) - used, 0)
    except (OSError, ValueError):
        return None
