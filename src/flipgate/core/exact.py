"""Limits compared as they are written: every documented limit is inclusive, on exact decimals.

A share, a price or a budget is read from YAML or a flag as a float, and a float is not the
decimal a person wrote: 0.91 - 0.86 is 0.05000000000000004, above "flat within 5 points", and
44.8% / 100 is 0.44799999999999995, below a covered share of 0.448. So a limit is taken back to the
shortest decimal that reads as its float (which is what was written, for any decimal of fifteen
digits or fewer) and a measured share to the fraction of two counts it is, and they are compared
as exact rationals. A count against a count is compared as integers.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

Number = int | float | Decimal | Fraction


def written(value: Number) -> Fraction:
    """`value` as the decimal it was written as: 0.1 is 1/10, not 3602879701896397/2**55."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"not a finite number: {value!r}")
        return Fraction(Decimal(repr(value)))
    return Fraction(value)


def ratio(part: int, whole: int) -> Fraction:
    """`part` of `whole` as an exact share; 0 of nothing is 0."""
    return Fraction(part, whole) if whole else Fraction(0)


def total(values: list[float] | tuple[float, ...]) -> Fraction:
    """The exact sum of decimals as written (traffic shares adding up to the covered share)."""
    return sum((written(v) for v in values), Fraction(0))


def at_most(value: Number, limit: Number) -> bool:
    """`value <= limit` on the decimals as written: a limit is inclusive."""
    return written(value) <= written(limit)


def floor_of(share: Number, count: int) -> int:
    """How many of `count` a share allows: floor(0.29 * 100) is 29, where the floats give 28."""
    return math.floor(written(share) * count)
