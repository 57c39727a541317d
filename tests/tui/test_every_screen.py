"""What every screen that lists cases or shows a table gives a reviewer (issue 29): enter (or a
click) opens a case wherever a case id is listed, and the case opened joins the review log a
decision signs; `x` and `X` export the table shown, to a file the toast names."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList
from textual_fastdatatable import DataTable as FastTable

from flipgate.core.decision.review_log import opened
from flipgate.tui.reach import EXPORTS
from flipgate.tui.screens.calibration import CalibrationScreen
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.decision import DecisionScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets.key_bar import KeyBar
from tests.conftest import copy_sample
from tests.tui.conftest import on_top, open_app, settled

SIZE = (140, 45)


async def walk(pilot: Pilot[Any], *keys: str) -> None:
    await settled(pilot)
    for key in keys:
        await pilot.press(key)
        await settled(pilot)


async def test_enter_on_a_case_calibration_lists_opens_it(tmp_path: Path) -> None:
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=SIZE) as pilot:
        await walk(pilot, "k")
        screen = app.screen
        assert isinstance(screen, CalibrationScreen) and screen.calibration is not None
        flipped = screen.query_one("#flipped", OptionList)
        assert flipped.has_focus and flipped.option_count == len(screen.calibration.flipped)
        await walk(pilot, "down", "enter")
        case = on_top(app)
        assert isinstance(case, CaseScreen)
        assert case.detail.case == screen.calibration.flipped[1]
        assert case.cases == screen.calibration.flipped  # n and p walk the list
        await walk(pilot, "escape")
        assert on_top(app) is screen


async def test_calibration_at_80x24_offers_export_and_shows_its_flipped_list(
    tmp_path: Path,
) -> None:
    """Issue 29: at 80 columns the footer left `x` out, and the list sat below the fold."""
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=(80, 24)) as pilot:
        await walk(pilot, "k")
        screen = app.screen
        assert isinstance(screen, CalibrationScreen)
        footer = str(screen.query_one(KeyBar).render())
        assert " x Export CSV " in footer and " w Write proposal " in footer, footer
        flipped = screen.query_one("#flipped", OptionList)
        page = screen.query_one(VerticalScroll).region
        for _ in range(20):  # a starved app scrolls a refresh or two after it settles
            if page.contains_region(flipped.region):
                break
            await pilot.pause()
        assert flipped.has_focus and page.contains_region(flipped.region)


async def test_enter_on_a_retirement_proposal_opens_its_case(tmp_path: Path) -> None:
    app = open_app(copy_sample("support-assistant", tmp_path / "ws"))
    async with app.run_test(size=SIZE) as pilot:
        await walk(pilot, "h")
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        proposals = screen.query_one("#suite-proposals", FastTable)
        proposals.focus()
        await walk(pilot, "down", "enter")
        case = on_top(app)
        assert isinstance(case, CaseScreen)
        assert case.detail.case == str(proposals.get_row_at(1)[0])


async def test_a_case_opened_from_triage_joins_the_log_the_decision_signs(tmp_path: Path) -> None:
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=SIZE) as pilot:
        await walk(pilot, "c")
        triage = app.screen
        assert isinstance(triage, TriageScreen)
        triage.query_one("#steps", OptionList).highlighted = 4  # regression
        await settled(pilot)
        named = triage.steps[4].cases
        triage.query_one("#step-cases", OptionList).focus()
        await walk(pilot, "down", "enter")
        assert isinstance(on_top(app), CaseScreen)
        await walk(pilot, "escape", "d")
        decision = on_top(app)
        assert isinstance(decision, DecisionScreen)
        assert app.review_log is not None and opened(app.review_log) == (named[1],)
        assert opened(decision.review_log) == (named[1],)


def cases_of(screen: Any) -> list[str]:
    return [str(row[0]) for row in map(screen.get_row_at, range(screen.row_count))]


# Each screen with a table: the keys that reach it, the file's name, and its first column.
EXPORTED: dict[str, tuple[str, tuple[str, ...], str, str]] = {
    "flaky list": ("agent-suite", ("f",), "flaky-list", "case"),
    "flaky proposals": ("agent-suite", ("f", "tab"), "flaky-proposals", "case"),
    "calibration": ("agent-suite", ("k",), "calibration-pairs", "baseline"),
    "triage": ("agent-suite", ("c", "right_square_bracket"), "triage-flaky", "case"),
    "suite health": ("support-assistant", ("h",), "retirement-proposals", "case"),
    "candidates": ("winner-rule", (), "candidates", "candidate"),
}
ROWS: dict[str, Callable[[Any], int]] = {
    "flaky list": lambda s: s.query_one("#flaky-entries", DataTable).row_count,
    "flaky proposals": lambda s: s.query_one("#flaky-proposals", DataTable).row_count,
    "calibration": lambda s: len(s.calibration.pairs),
    "triage": lambda s: len(s.steps[1].cases),
    "suite health": lambda s: s.result.stale.proposals.height,
    "candidates": lambda s: len(s.ranking.standings) + 1,  # and the incumbent
}


@pytest.mark.parametrize("screen_name", list(EXPORTED))
async def test_x_and_shift_x_export_the_table_shown(
    tmp_path: Path, notices: list[str], screen_name: str
) -> None:
    sample, keys, name, first = EXPORTED[screen_name]
    workspace = copy_sample(sample, tmp_path / sample)
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await walk(pilot, *keys, "x", "X")
        rows = ROWS[screen_name](app.screen)
        written = sorted((workspace / EXPORTS).glob(f"{name}-*.csv"))
        assert len(written) == 1, sorted((workspace / EXPORTS).glob("*"))
        assert f"Exported {rows:,} rows to {written[0]}." in notices
        table = list(csv.reader(written[0].open(encoding="utf-8")))
        assert table[0][0] == first and len(table) == rows + 1
        markdown = next((workspace / EXPORTS).glob(f"{name}-*.md")).read_text(encoding="utf-8")
        assert markdown.startswith(f"| {first} |") and len(markdown.splitlines()) == rows + 2
