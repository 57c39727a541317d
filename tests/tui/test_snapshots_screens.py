"""Snapshots of the screens a reviewer walks from the overview: the case list, the triage
checklist, the signed decision, the flaky list, the rerun-plan question, calibration, help and go
to case, each at 140x45 and 80x24 in the dark and light themes, reached by their keys in the app
on a copy of the agent-suite sample (INCONCLUSIVE, with repeats and a flaky list). The overview,
the case, the candidates and suite health have theirs beside their own tests.

Paths on screen are relative (the test runs beside its copy), the reviewer comes from a throwaway
git config and the flaky list's ages from a fixed day, so the pictures are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget

from flipgate.tui.screens import flaky
from tests.conftest import copy_sample
from tests.tui.conftest import keys, open_app

WIDE, NARROW = (140, 45), (80, 24)
WORKSPACE = Path("ws")


class FixedDay(date):
    @classmethod
    def today(cls) -> FixedDay:
        return cls(2026, 11, 24)


@pytest.fixture(autouse=True)
def beside_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_sample("agent-suite", tmp_path / WORKSPACE)
    (tmp_path / WORKSPACE / "rerun-plan.yaml").write_text("written earlier\n")
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Rita Reviewer\n\temail = rita@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setattr(flaky, "date", FixedDay)
    monkeypatch.chdir(tmp_path)


SCREENS = {
    "case-list": ("r",),
    "triage": ("c",),
    "triage-second-step": ("c", "o", "right_square_bracket"),
    "decision": ("c", "d"),
    "flaky-list": ("f",),
    "rerun-plan": ("e",),
    "rerun-plan-target": ("e", "minus", "minus"),
    "plan-confirm": ("e", "enter"),
    "calibration": ("k",),
    "help": ("question_mark",),
    "go-to-case": ("colon", "c", "a", "s", "e", "minus", "0", "6"),
}
# Every screen in each theme at each size (issue 29: the 80x24 ones looked at as PNGs first) ...
MATRIX = (
    "case-list",
    "triage",
    "decision",
    "flaky-list",
    "rerun-plan",
    "calibration",
    "help",
    "go-to-case",
)
CASES = [
    (screen, theme, size)
    for screen in MATRIX
    for theme in ("dark", "light")
    for size in (WIDE, NARROW)
]
# ... and a few states and the high-contrast theme besides.
CASES += [
    ("triage-second-step", "dark", WIDE),
    ("triage-second-step", "light", WIDE),
    ("flaky-list", "high-contrast", NARROW),
    ("rerun-plan-target", "dark", WIDE),
    ("plan-confirm", "dark", WIDE),
    ("plan-confirm", "dark", NARROW),
]


@pytest.mark.parametrize(
    ("screen", "theme", "size"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}-{case[2][0]}x{case[2][1]}") for case in CASES],
)
def test_screen(snap_compare: Any, screen: str, theme: str, size: tuple[int, int]) -> None:
    app = open_app(WORKSPACE, theme=theme)
    run_before = keys(*SCREENS[screen])
    if screen == "calibration":
        run_before = reached(run_before, "flipped")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def reached(
    run_before: Callable[[Pilot[Any]], Awaitable[None]], focused: str
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """`run_before`, then the refreshes until the widget `focused` has the focus and is in
    view: the screen focuses it and scrolls to it once laid out, refreshes after its worker's
    answer; a starved app took a snapshot before it scrolled, at 80x24."""

    async def run(pilot: Pilot[Any]) -> None:
        await run_before(pilot)
        for _ in range(100):
            widget = pilot.app.focused
            if widget is not None and widget.id == focused and in_view(widget):
                await pilot.pause()  # and painted so
                return
            await pilot.pause()
        raise AssertionError(f"#{focused} never took the focus in view")

    return run


def in_view(widget: Widget) -> bool:
    """The widget's first line is on the screen, above the footer."""
    return 0 <= widget.region.y < widget.screen.size.height - 1
