"""Field checks for the suite's YAML files: each error names the file, the field and its line."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import LineIndex, load_yaml


def load_mapping(
    path: Path,
    fields: tuple[str, ...],
    what: str,
    content: bytes | None = None,
    *,
    outline: bool = False,
) -> tuple[dict[str, Any], FieldChecker]:
    """Read `path` (or `content`, the file as it stood at a git revision or as read under its
    lock, `path` naming it): a YAML mapping of `fields` and no other (a typo is not an
    extension). `outline`: see `parse_yaml`."""
    data, lines = load_yaml(path, content, outline=outline)
    if not isinstance(data, dict):
        raise InputError(path, f"not a mapping: {what}", line=1)
    check = FieldChecker(path, lines)
    for key in data:
        if key not in fields:
            raise check.bad(str(key), f"unknown field (expected one of {', '.join(fields)})")
    return data, check


class FieldChecker:
    """The field checks of one file, each error pointing at the field's line."""

    def __init__(self, path: Path, lines: LineIndex) -> None:
        self.path, self.lines = path, lines

    def bad(self, where: str, message: str) -> InputError:
        return InputError(self.path, message, line=self.lines.line(where), field=where)

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.bad(where, "required text" if value is None else f"not text: {value!r}")
        return value

    def day(self, value: Any, where: str) -> date:
        if isinstance(value, datetime):
            return value.date()
        if isinstance(value, date):
            return value
        try:
            return date.fromisoformat(str(value))
        except ValueError:
            raise self.bad(where, f"not a date (YYYY-MM-DD): {value!r}") from None

    def count(self, value: Any, where: str, *, least: int = 0, most: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise self.bad(where, f"not a whole number >= {least}: {value!r}")
        if most is not None and value > most:
            raise self.bad(where, f"at most {most:,}: {value:,}")
        return value

    def mapping(self, value: Any, where: str, fields: tuple[str, ...]) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.bad(where, f"a mapping of {', '.join(fields)}")
        for key in value:
            if key not in fields:
                raise self.bad(f"{where}.{key}", f"unknown field (expected {', '.join(fields)})")
        return value

    def names(self, value: Any, where: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.bad(where, "a list of names")
        return value

    def share(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise self.bad(where, f"not a share between 0 and 1: {value!r}")
        return float(value)

    def weight(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
            raise self.bad(where, f"not a weight (a number above 0): {value!r}")
        return float(value)

    def number(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.bad(where, f"not a number: {value!r}")
        return float(value)
