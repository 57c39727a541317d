"""Figures beside the thresholds they are read against: never "p = 0.050 > 0.05".

Three decimals print an exact 0.0503 as "0.050", which then reads as equal to alpha, or below
it, beside the verdict "p > 0.05" (issue 27). Here a p is given as many digits as it takes for the
printed value to stand on the same side of its boundary as the true one, and a bound of the
effect as many as it takes to keep its sign: a bound below 0 never prints as "+0.0".
"""

from __future__ import annotations

from flipgate.core.gate.mcnemar import format_p

MAX_DIGITS = 12  # past this a float and its boundary are the same number, as far as anyone reads


def _same_side(printed: str, p: float, boundary: float) -> bool:
    shown = float(printed)
    if p == boundary:
        return shown == boundary
    return shown != boundary and (shown < boundary) == (p < boundary)


def p_beside(p: float, boundary: float) -> str:
    """`p` to three decimals as the seeds print it, or to as many more as it takes to read on
    the right side of `boundary`: 0.0503 beside 0.05 is "0.0503", 0.04998 is "0.04998"."""
    shown = format_p(p)
    if "e" in shown or _same_side(shown, p, boundary):
        return shown
    for digits in range(4, MAX_DIGITS + 1):
        shown = f"{p:.{digits}f}"
        if _same_side(shown, p, boundary):
            return shown
    return shown


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
