"""A run's texts: each repetition's stored `output`, its trajectory (`messages`, JSON text, see
`turns`) and the line's other fields (`extra`, JSON text), keyed by the repetition's `line`.

They are what a reviewer reads when a case is opened, and most of a run's bytes: a run's tidy
frames (`model`) leave them out, and `Texts` reads them where they are stored when asked for:

- `of_lines`: the texts of a few repetitions (a case opened, the flipped cases' outputs); from
  Parquet, only the slices of rows that hold them; from JSONL, only their lines, by the byte
  offsets the read kept;
- `beside`: a repetitions frame with its rows' texts joined on;
- `every`: a column scan (a search of the outputs).

Importers' runs and tests hold their texts in memory behind the same interface (`HeldTexts`).
A file read again must be the file that was read: its size and modification time are kept at
read, and a file changed since is refused by name (exit 2 on the command line), never read for
another run's texts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.io.files import unreadable

TEXT_FIELDS = ("output", "messages", "extra")
TEXTS_SCHEMA = {"line": pl.Int64, **dict.fromkeys(TEXT_FIELDS, pl.String)}
# Rows apart beyond which two wanted rows of a Parquet file are read as two slices, and the
# slices past which one projected read of the whole file costs less.
SLICE_GAP = 4096
MOST_SLICES = 32
READ_BUFFER = 1 << 20  # bytes a JSONL run's texts are read by
# A JSONL run's lines asked for past one in this many: Arrow's reader over the whole file
# (threaded), where a line at a time costs more.
WHOLE_FILE = 4


class Texts(ABC):
    """Where a run's texts are, read a few lines at a time or as whole columns."""

    rows_read: int = 0  # rows parsed so far for their texts (what a test counts)

    def of_lines(
        self, lines: Iterable[int] | pl.Series, fields: Sequence[str] = TEXT_FIELDS
    ) -> pl.DataFrame:
        """`line` and `fields` of those lines (each a repetition's), by line ascending."""
        values = lines.to_numpy() if isinstance(lines, pl.Series) else np.fromiter(lines, np.int64)
        wanted = _sorted_unique(values.astype(np.int64))
        return self._shaped(self._read(wanted, tuple(fields)), fields)

    def every(self, fields: Sequence[str] = TEXT_FIELDS) -> pl.DataFrame:
        """`line` and `fields` of every repetition: a scan of the columns."""
        return self._shaped(self._read(None, tuple(fields)), fields)

    def beside(self, reps: pl.DataFrame, fields: Sequence[str] = TEXT_FIELDS) -> pl.DataFrame:
        """`reps` (a repetitions frame, with `line`) and the texts of its rows, in its order."""
        texts = self.of_lines(reps["line"], fields)
        return reps.join(texts, on="line", how="left", maintain_order="left")

    def followed_by(self, then: Texts, last: int) -> Texts:
        """These texts, then `then`'s with their lines numbered after `last` (a rerun's
        repetitions, appended to the run's)."""
        return _Spliced(self, then, last)

    @staticmethod
    def _shaped(frame: pl.DataFrame, fields: Sequence[str]) -> pl.DataFrame:
        return frame.select("line", *fields).cast(
            {"line": pl.Int64, **dict.fromkeys(fields, pl.String)}
        )

    @abstractmethod
    def _read(self, wanted: np.ndarray | None, fields: tuple[str, ...]) -> pl.DataFrame:
        """The texts frame (`TEXTS_SCHEMA`) of the `wanted` lines (sorted, unique; None: all),
        where only `fields` need be read (the others may be null)."""


class HeldTexts(Texts):
    """Texts held in memory (importers' records, tests): a `TEXTS_SCHEMA` frame."""

    def __init__(self, frame: pl.DataFrame | None = None) -> None:
        self._frame = pl.DataFrame(schema=TEXTS_SCHEMA) if frame is None else frame

    def _read(self, wanted: np.ndarray | None, fields: tuple[str, ...]) -> pl.DataFrame:
        if wanted is None:
            return self._frame
        return self._frame.filter(_among(wanted))


class _Spliced(Texts):
    def __init__(self, first: Texts, then: Texts, last: int) -> None:
        self._first, self._then, self._last = first, then, last

    def _read(self, wanted: np.ndarray | None, fields: tuple[str, ...]) -> pl.DataFrame:
        if wanted is None:
            first, then = self._first._read(None, fields), self._then._read(None, fields)
        else:
            first = self._first._read(wanted[wanted <= self._last], fields)
            then = self._then._read(wanted[wanted > self._last] - self._last, fields)
        then = then.with_columns(pl.col("line") + self._last)
        return pl.concat([first, then], how="vertical_relaxed")


