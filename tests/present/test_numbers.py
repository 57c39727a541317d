"""Figures beside their thresholds (present/numbers.py): a p never reads on the wrong side of its
boundary, a bound never hides its sign."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from flipgate.present.numbers import p_beside, signed_points


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
