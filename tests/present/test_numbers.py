"""Figures beside their thresholds (present/numbers.py): a p never reads on the wrong side of its
boundary, a bound never hides its sign; amounts and shares as printed (issue 26, defects 4 and 5):
exactly, never half to even, never an exponent, a limit as written and a measured share on the
same side of its limit as it is."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgate.present.numbers import (
    amount,
    p_beside,
    percent_beside,
    signed_amount,
    signed_points,
    written_percent,
)


def test_the_issue_s_p_reads_above_alpha() -> None:
    assert p_beside(0.0503, 0.05) == "0.0503"
    assert p_beside(0.04996, 0.05) == "0.04996"
    assert p_beside(0.073, 0.05) == "0.073"  # three decimals where they read right
    assert p_beside(79 / 4096, 0.025) == "0.019"
    assert p_beside(0.0125, 0.0125) == "0.0125"
    assert p_beside(2.6e-4, 0.05) == "2.6e-04"


@given(
    st.floats(1e-3, 1.0, allow_nan=False),
    st.sampled_from([0.05, 0.025, 0.0125, 0.00625, 0.01, 0.1]),
)
def test_a_printed_p_stands_on_the_side_of_its_boundary(p: float, boundary: float) -> None:
    shown = float(p_beside(p, boundary))
    assert (shown <= boundary) == (p <= boundary)


def test_a_bound_keeps_its_sign() -> None:
    assert signed_points(-7.73) == "-7.7"
    assert signed_points(0.46) == "+0.5"
    assert signed_points(-0.04) == "-0.04"
    assert signed_points(0.004) == "+0.004"
    assert signed_points(0.0) == "+0.0"
    assert signed_points(100 * math.nextafter(0.0, -1.0)) == "<0"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (2138.5, "2,138.5"),  # `,.0f` gave 2,138 (half to even)
        (-671.5, "-671.5"),  # and -672
        (2.5, "2.5"),
        (1_500_000, "1,500,000"),  # `:g` gave 1.5e+06
        (1e12, "1,000,000,000,000"),
        (0.004, "0.004"),
        (0.1 + 0.2, "0.3"),  # a float's noise past a millionth is not a figure
        (0, "0"),
        (400.0, "400"),
    ],
)
def test_an_amount_prints_every_decimal_it_has(value: float, shown: str) -> None:
    assert amount(value) == shown


def test_a_column_of_amounts_adds_up_as_printed() -> None:
    """2,138.5 - 671.5 = 1,467: printed half to even, 2,138 - -672 read 2,810 against 1,467."""
    base, cand = 2138.5, 1467.0
    assert (amount(base), amount(cand), signed_amount(cand - base)) == (
        "2,138.5",
        "1,467",
        "-671.5",
    )
    assert signed_amount(88) == "+88" and signed_amount(0) == "0"


@pytest.mark.parametrize(
    ("share", "shown"),
    [(0.065, "6.5%"), (0.055, "5.5%"), (0.08, "8%"), (0.0625, "6.25%"), (1, "100%"), (0, "0%")],
)
def test_a_limit_prints_as_written(share: float, shown: str) -> None:
    assert written_percent(share) == shown


def test_a_measured_share_stands_on_its_side_of_the_limit() -> None:
    # 30 of 480 is 6.25%: beside a 6.5% budget one decimal says it (rounded half up, not even)
    assert percent_beside(Fraction(30, 480), 0.065) == "6.3%"
    # beside 6.3% one decimal would read equal to the limit: two say it is below
    assert percent_beside(Fraction(30, 480), 0.063) == "6.25%"
    # 0.4479 beside 0.448 is "44.79%", never "44.8%" (below a limit it seems to meet)
    assert percent_beside(Fraction(4479, 10000), 0.448) == "44.79%"
    # exactly at the limit, it prints equal
    assert percent_beside(Fraction(448, 1000), 0.448) == "44.8%"
    assert percent_beside(Fraction(1, 3)) == "33.3%"