@dataclass(frozen=True)
class Stamp:
    """A file's size and modification time: what tells the file read from one changed since."""

    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> Stamp:
        try:
            found = path.stat()
        except OSError as exc:
            raise unreadable(path, exc) from None
        return cls(found.st_size, found.st_mtime_ns)


def changed_since_read(path: Path) -> InputError:
    return InputError(path, "changed on disk since the run was read: read the run again")


class _StoredTexts(Texts):
    def __init__(self, path: Path, stamp: Stamp) -> None:
        self.path, self.stamp = path, stamp

    def _check(self) -> None:
        stamp_unchanged(self.path, self.stamp)


class ParquetTexts(_StoredTexts):
    """A Parquet run's texts, read by slices of rows (row `line - 1`), only the text columns."""

    def __init__(
        self, path: Path, stamp: Stamp, columns: Collection[str], extra: Sequence[str], rows: int
    ) -> None:
        super().__init__(path, stamp)
        self._stored = frozenset(columns)
        self._extra, self._rows = tuple(extra), rows

    def _read(self, wanted: np.ndarray | None, fields: tuple[str, ...]) -> pl.DataFrame:
        from flipgate.core.runs.columns import plain_columns  # it reads this module's texts

        sources: list[str] = [name for name in ("output", "messages") if name in fields]
        if "extra" in fields:
            sources += self._extra
        columns = [name for name in sources if name in self._stored]
        if not columns:  # none of them stored: nothing to read
            every = np.arange(1, self._rows + 1)
            lines = every if wanted is None else np.intersect1d(wanted, every)
            return text_frame(pl.DataFrame({"line": lines}), ())
        self._check()
        try:
            if wanted is None:
                read = _numbered(pl.read_parquet(self.path, columns=columns))
            else:
                read = self._slices(wanted, columns)
        except OSError as exc:
            raise unreadable(self.path, exc) from None
        self._check()  # a file rewritten while it was read
        self.rows_read += read.height
        if wanted is not None:
            read = read.filter(_among(wanted))
        return text_frame(plain_columns(read), self._extra)

    def _slices(self, wanted: np.ndarray, columns: list[str]) -> pl.DataFrame:
        """The rows of `wanted` read as few slices of adjacent rows; one read of every row when
        they lie in many places."""
        scan = pl.scan_parquet(self.path).select(columns)
        breaks = np.flatnonzero(np.diff(wanted) > SLICE_GAP) + 1
        if breaks.size >= MOST_SLICES:
            return _numbered(scan.collect())
        parts = [
            _numbered(scan.slice(int(part[0]) - 1, int(part[-1] - part[0]) + 1).collect(), part[0])
            for part in np.split(wanted, breaks)
            if part.size
        ]
        return pl.concat(parts) if parts else _numbered(scan.head(0).collect())


def _numbered(frame: pl.DataFrame, first: int = 1) -> pl.DataFrame:
    return frame.with_row_index("line", offset=int(first)).with_columns(
        pl.col("line").cast(pl.Int64)
    )


