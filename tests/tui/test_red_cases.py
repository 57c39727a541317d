"""Pilot flows on the red-case table: filters, search, sort, opening a case and coming back."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from textual.app import App
from textual.pilot import Pilot
from textual_fastdatatable.backend import PolarsBackend

import flipgate.tui.screens.red_cases as red_cases
from flipgate.core.gate.compare import Comparison
from flipgate.present.case_query import CaseQuery, select_cases
from flipgate.present.casefile import failures_by_case
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.widgets.case_table import CaseTable, column_widths

from .conftest import ScreenApp, load_comparison, settled

SIZE = (140, 45)


def shown(app: App[None]) -> list[str]:
    return app.screen.query_one(CaseTable).view["case"].to_list()


def header(app: App[None]) -> str:
    return str(app.screen.query_one("#red-header").render())


async def test_filter_to_pass_to_fail_and_back(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(shown(app)) == 9
        await pilot.press("1")
        assert shown(app) == ["evil-[bold red]\x1b[31m", "lst-001", "lst-007", "lst-008", "chk-001"]
        assert header(app).startswith("pass→fail · 5 of 9 cases to review")
        await pilot.press("f")  # flaky listed among them
        assert shown(app) == ["lst-008"]
        await pilot.press("backspace")  # clears every filter
        assert len(shown(app)) == 9


async def test_starting_filter_and_outcome_cycle(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison, filter="both_fail"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert shown(app) == ["lst-003"]
        await pilot.press("backspace", "o")  # worst outcome first: false negatives
        assert shown(app) == ["evil-[bold red]\x1b[31m", "lst-001", "lst-003", "lst-002"]
        await pilot.press("o")
        assert shown(app) == ["lst-007", "lst-008"]  # false positives


async def test_search_narrows_as_you_type_and_escape_clears(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("slash", "l", "s", "t")
        assert len(shown(app)) == 7
        await pilot.press("-", "0", "0", "7")
        assert shown(app) == ["lst-007"]
        await pilot.press("escape")
        assert len(shown(app)) == 9
        assert app.focused is app.screen.query_one(CaseTable)


async def test_sort_by_key_and_reverse(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert shown(app)[:2] == ["evil-[bold red]\x1b[31m", "lst-001"]  # +1200, +800
        assert shown(app)[-1] == "lst-002"  # -800
        await pilot.press("c")
        assert shown(app)[0] == "lst-002"
        assert "sorted by cost Δ (reversed)" in header(app)


async def test_open_a_case_walk_and_return_with_cursor(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison, filter="pass_to_fail"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        assert screen.detail.case == "lst-001"
        assert screen.cases == (
            "evil-[bold red]\x1b[31m",
            "lst-001",
            "lst-007",
            "lst-008",
            "chk-001",
        )
        await pilot.press("escape")
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        assert table.cursor_row == 1 and app.focused is table
        await pilot.press("enter", "n", "n")  # to lst-008
        assert app.screen.detail.case == "lst-008"  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one(CaseTable).cursor_row == 3


async def test_rule_cycle_template_of_row_and_header_click(comparison: Comparison) -> None:
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r")  # rules in name order: `prohibited` first
        assert shown(app) == [
            "evil-[bold red]\x1b[31m",
            "lst-001",
            "lst-007",
            "lst-008",
            "lst-003",
            "lst-002",
            "lst-004",
        ]
        await pilot.press("r")
        assert shown(app) == ["chk-001"]  # the failed `tests` check
        await pilot.press("r")  # off: all again, the cursor still on chk-001
        assert app.screen.query_one(CaseTable).cursor_row == 4
        await pilot.press("ctrl+home", "down", "T")  # the template of lst-001
        assert shown(app) == ["lst-001", "lst-002"]
        assert "template blades" in header(app)
        await pilot.press("T")
        assert len(shown(app)) == 9
        await pilot.click(CaseTable, offset=(2, 0))  # the `case` header
        assert shown(app)[0] == "chk-001" and "sorted by case" in header(app)


async def test_a_pass_fail_suite_shows_no_empty_columns_and_the_sort_has_an_arrow() -> None:
    comparison = load_comparison(Path(__file__).parent / "workspaces" / "passfail")
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels[1] == "direction ▲"  # the sort the list opens with
        assert not {"base wrong", "cand wrong", "cost Δ"} & {
            label.split(" ▲")[0] for label in labels
        }
        await pilot.press("c")  # no cost in these runs: nothing to sort by, and it says so
        screen = app.screen
        assert isinstance(screen, RedCasesScreen) and screen.case_query.sort == "direction"
        await pilot.press("i", "i")
        labels = [str(column.label) for column in table.ordered_columns]
        assert labels[0] == "case ▼" and labels[1] == "direction"


async def test_a_big_comparison_builds_its_lists_and_searches_in_workers(
    comparison: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `BIG_COMPARISON` cases the screen comes up at once, saying it builds the lists, and
    shows the same table when they are built; a query typed meanwhile is applied to them; the
    search of the outputs and reasons runs in a worker too."""
    monkeypatch.setattr(red_cases, "BIG_COMPARISON", 1)
    built = RedCasesScreen.__dict__["_build"]
    started: list[RedCasesScreen] = []

    def held_back(screen: RedCasesScreen) -> None:  # built only when the test says
        started.append(screen)

    monkeypatch.setattr(RedCasesScreen, "_build", held_back)
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RedCasesScreen) and started == [screen]
        assert header(app) == f"building the list of {comparison.cases.height} cases …"
        assert not screen.query(CaseTable)
        await pilot.press("1")  # no list yet: the filter keys wait
        await pilot.press("slash", "l", "s", "t", "-", "0", "0", "7")
        built(screen)
        await settled(pilot)
        assert shown(app) == ["lst-007"]  # the search typed meanwhile, applied
        await pilot.press("escape", "slash", *"lst", "enter")  # escape clears the search
        await settled(pilot)
        assert header(app).startswith("“lst” · 7 of 9 cases to review")


