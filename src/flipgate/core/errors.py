"""The one error type for bad input: it names the file, the line (or row) and the field."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Malformed input. The CLI prints it and exits with status 2, having written nothing."""

    def __init__(
        self,
        path: Path | str,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = Path(path)
        # A URL stays as given: a Path folds its `//` (s3://bucket becomes s3:/bucket).
        self.shown = path if isinstance(path, str) and "://" in path else str(self.path)
        self.message = message
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.shown
        if self.line is not None:
            where += f":{self.line}"
        return f"{where}: {self._what()}"

    def within_file(self) -> str:
        """The error without the file's name, for a report that names the file already."""
        line = f"line {self.line}: " if self.line is not None else ""
        return f"{line}{self._what()}"

    def _what(self) -> str:
        what = f"field '{self.field}': " if self.field else ""
        return f"{what}{self.message}"