class JsonlTexts(_StoredTexts):
    """A JSONL run's texts: each line found by the offsets of the file's newlines kept at read,
    and parsed as the read parsed it: Arrow's reader with the file's own `schema` (`rows`: the
    line of each row it gives), or line by line where the run was read that way (`parse`).

    The outputs Arrow's reader parsed at read are kept (`outputs`: line, output): the gate reads
    those of every flipped and split case, which parsed again from the file cost it a sixth of
    its time on 100k cases; the trajectories and other fields, most of the bytes, are not."""

    def __init__(
        self,
        path: Path,
        stamp: Stamp,
        newlines: np.ndarray,
        *,
        schema: Any = None,
        extra: Sequence[str] = (),
        rows: np.ndarray | None = None,
        outputs: pl.DataFrame | None = None,
        parse: Callable[[list[tuple[int, bytes]]], pl.DataFrame] | None = None,
    ) -> None:
        super().__init__(path, stamp)
        self._newlines, self._rows, self._outputs = newlines, rows, outputs
        self._schema, self._extra, self._parse = schema, tuple(extra), parse

    def _read(self, wanted: np.ndarray | None, fields: tuple[str, ...]) -> pl.DataFrame:
        if self._outputs is not None and set(fields) <= {"output"}:
            held = self._outputs
            return held if wanted is None else held.filter(_among(wanted))
        self._check()
        try:
            if self._rows is not None and (
                wanted is None or wanted.size * WHOLE_FILE > self._rows.size
            ):
                frame = self._arrow(self._whole(), self._rows, fields)
                read = self._rows.size
                if wanted is not None:
                    frame = frame.filter(_among(wanted))
            else:
                lines = self._lines(wanted)
                frame = self._parsed(lines, fields)
                read = len(lines)
        except OSError as exc:
            raise unreadable(self.path, exc) from None
        self._check()
        self.rows_read += read
        return frame

    def _lines(self, wanted: np.ndarray | None) -> list[tuple[int, bytes]]:
        """The `wanted` lines' bytes (None: every line but the blank ones), with their numbers."""
        # Buffered: the lines are asked for in order, and a seek within the buffer reads
        # nothing (the outputs of a tenth of the cases, read in one pass).
        with self.path.open("rb", buffering=READ_BUFFER) as file:
            if wanted is None:
                numbered = enumerate(file.read().split(b"\n"), start=1)
                return [(number, raw) for number, raw in numbered if raw.strip()]
            return [(int(n), self._line(file, int(n))) for n in wanted]

    def _line(self, file: Any, number: int) -> bytes:
        begin = int(self._newlines[number - 2]) + 1 if number > 1 else 0
        end = int(self._newlines[number - 1]) if number <= self._newlines.size else self.stamp.size
        file.seek(begin)
        return bytes(file.read(end - begin))

    def _parsed(self, lines: list[tuple[int, bytes]], fields: tuple[str, ...]) -> pl.DataFrame:
        if self._parse is not None:
            return self._parse(lines)
        if not lines:
            return pl.DataFrame(schema=TEXTS_SCHEMA)
        joined = BytesIO(b"\n".join(raw for _, raw in lines))
        numbers = np.fromiter((n for n, _ in lines), np.int64, len(lines))
        return self._arrow(self._whole(joined), numbers, fields)

    def _whole(self, source: Any = None) -> Any:
        """Arrow's table of `source` (the file itself by default), with the file's schema."""
        import pyarrow.json as pa_json

        options = pa_json.ParseOptions(explicit_schema=self._schema)
        return pa_json.read_json(
            str(self.path) if source is None else source, parse_options=options
        )

    def _arrow(self, table: Any, numbers: np.ndarray, fields: tuple[str, ...]) -> pl.DataFrame:
        wanted = [name for name in ("output", "messages") if name in fields]
        extra = self._extra if "extra" in fields else ()
        df = pl.from_arrow(table.select([n for n in table.column_names if n in (*wanted, *extra)]))
        assert isinstance(df, pl.DataFrame)
        return text_frame(df.with_columns(line=pl.Series(numbers, dtype=pl.Int64)), extra)


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """`np.unique(values)` by a sort: numpy 2's `unique` hashes first, five times the cost on the
    million lines of the flipped cases' outputs (0.14 s an arm)."""
    values.sort()
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def _among(wanted: np.ndarray) -> pl.Expr:
    return pl.col("line").is_in(pl.Series(wanted).implode())


def text_frame(df: pl.DataFrame, extra: Sequence[str]) -> pl.DataFrame:
    """The texts frame (`TEXTS_SCHEMA`) of a run's columns as read: `extra` names the team's own
    fields, joined as one JSON object per line."""
    # a field of the team's, by place: `*` or `^a$` as a name would be a pattern to polars
    extra_at = [i for i, c in enumerate(df.columns) if c in set(extra)]
    joined = pl.struct(pl.nth(extra_at)).struct.json_encode() if extra_at else pl.lit(None)
    output = pl.col("output") if "output" in df.columns else pl.lit(None)
    return df.select(
        pl.col("line").cast(pl.Int64),
        output.cast(pl.String).alias("output"),
        _turns_as_json(df),
        joined.cast(pl.String).alias("extra"),
    )


def _turns_as_json(df: pl.DataFrame) -> pl.Expr:
    """The trajectory column as JSON text, checked already (`columns._check_turns`).

    Arrow gives every turn (and every call's arguments) the union of the fields seen on any line,
    so a field a turn lacks comes back as null: readers of the text take null for absent.
    """
    dtype = df.schema.get("messages")
    if dtype is None or isinstance(dtype, pl.Null):
        return pl.lit(None, pl.String).alias("messages")
    turns = pl.col("messages").list.eval(pl.element().struct.json_encode()).list.join(",")
    return (pl.lit("[") + turns + pl.lit("]")).alias("messages")


def stamp_unchanged(path: Path, stamp: Stamp) -> None:
    """Refuse a file rewritten while it was read."""
    if Stamp.of(path) != stamp:
        raise changed_since_read(path)
