"""The arms paired on case id (`core/gate/pairing.py`): set side by side where they hold the same
cases in the same order, and otherwise joined; either way the full join's answer."""

from __future__ import annotations

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from flipgate.core.order import joined_on_case

CASES = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), unique=True, max_size=5).map(sorted)


def arm(cases: list[str], prefix: str, passed: list[bool | None]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "case": cases,
            "safety": [len(c) > 1 for c in cases],
            "template": [None if i % 2 else f"t{i}" for i in range(len(cases))],
            f"{prefix}_passed": passed[: len(cases)],
        },
        schema={
            "case": pl.String,
            "safety": pl.Boolean,
            "template": pl.String,
            f"{prefix}_passed": pl.Boolean,
        },
    )


@given(CASES, CASES, st.lists(st.sampled_from([True, False, None]), min_size=5, max_size=5))
def test_the_arms_side_by_side_are_the_full_join(
    base_cases: list[str], cand_cases: list[str], passed: list[bool | None]
) -> None:
    for cand_cases_drawn in (cand_cases, base_cases):  # the same cases: set side by side
        base, cand = arm(base_cases, "base", passed), arm(cand_cases_drawn, "cand", passed[::-1])
        joined = base.join(
            cand, on="case", how="full", coalesce=True, suffix="_cand", maintain_order="left_right"
        )
        assert joined_on_case(base, cand, "full").equals(joined)
