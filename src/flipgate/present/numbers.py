"""Figures beside the thresholds they are read against: never "p = 0.050 > 0.05".

Three decimals print an exact 0.0503 as "0.050", which then reads as equal to alpha, or below
it, beside the verdict "p > 0.05" (issue 27). Here a p is given as many digits as it takes for the
printed value to stand on the same side of its boundary as the true one, and a bound of the
effect as many as it takes to keep its sign: a bound below 0 never prints as "+0.0".

An amount (a price, a cost) prints every decimal it has, to a millionth, with thousands separators
and never an exponent: 2,138.5 stays 2,138.5 (Python's `,.0f` rounds it half to even, to 2,138,
and -671.5 to -672, so a column stopped adding up), 1,500,000 never `1.5e+06`. A limit prints as
written (an escalation budget of 0.065 is 6.5%, never "at most 6%"), and a measured share beside
its limit to as many decimals as it takes to stand on the same side of it (issue 26).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from flipgate.core.exact import Number, written
from flipgate.core.gate.mcnemar import format_p

NO_BREAK = "\u00a0"

MAX_DIGITS = 12  # past this a float and its boundary are the same number, as far as anyone reads
AMOUNT_PLACES = 6  # a millionth of a currency unit: past any price a team writes


def _p_same_side(printed: str, p: float, boundary: float) -> bool:
    shown = float(printed)
    if p == boundary:
        return shown == boundary
    return shown != boundary and (shown < boundary) == (p < boundary)


def p_beside(p: float, boundary: float) -> str:
    """`p` to three decimals as the seeds print it, or to as many more as it takes to read on
    the right side of `boundary`: 0.0503 beside 0.05 is "0.0503", 0.04998 is "0.04998"."""
    shown = format_p(p)
    if "e" in shown or _p_same_side(shown, p, boundary):
        return shown
    for digits in range(4, MAX_DIGITS + 1):
        shown = f"{p:.{digits}f}"
        if _p_same_side(shown, p, boundary):
            return shown
    return shown


def labelled(label: str, value: object) -> str:
    """`b = 9` joined by no-break spaces: a figure that a wrap never parts from its label."""
    return f"{label}{NO_BREAK}={NO_BREAK}{value}"


def signed_points(points: float) -> str:
    """A bound in points, `+1.3` or `-0.7`, with more decimals where one would hide its sign
    (`-0.04`), and `<0` for a bound just below 0 (the test, not the interval, set it there)."""
    shown = f"{points:+.1f}"
    if points == 0 or float(shown) != 0:
        return shown
    for digits in (2, 3):
        shown = f"{points:+.{digits}f}"
        if float(shown) != 0:
            return shown
    return "<0" if points < 0 else ">0"


def percent(share: float) -> str:
    """A level or a rate as a person reads it: `95%`, `97.5%`, `0.75%`, `63%`: three significant
    figures at most, never a level rounded up to the next whole percent (97.5% is not 98%)."""
    return f"{100 * share:.3g}%"


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


def written_percent(share: Number) -> str:
    """A limit written as a share, in percent as written: 0.065 -> `6.5%`, 0.08 -> `8%`."""
    return f"{_plain(_decimal(written(share) * 100, MAX_DIGITS), separators=False)}%"


def percent_beside(share: Fraction | float, limit: Number | None = None, places: int = 1) -> str:
    """A measured share in percent to `places` decimals, with more where fewer would print it on
    the other side of `limit` (or equal to it) than it is: 0.0625 beside 0.062 is `6.25%`. A
    float share is read as the binary value it is (a measured share, never a written one)."""
    exact = Fraction(share) * 100
    bound = None if limit is None else written(limit) * 100
    for digits in range(places, MAX_DIGITS + 1):
        shown = _decimal(exact, digits)
        if bound is None or _same_side(Fraction(shown), exact, bound):
            break
    return f"{format(shown, 'f')}%"


def _same_side(shown: Fraction, exact: Fraction, bound: Fraction) -> bool:
    return (shown > bound) == (exact > bound) and (shown == bound) == (exact == bound)
