"""The suite's changes measured fast (changes.py, issue 25) give what a plain count gives."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flipgate.core.gate.changes import Layout, Runs, check_runs
from flipgate.core.order import joined_on_case

RULES = ("r1", "r2", "r3")
LABELS = ("approve", "escalate", "reject")


def column(rng: np.random.Generator, values: tuple[str, ...], rows: int) -> pl.Series:
    """`rows` values in runs of random length, as the readers write them."""
    found: list[str] = []
    while len(found) < rows:
        found += [values[rng.integers(len(values))]] * int(rng.integers(1, 6))
    return pl.Series(found[:rows], dtype=pl.String)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("categorical", [False, True])
def test_the_bits_of_check_runs_are_each_rows_by_hand(seed: int, categorical: bool) -> None:
    """Each stretch's bit, repeated over its rows, is the row's rule placed by hand (its last
    bit); the same for String and Categorical columns (the run's compact form, issue 25)."""
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(0, 60))
    rules = column(rng, RULES, rows)
    layout = Layout(RULES, LABELS)
    checked, lengths = check_runs(
        Runs.of(rules.cast(pl.Categorical) if categorical else rules), layout
    )
    by_hand = [RULES.index(r) * layout.width + layout.width - 1 for r in rules]
    assert np.repeat(checked, lengths).tolist() == by_hand
    assert (lengths > 0).all()


@pytest.mark.parametrize(
    ("rules", "word"), [(1, np.uint8), (3, np.uint16), (6, np.uint32), (12, np.uint64)]
)
def test_a_word_is_the_narrowest_type_that_holds_its_bits(rules: int, word: type) -> None:
    """Three labels take five bits a rule: one rule fits a byte, twelve take a 64-bit word."""
    layout = Layout(tuple(f"r{i}" for i in range(rules)), LABELS)
    assert layout.word_type is word
    assert len(layout.rules) * layout.width <= np.iinfo(word).bits or len(layout.words) > 1


@pytest.mark.parametrize("seed", range(6))
def test_two_arms_side_by_side_are_their_join_on_case(seed: int) -> None:
    """Placed side by side when both list the same cases in order, else joined: the same rows."""
    rng = np.random.default_rng(seed)
    cases = [f"case-{i}" for i in range(int(rng.integers(0, 12)))]
    base = pl.DataFrame({"case": cases, "asks0": rng.integers(0, 4, len(cases))})
    cand = base.with_columns(asks0=pl.Series(rng.integers(0, 4, len(cases))))
    if seed % 3 == 1:
        cand = cand.sample(fraction=1.0, shuffle=True, seed=seed)
    elif seed % 3 == 2:
        cand = cand.filter(pl.Series(rng.random(len(cases)) < 0.7))
    joined = base.join(cand, on="case", suffix="_cand")
    assert_frame_equal(joined_on_case(base, cand, "inner"), joined, check_row_order=False)
