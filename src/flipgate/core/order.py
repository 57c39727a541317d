"""The order case ids are listed in: naturally, a run of digits read as its number (`2` before
`10`, `t2` before `t10`, `task/9` before `task/10`), then the id itself.

One rule, held in two forms that give the same order (tests/core/test_order.py checks it on any
ids): `natural_key` for a Python sort, `natural_sort` for a frame. The rule pads every run of
ASCII digits, its leading zeros dropped, to `WIDTH` digits, so that comparing the padded ids as
text compares the numbers; ids equal that way (`7`, `007`) fall back on their own text. Runs
longer than `WIDTH` digits (a number above 2^64) still sort after shorter ones, among themselves
as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import polars as pl

WIDTH = 20  # the digits of 2^64
_DIGITS = re.compile("[0-9]+")
_ASCII_DIGITS = "0123456789"


def _padded(match: re.Match[str]) -> str:
    return match.group().lstrip("0").zfill(WIDTH)


def natural_key(case: str) -> tuple[str, str]:
    """The sort key of one id: `sorted(ids, key=natural_key)`."""
    return _DIGITS.sub(_padded, case), case


def natural_sorted(cases: Iterable[str]) -> list[str]:
    return sorted(cases, key=natural_key)


def natural_sort(frame: pl.DataFrame, column: str = "case") -> pl.DataFrame:
    """`frame` sorted by `column` in the order of `natural_key`.

    The padded key is made with vectorised string operations for the ids most suites have (no
    digit, or one run of digits at the end: `17`, `case-0042`); ids with digits inside
    (`t3/doc12`, `test 4 #569eafa1`) take `natural_key` itself, row by row. Ids without a digit
    sort as they are."""
    ids = pl.col(column)
    shape = frame.select(
        digits=ids.str.contains("[0-9]").any(),
        inner=ids.str.contains("[0-9][^0-9]").any(),
    )
    if frame.is_empty() or not shape["digits"].item():
        return frame.sort(column)
    if shape["inner"].item():
        key = ids.map_elements(lambda case: natural_key(case)[0], return_dtype=pl.String)
    else:
        stem = ids.str.strip_chars_end(_ASCII_DIGITS)
        number = ids.str.slice(stem.str.len_chars()).str.strip_chars_start("0")
        ends_in_digits = stem.str.len_chars() < ids.str.len_chars()
        key = pl.concat_str(
            stem,
            pl.when(ends_in_digits).then(number.str.pad_start(WIDTH, "0")).otherwise(pl.lit("")),
        )
    return frame.sort(key, ids)
