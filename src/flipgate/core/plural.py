"""How a count is said in every report and screen: `1 case`, `2,345 cases`, `3 entries`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


def word(n: int, one: str, many: str | None = None) -> str:
    """The word for `n` of a thing: `one` for exactly one, else `many` (by default `one` + s)."""
    return one if n == 1 else (many or one + "s")


def plural(n: int, one: str, many: str | None = None) -> str:
    """The count with thousands separators, and its word."""
    return f"{n:,} {word(n, one, many)}"


def plural_column(n: pl.Expr, one: str, many: str | None = None) -> pl.Expr:
    """`plural` over a column of counts (none below zero), vectorised: the digits reversed,
    a comma after every three, reversed back."""
    import polars as pl  # the command line's text needs no polars to start

    grouped = n.cast(pl.String).str.reverse().str.replace_all(r"(\d{3})", "$1,")
    digits = grouped.str.strip_chars_end(",").str.reverse()
    return pl.format(
        "{} {}",
        digits,
        pl.when(n == 1).then(pl.lit(word(1, one, many))).otherwise(pl.lit(word(2, one, many))),
    )
