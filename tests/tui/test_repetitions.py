"""Pilot flows on every repetition of a case: opened from the drill-down, moved along turns and
repetitions (sideways at 80x24, the turn column kept), the turn under the cursor whole and literal."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Static

from flipgate.core.gate.compare import Comparison
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.repetitions import RepetitionsScreen
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.repetitions import RepetitionGrid
from tests.conftest import SAMPLES, write_run

from .conftest import (
    HOSTILE_ARG,
    ScreenApp,
    agent_rows,
    load_comparison,
    on_top,
    open_app,
    settled,
)
from .test_app import plain
from .test_case import painted, rendered

CASES = ("refund-001", "refund-002")


def repetitions_of(app: App[None]) -> RepetitionsScreen:
    screen = on_top(app)
    assert isinstance(screen, RepetitionsScreen)
    return screen


async def test_every_repetition_side_by_side_at_80x24(agent_comparison: Comparison) -> None:
    """Three repetitions an arm: the candidate's reps 1 and 2 refund without asking."""
    app = ScreenApp(lambda: CaseScreen(agent_comparison, "refund-001", CASES))
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("a")
        await settled(pilot)
        screen = repetitions_of(app)
        view = screen.query_one(RepetitionGrid)
        assert screen.grid is not None and len(screen.grid.columns) == 6
        header = rendered(screen.query_one("#reps-header", Static))
        # a candidate repetition does what the baseline's do: no new divergence
        assert "no new divergence" in header
        shown = painted(view)
        # three columns fit at 80 cells; the turn column stays while they scroll
        assert "✓ pass · reference" in shown and "baseline rep 2" in shown
        assert "candidate rep 0" not in shown and " turn " in shown.splitlines()[1]
        # the cursor opens on the reference's first turn; the turn is shown whole below
        assert (view.row, view.column) == (0, 0)
        assert "You are a support agent. Confirm first." in rendered(
            screen.query_one("#turn-text", Static)
        )
        for _ in range(4):
            await pilot.press("right")
        assert view.column == 4 and view.left == 2
        shown = painted(view)
        assert "candidate rep 1" in shown and "baseline rep 0" not in shown
        assert shown.splitlines()[1].lstrip().startswith("turn")
        # its system prompt lacks the reference's last words: the cell differs, and the turn
        # whole shows the reference's words it lacks
        whole = rendered(screen.query_one("#turn-text", Static))
        assert "differs from baseline rep 0" in whole and "Confirm first." in whole
        # the candidate's rep 1 refunds without asking: a gap where the reference confirms, and
        # it parts from the reference there
        await pilot.press("j", "j", "j", "j")
        assert view.row == 4
        assert shown_line(view, 4).endswith("│▸  ·" + " " * 20)
        whole = rendered(screen.query_one("#turn-text", Static))
        assert "no turn here in this repetition" in whole
        await pilot.press("j", "j")
        whole = rendered(screen.query_one("#turn-text", Static))
        assert "issue_refund" in whole and "the same as baseline rep 0" in whole
        # a tool argument read as JSON, its escape character written `\u001b`, never sent
        await pilot.press("k", "k", "k", "k")
        assert view.row == 2
        whole = rendered(screen.query_one("#turn-text", Static))
        assert "[bold red]A-1[/bold red]\\u001b[31m" in whole and "\x1b" not in whole
        assert HOSTILE_ARG not in whole  # the raw escape never reaches the screen
        # end and home, then back to the drill-down
        await pilot.press("end")
        assert view.row == len(screen.grid.cells) - 1
        await pilot.press("home")
        assert view.row == 0
        await pilot.press("escape")
        assert isinstance(on_top(app), CaseScreen)


def shown_line(view: RepetitionGrid, row: int) -> str:
    """The painted line of `row` (counted from the top of the grid)."""
    return view.render_line(2 + row - view.top).text


async def test_g_goes_to_where_the_arms_part(tmp_path: Path) -> None:
    """Every candidate repetition refunds without asking: the arms part at turn 5, earlier than
    the baseline's repetitions (which never part) do; g brings the cursor there."""
    runs = [
        write_run(tmp_path / arm, agent_rows(confirms, "refund-001"), key={"prompt": arm})
        for arm, confirms in (("baseline", (True, True)), ("candidate", (False, False)))
    ]
    comparison = load_comparison(*runs, change=("prompt",))
    app = ScreenApp(lambda: CaseScreen(comparison, "refund-001"))
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("a")
        await settled(pilot)
        screen = repetitions_of(app)
        view = screen.query_one(RepetitionGrid)
        assert screen.grid is not None and screen.grid.first_rows["arms"] == 4
        header = rendered(screen.query_one("#reps-header", Static))
        assert "new divergence at turn 5" in header
        # it opens there, on the first candidate repetition, which parts from the reference there
        assert (view.row, view.column) == (4, 2)
        assert shown_line(view, 4).startswith("◆")
        await pilot.press("home", "g")
        assert view.row == 4


async def test_the_sample_agent_suite_opens_it_and_help_names_its_keys() -> None:
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        for key in ("r", "enter"):
            await pilot.press(key)
            await settled(pilot)
        case = on_top(app)
        assert isinstance(case, CaseScreen)
        footer = plain(case.query_one(KeyBar).render())
        assert "a All reps" in footer
        await pilot.press("a")
        await settled(pilot)
        screen = repetitions_of(app)
        assert screen.grid is not None and len(screen.grid.columns) == 6
        assert screen.detail.case == case.detail.case
        await pilot.press("question_mark")
        await settled(pilot)
        help_screen = on_top(app)
        assert isinstance(help_screen, HelpScreen)
        listed = "\n".join(rendered(s) for s in help_screen.query(Static))
        assert "keys on this screen" in listed
        assert "Arms part" in listed and "right / l    Next rep" in listed
