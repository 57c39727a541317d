"""Alpha spent across looks (looks.py): the seed's verdicts at the first look, the boundaries
adding up to at most alpha, and seed 001's plain rule kept as a choice."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgate.core.gate.looks import PLAIN, PLAIN_FALSE_BLOCK, SPEND, Looks, plain_measured
from flipgate.core.gate.mcnemar import mcnemar_p


def test_the_seed_s_worked_examples_keep_their_verdicts_at_the_first_look() -> None:
    first = SPEND.boundary(0.05, 1)
    assert first == 0.025
    assert mcnemar_p(10, 2) == 79 / 4096 <= first  # BLOCK
    assert mcnemar_p(20, 12) > first and mcnemar_p(9, 3) > first  # 0.108, 0.073: INCONCLUSIVE
    assert round(mcnemar_p(20, 12), 3) == 0.108 and round(mcnemar_p(9, 3), 3) == 0.073


def test_each_look_spends_half_of_what_is_left() -> None:
    assert [SPEND.boundary(0.05, k) for k in (1, 2, 3, 4)] == pytest.approx(
        [0.025, 0.0125, 0.00625, 0.003125]
    )
    assert SPEND.spent(0.05, 2) == pytest.approx(0.0375)


@given(
    st.floats(0.001, 0.5),
    st.floats(0.05, 1.0),
    st.integers(1, 60),
)
def test_the_boundaries_never_add_up_to_more_than_alpha(
    alpha: float, share: float, looks: int
) -> None:
    """By the union bound, the chance of a false BLOCK at any of the looks is at most the sum of
    their boundaries, whatever the looks share: the cases of a smoke set inside the full set, the
    flips a rerun was chosen by."""
    rule = Looks("spend", share)
    total = sum(rule.boundary(alpha, k) for k in range(1, looks + 1))
    assert total == pytest.approx(rule.spent(alpha, looks))
    assert total <= alpha * (1 + 1e-12)


def test_the_plain_rule_is_alpha_at_every_look() -> None:
    assert [PLAIN.boundary(0.05, k) for k in (1, 2, 3)] == [0.05, 0.05, 0.05]
    assert PLAIN.spent(0.05, 2) == 0.1  # what the union bound allows it; measured in the bench
    with pytest.raises(ValueError):
        SPEND.boundary(0.05, 0)


def test_the_plain_rule_s_measured_rate_is_the_nearest_suite_s() -> None:
    """Measured by bench/simulate_gate.py: above alpha over the escalation at 1,000 cases."""
    assert plain_measured(900, cloned=False) == (1000, *PLAIN_FALSE_BLOCK[(1000, False)])
    assert plain_measured(120, cloned=True)[0] == 200
    assert plain_measured(10, cloned=False)[0] == 50
    rate, error = PLAIN_FALSE_BLOCK[(1000, True)]
    assert rate - 3 * error > 0.05
