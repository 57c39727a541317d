"""The candidates screen, walked as a person would: the table, the labels, enter to a candidate's
gate overview and esc back, the incumbent's row, a theme switch, and bad input on screen."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from flipgate.core.errors import InputError
from flipgate.session import Comparison, GateInputs, gate
from flipgate.tui import campaign
from flipgate.tui.campaign import CampaignApp
from flipgate.tui.screens.candidates import CandidatesScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.widgets.progress_line import ProgressLine
from tests.conftest import SAMPLES, copy_sample
from tests.tui.conftest import Building, open_app, settled

WINNER_RULE = SAMPLES / "winner-rule"


def cell(table: DataTable[Any], row: str, column: str) -> str:
    return str(table.get_cell(row, column))


async def test_the_table_ranks_by_the_release_key_and_marks_the_labels() -> None:
    app = open_app(WINNER_RULE)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert isinstance(app.screen, CandidatesScreen)
        table = app.screen.query_one(DataTable)
        assert [key.value for key in table.rows][:3] == ["CLAUDE", "MERGE", "HURRIED"]
        assert str(table.get_row_at(3)[0]) == "incumbent" and table.row_count == 4
        assert cell(table, "CLAUDE", "labels") == "★ winner ✓ clears"
        assert cell(table, "MERGE", "labels") == "▲ highest mean"
        assert cell(table, "HURRIED", "complete") == "1 repetition missing"
        assert cell(table, "MERGE", "mean") == "0.500 6/12"
        assert cell(table, "CLAUDE", "key") == "2/6"
        assert cell(table, "CLAUDE", "gate") == "✓ PASS"
        summary = str(app.screen.query_one("#summary", Static).render())
        assert "the mean and the release key disagree" in summary
        assert "clears the incumbent: yes" in summary


async def test_enter_opens_the_overview_of_that_candidate_and_esc_comes_back() -> None:
    app = open_app(WINNER_RULE)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("down", "enter")
        await settled(pilot)  # the candidate is compared in a worker
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.comparison.result.runs == {
            "baseline": "wr-incumbent",
            "candidate": "wr-merge",
        }
        assert app.request.candidate == WINNER_RULE / "candidates" / "MERGE"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, CandidatesScreen)
        assert app.screen.query_one(DataTable).cursor_row == 1  # where the reader left it
        await pilot.press("escape")  # nothing above the candidates to go back from
        await pilot.pause()
        assert isinstance(app.screen, CandidatesScreen)


async def test_a_candidate_is_gated_off_the_event_loop_the_progress_line_saying_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chosen candidate's gate runs in a worker (seconds at a million cases, the screen
    answering meanwhile), inside `building` as the pair's load is: the progress line says so,
    enter waits (one candidate gated at a time), the cursor still moves; the overview is pushed
    once the comparison is made."""
    gated_on: list[str] = []
    release = threading.Event()
    building = Building()

    def held(inputs: GateInputs, progress: Callable[[str], None], **options: Any) -> Comparison:
        def step(description: str) -> None:  # the gate held at its first step, said
            progress(description)
            gated_on.append(f"{threading.current_thread().name}, building {building.depth}")
            release.wait(timeout=30)

        return gate(inputs, step, **options)

    app = open_app(WINNER_RULE)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        monkeypatch.setattr(campaign, "gate", held)
        monkeypatch.setattr(campaign, "building", building)
        await pilot.press("down", "enter")
        screen = app.screen
        assert isinstance(screen, CandidatesScreen)
        line = screen.query_one(ProgressLine)
        while not (gated_on and line.busy):  # the step said, on a loaded machine too
            await asyncio.sleep(0.01)
        assert "pairing the cases" in str(line.query_one(Static).render())
        await pilot.press("down", "enter")  # waits: no second gate; the cursor moved
        assert screen.query_one(DataTable).cursor_row == 2
        release.set()
        await settled(pilot)
        assert isinstance(app.screen, OverviewScreen)
        assert app.screen.comparison.result.runs["candidate"] == "wr-merge"
        (gated,) = gated_on
        assert gated.endswith("building 1") and threading.main_thread().name not in gated
        await pilot.press("escape")
        await pilot.pause()
        assert pilot.app.screen is screen and not line.busy


async def test_a_candidate_whose_gate_fails_is_said_and_the_screen_answers_again(
    monkeypatch: pytest.MonkeyPatch, notices: list[str]
) -> None:
    def failing(*args: Any, **kwargs: Any) -> Comparison:
        raise InputError("candidates/MERGE/results.jsonl", "unreadable", line=3)

    app = open_app(WINNER_RULE)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        monkeypatch.setattr(campaign, "gate", failing)
        await pilot.press("down", "enter")
        await settled(pilot)
        assert isinstance(app.screen, CandidatesScreen)
        assert not app.screen.query_one(ProgressLine).busy
        assert any("results.jsonl:3: unreadable" in notice for notice in notices)


async def test_the_incumbent_row_opens_nothing(notices: list[str]) -> None:
    app = open_app(WINNER_RULE)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("down", "down", "down", "enter")
        await settled(pilot)
        assert isinstance(app.screen, CandidatesScreen)
        assert any("choose a candidate" in notice for notice in notices)


async def test_a_theme_switch_recolours_the_table_in_place() -> None:
    app = open_app(WINNER_RULE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one(DataTable)
        dark = table.get_cell("CLAUDE", "gate").style
        await pilot.press("down", "t")
        await pilot.pause()
        assert app.flipgate_theme == "light"
        assert table.get_cell("CLAUDE", "gate").style != dark
        assert table.cursor_row == 1 and table.row_count == 4


async def test_a_bad_candidate_is_shown_with_its_file_and_line(tmp_path: Path) -> None:
    workspace = tmp_path / "campaign"
    copy_sample("winner-rule", workspace)
    results = workspace / "candidates" / "MERGE" / "results.jsonl"
    results.write_text(results.read_text() + '{"case": "i7", "rep": 0, "passed": "yes"}\n')
    app = open_app(workspace)
    assert isinstance(app, CampaignApp)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert isinstance(app.screen, LoadingScreen) and app.load_error is not None
        assert str(results) in str(app.load_error) and "passed" in str(app.load_error)


async def test_at_80_columns_the_gate_and_holm_columns_are_in_view_and_the_name_stays() -> None:
    """Issue 29 item 11: at 80x24 the gate and Holm columns were cut off the screen."""
    app = open_app(WINNER_RULE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        table = app.screen.query_one(DataTable)
        shown = [column.label.plain for column in table.columns.values()]
        assert shown == [*shown[:5], "gate", "evidence", "complete"]
        left = sum(column.get_render_width(table) for column in list(table.columns.values())[:7])
        assert left <= table.scrollable_content_region.width  # up to the evidence, in view
        assert cell(table, "CLAUDE", "labels") == "★ ✓"  # the marks, read out in the border
        assert "★ winner ✓ clears" in str(table.border_title)
        assert cell(table, "CLAUDE", "evidence") == "none, Holm p 1.000"
        assert cell(table, "HURRIED", "evidence") == "— incomplete"
        # the rest sideways, the candidate's name fixed
        table.scroll_to(x=table.max_scroll_x, animate=False)
        await pilot.pause()
        assert table.scroll_x > 0
        assert table.render_line(1).text.startswith(" CLAUDE")
        assert "1 repetition missing" in "".join(
            table.render_line(y).text for y in range(table.size.height)
        )
