"""Snapshots of the candidates screen (a campaign workspace), per theme and size, and of a
candidate's overview opened from it.

Update after a deliberate change with `uv run pytest tests/tui --snapshot-update` and look at the
report before committing the new SVGs.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import SAMPLES
from tests.tui.conftest import keys, open_app, settled

WIDE, NARROW = (140, 45), (80, 24)


@pytest.mark.parametrize(
    ("theme", "size"),
    [
        ("dark", WIDE),
        ("dark", NARROW),
        ("light", WIDE),
        ("light", NARROW),
        ("high-contrast", WIDE),
        ("high-contrast", NARROW),
    ],
    ids=lambda value: value if isinstance(value, str) else f"{value[0]}x{value[1]}",
)
def test_candidates(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    app = open_app(SAMPLES / "winner-rule", theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=settled)


def test_a_candidate_s_overview(snap_compare: Any) -> None:
    app = open_app(SAMPLES / "winner-rule")
    assert snap_compare(app, terminal_size=WIDE, run_before=keys("enter"))  # compared in a worker
