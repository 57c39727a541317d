"""Pilot flows on the case drill-down, and untrusted text shown literally."""

from __future__ import annotations

import io
import threading

import pytest
from rich.console import Console, ConsoleRenderable
from rich.segment import Segment
from rich.text import Text
from textual.app import App
from textual.widget import Widget
from textual.widgets import Static

from flipgate.core.gate.compare import Comparison
from flipgate.present import casefile
from flipgate.tui.screens import case as case_screen
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.widgets.case_table import CaseTable
from flipgate.tui.widgets.decisions import DecisionsView
from flipgate.tui.widgets.outputs import OutputsView, RepFacts

from .conftest import ScreenApp, settled
from .test_workers import Gate

EVIL_CASE = "evil-[bold red]\x1b[31m"
CASES = (EVIL_CASE, "lst-001", "lst-007", "lst-008", "chk-001")


def rendered(widget: Static) -> str:
    """The plain text a Static shows, its content printed 200 columns wide without colour."""
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(widget.content)
    return out.getvalue()


def painted(view: Widget) -> str:
    """What a line-painted widget shows, line by line, as the compositor asks for it."""
    return "\n".join(view.render_line(y).text for y in range(view.virtual_size.height))


def segments(widget: Static) -> list[Segment]:
    content = widget.content
    assert isinstance(content, ConsoleRenderable)  # these widgets hold Rich renderables
    return [s for line in Console(width=200).render_lines(content, pad=False) for s in line]


def screen_of(app: App[None]) -> CaseScreen:
    assert isinstance(app.screen, CaseScreen)
    return app.screen


def mode(screen: CaseScreen) -> str:
    """The screen's mode, read afresh (a key changes it between two reads mypy would narrow)."""
    return screen.mode


async def test_reps_diff_and_next_previous_case(comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(comparison, "lst-001", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = screen_of(app)
        assert screen.focus_rep == 0  # the first repetition where the arms disagree
        candidate = screen.query_one("#out-candidate")
        assert "Verdict: approve" in painted(candidate)
        assert candidate.border_title == "candidate rep 0: ✗ fail"
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.focus_rep == 2
        assert screen.query_one("#out-candidate").border_title == "candidate rep 2: ✓ pass"
        await pilot.press("left")
        assert screen.focus_rep == 1

        await pilot.press("d")  # unified diff
        assert mode(screen) == "unified"
        diff = painted(screen.query_one("#diff"))
        assert "- Verdict: reject: prohibited item" in diff
        assert "+ Verdict: approve" in diff
        assert not screen.query_one("#pair").display
        await pilot.press("d")
        assert mode(screen) == "side-by-side"
        await pilot.press("d")
        assert mode(screen) == "outputs" and screen.query_one("#pair").display

        await pilot.press("n")
        assert screen.detail.case == "lst-007"
        assert screen.focus_rep == 0  # rep 0 is infra in the candidate: the arms disagree
        header = rendered(screen.query_one("#case-header", Static))
        assert "case 3 of 5" in header and "candidate: reps ·✗✗ → case ✗ fail" in header
        await pilot.press("p", "p")
        assert screen.detail.case == EVIL_CASE
        await pilot.press("p")  # no case before the first: stays, says so
        assert screen.detail.case == EVIL_CASE


async def test_decisions_rule_by_rule_and_checks(comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(comparison, "lst-007", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        decisions = app.screen.query_one(DecisionsView)
        table = rendered(decisions)
        assert "· infra" in table and "reject FP" in table and "approve OK" in table
        assert "FP false positive" in str(decisions.border_title)
        await pilot.press("n", "n")  # chk-001, a pass/fail case
        checks = rendered(app.screen.query_one(DecisionsView))
        assert "tests" in checks and "✗ FAIL" in checks and "compiles" in checks


async def test_untrusted_text_is_shown_literally(comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(comparison, "lst-001", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = screen_of(app)
        reasons = rendered(screen.query_one(DecisionsView))
        assert "[bold red]SHOUT[/bold red] ␛[31mred␛[0m ␛]8;;https://evil.example␇link" in reasons
        facts = rendered(screen.query_one(RepFacts))
        assert "[link=https://evil.example]click[/link]" in facts
        # the rendered widgets hold no style and no link that came from the text
        for widget in (screen.query_one(DecisionsView), screen.query_one(RepFacts)):
            for segment in segments(widget):
                assert "\x1b" not in segment.text
                assert segment.style is None or not segment.style.link
                if "SHOUT" in segment.text:
                    assert segment.style is None or not segment.style.bold
        screen_svg = app.export_screenshot()  # what the terminal shows, as text
        assert "[bold&#160;red]SHOUT[/bold&#160;red]" in screen_svg
        assert "\x1b" not in screen_svg
        await pilot.press("p")  # the case whose id is hostile
        header = screen.query_one("#case-header", Static).content
        assert isinstance(header, Text)
        assert "evil-[bold red]␛[31m" in header.plain
        outputs = screen.query_one(OutputsView)
        assert "\x1b" not in painted(outputs.query_one("#out-baseline"))


async def test_red_table_shows_hostile_case_id_literally(comparison: Comparison) -> None:
    from flipgate.tui.screens.red_cases import RedCasesScreen

    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(CaseTable)
        lines = table.render_lines(table.region.reset_offset)
        text = "\n".join(strip.text for strip in lines)
        assert "evil-[bold red]␛[31m" in text
        assert "\x1b" not in text


async def test_a_case_of_a_big_comparison_is_looked_up_in_a_worker(
    comparison: Comparison, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `BIG_COMPARISON` cases the case is found in a worker, its keys waiting meanwhile, and
    drawn as the small path draws it; n and p look up the next the same way."""
    small = ScreenApp(lambda: CaseScreen(comparison, "lst-001", CASES))
    async with small.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        expected = rendered(screen_of(small).query_one(DecisionsView))
    monkeypatch.setattr(case_screen, "BIG_COMPARISON", 0)
    held = Gate(casefile.case_detail)
    monkeypatch.setattr(case_screen, "case_detail", held)
    app = ScreenApp(lambda: CaseScreen(comparison, "lst-001", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await held.held(pilot)
        screen = screen_of(app)
        assert "case lst-001" in rendered(screen.query_one("#case-header", Static))
        assert not screen.query_one("#case-body").display
        assert screen.check_action("next_case", ()) is None  # shown, dimmed, does nothing
        assert screen.check_action("back", ()) is True
        assert screen.focused_text().text == "lst-001"
        held.open.set()
        await settled(pilot)
        assert held.threads[0] is not threading.main_thread()
        assert screen.query_one("#case-body").display
        assert rendered(screen.query_one(DecisionsView)) == expected
        await pilot.press("n")
        await settled(pilot)
        assert screen.detail.case == "lst-007" and screen.case == "lst-007"
        assert screen.focus_rep == 0
