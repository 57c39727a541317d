"""The rerun plan's words (`present/rerun_price.py`): the chance read aloud takes its article."""

from __future__ import annotations

import pytest

from flipgate.core.gate.rerun_price import Chance, PricedPlan
from flipgate.present.rerun_price import buys


@pytest.mark.parametrize(
    ("resolves", "said"),
    [
        (0.08, "an 8%"),
        (0.11, "an 11%"),
        (0.18, "an 18%"),
        (0.83, "an 83%"),
        (0.01, "a 1%"),
        (0.64, "a 64%"),
        (1.0, "a 100%"),
        (0.0, "a 0%"),
    ],
)
def test_the_chance_takes_an_before_a_vowel_sound(resolves: float, said: str) -> None:
    plan = PricedPlan(5, 12, {}, Chance(resolves, 0.0, resolves, "exact"))
    assert buys(plan).startswith(f"{said} chance to resolve the verdict")
