"""Amounts and shares printed as exactly as they were written or measured.

- An amount (a price, a cost) prints every decimal it has, to a millionth, with thousands
  separators and never an exponent: 2,138.5 stays 2,138.5 (Python's `,.0f` rounds it half to even,
  to 2,138, and -671.5 to -672, so a column stopped adding up), 1,500,000 never `1.5e+06`.
- A limit prints as written: an escalation budget of 0.065 is 6.5%, never "at most 6%".
- A measured share prints to one decimal, or to as many more as it takes to stand on the same side
  of the limit it is read against as the exact share does: 6.25% beside 6.2% is "6.25%".
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from flipgate.core.exact import Number, written

AMOUNT_PLACES = 6  # a millionth of a currency unit: past any price a team writes
MAX_PLACES = 12  # a measured share's decimals, at most


def _decimal(value: Fraction, places: int) -> Decimal:
    """`value` rounded half away from zero to `places` decimals."""
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _plain(value: Decimal, separators: bool = True) -> str:
    """A decimal without trailing zeros or exponent: `1,500,000`, `2,138.5`, `0.004`."""
    value = value.normalize()
    if value == 0:
        return "0"
    return format(value, ",f" if separators else "f")


def amount(value: Number) -> str:
    """A price or a cost: `2,138.5`, `-671.5`, `1,500,000`, `0.25`."""
    return _plain(_decimal(written(value), AMOUNT_PLACES))


def signed_amount(value: Number) -> str:
    """A change in cost: `+88`, `-2,682`, `0`."""
    shown = amount(value)
    return shown if shown.startswith("-") or shown == "0" else f"+{shown}"


def percent(share: Number) -> str:
    """A limit written as a share, in percent as written: 0.065 -> `6.5%`, 0.08 -> `8%`."""
    return f"{_plain(_decimal(written(share) * 100, MAX_PLACES), separators=False)}%"


def percent_beside(share: Fraction, limit: Number | None = None, places: int = 1) -> str:
    """A measured share in percent to `places` decimals, with more where fewer would print it on
    the other side of `limit` (or equal to it) than it is: 0.0625 beside 0.062 is `6.25%`."""
    exact = share * 100
    bound = None if limit is None else written(limit) * 100
    for digits in range(places, MAX_PLACES + 1):
        shown = _decimal(exact, digits)
        if bound is None or _same_side(Fraction(shown), exact, bound):
            break
    return f"{format(shown, 'f')}%"


def _same_side(shown: Fraction, exact: Fraction, bound: Fraction) -> bool:
    return (shown > bound) == (exact > bound) and (shown == bound) == (exact == bound)
