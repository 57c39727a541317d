"""How a count is said in every report and screen: `1 case`, `2,345 cases`, `3 entries`."""

from __future__ import annotations


def word(n: int, one: str, many: str | None = None) -> str:
    """The word for `n` of a thing: `one` for exactly one, else `many` (by default `one` + s)."""
    return one if n == 1 else (many or one + "s")


def plural(n: int, one: str, many: str | None = None) -> str:
    """The count with thousands separators, and its word."""
    return f"{n:,} {word(n, one, many)}"