async def test_a_big_comparison_selects_off_the_event_loop_and_lists_every_case_on_asking(
    comparison: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `BIG_COMPARISON` cases no query is applied on the event loop (a key of the search
    took a tenth of a second at a million cases, the screen waiting), and the list of every case
    (two thirds of the lists' time there) is built on the first `a`, the widths then fitted to
    every case; the rows shown are the ones the small comparison's screen shows."""
    selected_on: list[str] = []

    def noted(table: pl.DataFrame, query: CaseQuery) -> pl.DataFrame:
        selected_on.append(threading.current_thread().name)
        return select_cases(table, query)

    async def walk(app: App[None], pilot: Pilot[Any]) -> list[list[str]]:
        seen = []
        for keys in (("1",), ("slash", *"lst"), ("escape", "backspace", "a"), ("i",)):
            await pilot.press(*keys)
            await settled(pilot)
            seen.append(shown(app))
        return seen

    small = ScreenApp(lambda: RedCasesScreen(comparison))
    async with small.run_test(size=SIZE) as pilot:
        await settled(pilot)
        expected = await walk(small, pilot)
    monkeypatch.setattr(red_cases, "select_cases", noted)
    found: list[Comparison] = []

    def counted(comparison: Comparison) -> pl.DataFrame:
        found.append(comparison)
        return failures_by_case(comparison)

    monkeypatch.setattr(red_cases, "failures_by_case", counted)
    monkeypatch.setattr(red_cases, "BIG_COMPARISON", 1)
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, RedCasesScreen) and screen.lists is not None
        assert screen.lists.every is None  # not built until asked for
        selected_on.clear()
        assert await walk(app, pilot) == expected
        assert selected_on and threading.main_thread().name not in selected_on
        every = screen.lists.every
        assert every is not None and every.height == comparison.cases.height
        assert screen.table.widths == column_widths(every, screen.columns)
        assert found == [comparison]  # found once, for both lists


async def test_the_table_never_measures_its_rows(
    comparison: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The widths fit every case already: the table's own measure (every row, seconds at a
    million) is never taken, when the table is built or at a keystroke of the search."""

    def measured(*_: object) -> int:
        raise AssertionError("the table measured its rows")

    monkeypatch.setattr(PolarsBackend, "_measure", measured)
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("slash", "l", "s", "t", "1")
        await pilot.pause()
        assert shown(app) == []


async def test_at_80_columns_the_header_names_the_columns_off_screen_and_right_reaches_them(
    comparison: Comparison,
) -> None:
    """The ledger's state sat off an 80-column screen with nothing to say so, and → scrolled a
    cell at a time: the header names what is off screen, → moves a column at a time."""
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one(CaseTable)
        hidden = table.off_screen()
        assert "state" in hidden and "case" not in hidden
        assert f"→ shows {', '.join(hidden)}" in header(app).replace("\n", " ")
        edges = table.column_edges()
        state = edges[table.labels.index("state")]
        presses = next(i for i, edge in enumerate(edges) if edge >= state)
        await pilot.press(*["right"] * presses)
        reached = min(state, table.max_scroll_x)  # the last columns scroll only so far
        assert table.scroll_x == reached
        await pilot.press("left")
        assert table.scroll_x == max(edge for edge in edges if edge < reached)
    async with ScreenApp(lambda: RedCasesScreen(comparison)).run_test(size=(240, 45)) as pilot:
        await settled(pilot)
        assert "→ shows" not in header(pilot.app)
