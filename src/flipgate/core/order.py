"""The order case ids are listed in: naturally, a run of digits read as its number (`2` before
`10`, `t2` before `t10`, `task/9` before `task/10`), ties broken by the id itself.

One rule, held in two forms that give the same order (tests/core/test_order.py checks it on any
ids): `natural_key` for a Python sort, `natural_sort` for a frame. An id is read as its runs of
text and of ASCII digits; the ids compare run by run, a number before text, numbers by value,
text as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

import polars as pl

_RUNS = re.compile("[0-9]+|[^0-9]+")
_ASCII_DIGITS = "0123456789"
_LONGEST = 19  # digits a number may have and still be read as an unsigned 64-bit integer
Run = tuple[int, int] | tuple[int, str]  # (0, a number) or (1, a run of text)


def natural_key(case: str) -> tuple[tuple[Run, ...], str]:
    """The sort key of one id: `sorted(ids, key=natural_key)`."""
    runs: tuple[Run, ...] = tuple(
        (0, int(run)) if run[0] in _ASCII_DIGITS else (1, run) for run in _RUNS.findall(case)
    )
    return runs, case


def natural_sorted(cases: Iterable[str]) -> list[str]:
    return sorted(cases, key=natural_key)


def natural_sort(frame: pl.DataFrame, column: str = "case") -> pl.DataFrame:
    """`frame` sorted by `column` in the order of `natural_key`.

    Most suites' ids have no digit, or one run of them at the end (`17`, `case-0042`): their
    text and number are sorted as two columns, vectorised. Ids with digits inside (`t3/doc12`,
    `test 4 #569eafa1`) or a number past 64 bits take `natural_key` itself."""
    if frame.height and _one_shape_in_text_order(frame[column]):
        return frame
    ids = pl.col(column)
    stem = ids.str.strip_chars_end(_ASCII_DIGITS)  # the id without its trailing digits
    width = ids.str.len_bytes() - stem.str.len_bytes()  # of the trailing number
    shape = frame.select(inner=ids.str.contains("[0-9][^0-9]").any(), longest=width.max())
    if frame.is_empty():
        return frame
    if shape["inner"].item() or shape["longest"].item() > _LONGEST:
        keys = frame[column].to_list()
        return frame[sorted(range(frame.height), key=lambda row: natural_key(keys[row]))]
    # Sorted as text, the frame is in natural order where no id has a digit (or where all have
    # one stem and numbers of one width, `_one_shape_in_text_order`, above).
    if shape["longest"].item() == 0 and frame[column].is_sorted():
        return frame
    number = ids.str.slice(stem.str.len_chars()).cast(pl.UInt64, strict=False)  # null: none
    return frame.sort(stem, number, ids, nulls_last=False)


def _one_shape_in_text_order(ids: pl.Series) -> bool:
    """Whether every id is the first one's stem and a number of its width (`case-000017`), and
    the ids are sorted as text: then they are in natural order. One pattern over the ids, where
    the general check below strips and measures each (a million ids: 0.03 s, not 0.17 s)."""
    first = ids[0]
    if first is None or ids.null_count() or not ids.is_sorted():
        return False
    stem = first.rstrip(_ASCII_DIGITS)
    shape = f"^{pl.escape_regex(stem)}[0-9]{{{len(first) - len(stem)}}}$"
    return bool(ids.str.contains(shape).all())


def joined_on_case(
    base: pl.DataFrame, cand: pl.DataFrame, how: Literal["inner", "full"]
) -> pl.DataFrame:
    """Two tables of a case a row joined on `case`, the second's columns after the first's
    (suffixed `_cand` where both have one). Where both hold the same cases in the same order, as
    two runs of one suite do, they are set side by side: the join's answer without hashing a
    million ids (half a second of CPU at a million cases)."""
    if base["case"].equals(cand["case"]):
        shared = (set(base.columns) & set(cand.columns)) - {"case"}
        renamed = cand.drop("case").rename({c: f"{c}_cand" for c in shared})
        return pl.concat([base, renamed], how="horizontal")
    if how == "inner":
        return base.join(cand, on="case", suffix="_cand")
    return base.join(
        cand, on="case", how="full", coalesce=True, suffix="_cand", maintain_order="left_right"
    )
