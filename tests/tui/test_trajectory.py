"""Pilot flows on the trajectories of the drill-down, and turn text shown literally."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Static

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.present.casefile import case_detail
from flipgate.present.trajectory import Turn
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.widgets.case_format import Palette
from flipgate.tui.widgets.lines import LinesView
from flipgate.tui.widgets.progress_line import ProgressLine
from flipgate.tui.widgets.trajectory import BIG_TRAJECTORY, TrajectoryView, diffed_texts
from tests.conftest import write_run

from .conftest import ScreenApp
from .test_case import painted, rendered

CASES = ("refund-001", "refund-002")


def screen_of(app: App[None]) -> CaseScreen:
    assert isinstance(app.screen, CaseScreen)
    return app.screen


def cursor_on_screen(screen: CaseScreen) -> bool:
    """The pair of turns under the cursor lies inside the visible part of the body."""
    trajectory = screen.query_one(TrajectoryView)
    top, height = trajectory.cursor_offset()
    y = trajectory.turns.region.y + top
    body = screen.query_one("#case-body", VerticalScroll).content_region
    return body.y <= y and y + height <= body.bottom


async def test_open_unfold_switch_rep_diff_and_next_case(agent_comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(agent_comparison, "refund-001", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = screen_of(app)
        trajectory = screen.query_one(TrajectoryView)
        # opens on rep 1, the first where the arms disagree, at the turn where the paths fork
        assert screen.focus_rep == 1
        assert trajectory.cursor == trajectory.alignment.divergence == 4
        header = rendered(screen.query_one("#case-header", Static))
        assert (
            '◆ turn 5: the candidate called issue_refund(order_id="A-1", amount=180); the baseline'
            " replied “I can refund $180. Shall I go ahead?”" in header
        )
        assert screen.query_one("#case-body", VerticalScroll).scroll_y > 0
        assert cursor_on_screen(screen)
        turns = painted(trajectory.turns)
        assert "◆ 5 assistant" in turns and "◆ no turn here" in turns
        # arguments read as JSON values: the escape character is written `\u001b`, not sent
        assert '→ lookup_order(order_id="[bold red]A-1[/bold red]\\u001b[31m")' in turns

        # the 40-line tool result starts folded; enter unfolds it, and again folds it
        folded_note = "… 40 lines, 1,150 characters in all · enter unfolds"
        assert folded_note in turns and "line 40: order history" not in turns
        await pilot.press("k")  # the lookup's result, turn 4
        assert trajectory.cursor == 3 and cursor_on_screen(screen)
        await pilot.press("enter")
        unfolded = painted(trajectory.turns)
        assert "line 40: order history" in unfolded and folded_note not in unfolded
        await pilot.press("enter")
        assert folded_note in painted(trajectory.turns)
        await pilot.press("g")
        assert trajectory.cursor == 4

        # another repetition: rep 0 took the same path in both arms
        await pilot.press("left_square_bracket")
        assert screen.focus_rep == 0
        assert "= the agent did the same in both arms: every turn is identical" in rendered(
            screen.query_one("#case-header", Static)
        )
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.focus_rep == 2 and trajectory.cursor == 4

        # the turn-by-turn diff marks the lines of the changed system prompt
        await pilot.press("D")
        assert trajectory.diff
        diffed = painted(trajectory.turns)
        assert "- You are a support agent. Confirm first." in diffed
        assert "+ You are a support agent." in diffed
        await pilot.press("D")
        assert not trajectory.diff
        # the outputs are JSON: indented, and diffed value by value
        await pilot.press("d")
        diff = painted(screen.query_one("#diff", LinesView))
        assert '-   "confirmed": true' in diff and '+   "confirmed": false' in diff

        await pilot.press("n")
        assert screen.detail.case == "refund-002"
        assert screen.focus_rep == 1 and trajectory.cursor == 4 and cursor_on_screen(screen)


async def test_a_case_without_trajectories_says_so(comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(comparison, "lst-001", ("lst-001",)))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        screen = screen_of(app)
        assert not screen.query_one(TrajectoryView).display
        await pilot.press("j")
        await pilot.pause()
        assert any("no trajectory" in n.message for n in app._notifications)


async def test_turns_and_tool_arguments_are_shown_literally(agent_comparison: Comparison) -> None:
    app = ScreenApp(lambda: CaseScreen(agent_comparison, "refund-001", CASES))
    async with app.run_test(size=(140, 45)) as pilot:
        await pilot.pause()
        turns = screen_of(app).query_one(TrajectoryView).turns
        lines = [turns.render_line(y) for y in range(turns.virtual_size.height)]
        text = "\n".join(line.text for line in lines)
        assert "[link=https://evil.example]click[/link]" in text
        assert "␛]8;;https://evil.example␇x␛]8;;␇" in text
        assert "[bold red]A-1[/bold red]\\u001b[31m" in text
        for line in lines:
            for segment in line:
                assert "\x1b" not in segment.text
                assert segment.style is None or not segment.style.link
                if "A-1[/bold red]" in segment.text:
                    assert segment.style is None or not segment.style.bold
        svg = app.export_screenshot()
        assert "[bold&#160;red]A-1[/bold&#160;red]" in svg and "\x1b" not in svg


def test_the_turn_diff_keeps_both_sides_level() -> None:
    plain = Style()
    palette = Palette(*([plain] * 8))
    left, right = diffed_texts(
        Turn(1, "assistant", "dropped\nkept\nchanged"),
        Turn(1, "assistant", "kept\nchanged!"),
        palette,
    )
    assert left.plain.split("\n") == ["- dropped", "  kept", "- changed"]
    assert right.plain.split("\n") == ["", "  kept", "+ changed!"]


def test_a_line_both_arms_changed_marks_only_the_words_that_differ() -> None:
    removed, added = Style(color="red"), Style(color="green")
    palette = replace(Palette(*([Style()] * 8)), removed=removed, added=added)
    left, right = diffed_texts(
        Turn(1, "assistant", "I can refund $180 today."),
        Turn(1, "assistant", "I can refund $250 today."),
        palette,
    )
    assert (left.plain, right.plain) == ("- I can refund $180 today.", "+ I can refund $250 today.")

    def marked(text: Text, style: Style) -> list[str]:
        return [text.plain[s.start : s.end] for s in text.spans if s.style == style]

    assert marked(left, removed) == ["- ", "180"]  # the marker, then the one word that differs
    assert marked(right, added) == ["+ ", "250"]
    # the words they share are not marked
    assert "refund" not in "".join(marked(left, removed) + marked(right, added))


# --------------------------------------------------------------------------- a long trajectory


def long_comparison(tmp_path: Path, turns: int = 3_000) -> Comparison:
    """One case whose trajectories are `turns` turns an arm (past BIG_TRAJECTORY), the candidate
    calling another tool from turn 2,001."""
    runs = []
    for arm in ("baseline", "candidate"):
        messages: list[dict[str, object]] = [{"role": "user", "content": "Reconcile the ledger."}]
        while len(messages) < turns:
            n = len(messages)
            tool = "post_entry" if arm == "candidate" and n > 2_000 else "check_entry"
            call = {"id": f"c{n}", "name": tool, "arguments": {"entry": n}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"entry {n}"})
        row = {"case": "long-001", "passed": arm == "baseline", "messages": messages}
        runs.append(load_run(write_run(tmp_path / arm, [row])))
    return compare(runs[0], runs[1], default_spec())


async def test_a_long_trajectory_is_aligned_in_a_worker_with_progress(tmp_path: Path) -> None:
    """Issue 28 item 12: the drill-down aligned on the event loop (163 s for 53,000 turns). A long
    trajectory is parsed, aligned and laid out in a thread worker; the screen says so meanwhile
    and stays live. (How long the event loop waits: bench/bench_drilldown.py.)"""
    comparison = long_comparison(tmp_path)
    assert sum(len(m or "") for m in case_detail(comparison, "long-001").messages(0)) > (
        BIG_TRAJECTORY
    )
    app = ScreenApp(lambda: CaseScreen(comparison, "long-001"))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = screen_of(app)
        trajectory = screen.query_one(TrajectoryView)
        assert screen.alignment is None and not trajectory.alignment.pairs  # not on the loop
        assert "aligning 0.6 MB of turns …" in painted(trajectory.turns)
        workers = [w for w in app.workers if w.group == "align"]
        assert [(w.is_running or w.is_finished, w._thread_worker) for w in workers] == [
            (True, True)
        ]
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()  # and the body scrolled to the divergence, after the refresh
        assert screen.alignment is not None and len(screen.alignment.pairs) == 3_001
        assert trajectory.cursor == trajectory.alignment.divergence == 2_001
        assert not screen.query_one(ProgressLine).busy
        assert "◆ turn 2002: the candidate called post_entry(entry=2001)" in rendered(
            screen.query_one("#case-header", Static)
        )
        assert "◆ 2002 assistant" in painted(trajectory.turns) and cursor_on_screen(screen)
        await pilot.press("j", "enter", "D")  # moving, unfolding and the diff work on it
        assert trajectory.cursor == 2_002 and trajectory.diff
        await app.workers.wait_for_complete()  # the diff's rows: built in a worker too
        await pilot.pause()
        assert "- → check_entry(entry=2001)" in painted(trajectory.turns)
