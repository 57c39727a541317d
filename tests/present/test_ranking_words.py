"""The ranking as `flipgate rank` prints it: the text table on an 80-column terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from flipgate.core.rank.ranking import Ranking
from flipgate.present.ranking import INELIGIBLE_MARK, LABEL_MARKS, LABEL_SHORT, to_text
from flipgate.session import GateRequest, rank
from tests.conftest import SAMPLES


@pytest.fixture(scope="module")
def winner_rule() -> Ranking:
    return rank(GateRequest.of([SAMPLES / "winner-rule"], shape="ranking"))


def test_the_text_table_fits_80_columns_and_keeps_each_label_whole(winner_rule: Ranking) -> None:
    console = Console(width=80, record=True, color_system=None, file=io.StringIO())
    console.print(to_text(winner_rule), soft_wrap=True)
    lines = console.export_text().splitlines()
    table = [line for line in lines if "│" in line or "┃" in line]
    assert table and max(len(line) for line in table) <= 80
    labels = {line.split("│")[1].strip() for line in table if "│" in line}
    held = {f"{LABEL_MARKS[label]} {LABEL_SHORT[label]}" for label in LABEL_MARKS}
    # every label the sample's candidates hold, on a line of its own and whole
    assert held | {INELIGIBLE_MARK} <= labels
