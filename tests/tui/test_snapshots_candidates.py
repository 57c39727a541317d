"""Snapshots of the candidates screen (a campaign workspace), per theme and size, and of a
candidate's overview opened from it.

Update after a deliberate change with `uv run pytest tests/tui --snapshot-update` and look at the
report before committing the new SVGs.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from flipgate.tui.campaign import make_app_for_campaign
from tests.conftest import SAMPLES

WIDE, NARROW = (140, 45), (80, 24)


async def ranked(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


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
    app = make_app_for_campaign(SAMPLES / "winner-rule", theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=ranked)


def test_a_candidate_s_overview(snap_compare: Any) -> None:
    async def opened(pilot: Pilot[Any]) -> None:
        await ranked(pilot)
        await pilot.press("enter")
        await ranked(pilot)  # the candidate is compared in a worker

    app = make_app_for_campaign(SAMPLES / "winner-rule")
    assert snap_compare(app, terminal_size=WIDE, run_before=opened)
