"""A count said in words: `plural` for one count, `plural_column` for a column of them."""

from __future__ import annotations

import polars as pl

from flipgate.core.plural import plural, plural_column

COUNTS = [0, 1, 2, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 123_456_789, 10**15]


def test_a_column_of_counts_is_said_as_each_count_is() -> None:
    said = pl.select(plural_column(pl.Series(COUNTS), "entry", "entries")).to_series()
    assert said.to_list() == [plural(n, "entry", "entries") for n in COUNTS]
    assert said[5] == "1,001 entries" and said[1] == "1 entry"
