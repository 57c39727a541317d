"""What the reviewer looked at, recorded by the app (issue 24 item 4): the cases and repetitions
opened, the outputs' views and the turns viewed, each finding recorded or undone; a stray enter
records no finding; the decision's cases reviewed are the cases opened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic

from textual.screen import Screen
from textual.widgets import OptionList, Static

from flipgate.core.decision.review_log import Looked
from flipgate.core.gate.compare import Comparison
from flipgate.core.triage.walk import load_walk, walk_path
from flipgate.tui.app import FlipgateApp
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.decision import DecisionScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets.reviewed import CaseList

from .conftest import ScreenResult, load_comparison, on_top, settled
from .test_triage import counts

SIZE = (140, 45)


class RecordingApp(FlipgateApp, Generic[ScreenResult]):
    """A flipgate app (it keeps the review log) on the screen a test gives it."""

    def __init__(self, make_screen: Callable[[], Screen[ScreenResult]]) -> None:
        super().__init__()
        self.make_screen = make_screen

    def open_first_screen(self) -> None:
        self.push_screen(self.make_screen())


def events(app: FlipgateApp) -> list[tuple[object, ...]]:
    """The log without its times: each event with the fields it names."""
    assert app.review_log is not None
    return [(e.event, *(v for v in e.fields().values() if v is not None)) for e in app.review_log]


async def test_the_drill_down_logs_cases_reps_views_and_turns(
    agent_comparison: Comparison,
) -> None:
    cases = ("refund-001", "refund-002")
    app = RecordingApp(lambda: CaseScreen(agent_comparison, "refund-001", cases))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        first = screen.rep_no
        await pilot.press("right_square_bracket")  # the next repetition
        second = screen.rep_no
        await pilot.press("d")  # the outputs' unified diff
        await pilot.press("g", "k", "enter", "D")  # turn 5 (the fork); turn 4 unfolded, diffed
        await pilot.press("n")
        await pilot.pause()
    assert events(app) == [
        ("case_opened", "refund-001", first),
        ("rep_viewed", "refund-001", second),
        ("outputs_viewed", "refund-001", second, "unified"),
        ("turn_viewed", "refund-001", second, "divergence", 5),
        ("turn_viewed", "refund-001", second, "unfold", 4),
        ("turn_viewed", "refund-001", second, "diff", 4),
        ("case_opened", "refund-002", screen.rep_no),
    ]


async def test_replaying_a_step_opens_the_case_where_it_was_and_logs_nothing(
    agent_comparison: Comparison,
) -> None:
    step = Looked("turn_viewed", case="refund-002", rep=2, turn=4, view="unfold")
    app = RecordingApp(lambda: CaseScreen(agent_comparison, "refund-002", replaying=step))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        assert screen.rep_no == 2
        trajectory = screen.query_one("#trajectory")
        assert trajectory.cursor == 3  # type: ignore[attr-defined]
        assert trajectory.unfolded == {3}  # type: ignore[attr-defined]
        await pilot.press("right_square_bracket", "d")
    assert app.review_log == []


async def test_enter_moves_on_without_a_finding_and_a_finding_is_undone(
    agent_comparison: Comparison, tmp_path: Path
) -> None:
    comparison, saved = agent_comparison, tmp_path / "triage.yaml"
    app = RecordingApp(lambda: TriageScreen(comparison, saved))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        empty = next(i for i, step in enumerate(screen.steps) if not step.cases)
        steps = screen.query_one("#steps", OptionList)
        steps.highlighted = empty
        await pilot.pause()
        steps.focus()
        await pilot.press("enter")  # a step with no case to open: on to the next one
        await pilot.pause()
        assert screen.current == empty + 1
        await pilot.press("tab", "enter")  # the stray keys of the issue: no finding
        await pilot.pause()
        assert on_top(app) is screen  # no screen opened, none left
        assert isinstance(screen, TriageScreen)  # (mypy narrowed it to `on_top`'s type)
        walk = screen.gathered_walk
        assert all(walk.findings[s.klass].finding is None for s in screen.steps)
        klass = screen.steps[screen.current].klass
        await pilot.press("u")  # unclear, explicitly
        assert screen.gathered_walk.findings[klass].finding == "unclear"
        await pilot.press("c")  # then the cause
        await pilot.press("z")  # undone: unclear again
        assert screen.gathered_walk.findings[klass].finding == "unclear"
        await pilot.press("left_square_bracket", "z")  # undone from another step: back to it
        await pilot.pause()
        assert screen.steps[screen.current].klass == klass
        assert screen.gathered_walk.findings[klass].finding is None
        await pilot.press("z")  # nothing left to undo
    assert load_walk(saved, comparison).findings[klass].finding is None
    assert events(app) == [
        ("finding_recorded", klass, "unclear"),
        ("finding_recorded", klass, "cause"),
        ("finding_undone", klass, "cause"),
        ("finding_undone", klass, "unclear"),
    ]


async def test_the_decision_screen_starts_from_the_cases_opened(workspace: Path) -> None:
    comparison = load_comparison(workspace)
    app = RecordingApp(lambda: TriageScreen(comparison, walk_path(workspace)))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        triage = app.screen
        assert isinstance(triage, TriageScreen)
        index = next(i for i, s in enumerate(triage.steps) if s.cases)
        triage.query_one("#steps", OptionList).highlighted = index
        await pilot.pause()
        triage.query_one("#step-cases", OptionList).focus()
        await pilot.press("enter")  # the first case named, opened
        await pilot.pause()
        assert isinstance(app.screen, CaseScreen)
        opened = app.screen.detail.case
        await pilot.press("escape", "d")
        await pilot.pause()
        decision = app.screen
        assert isinstance(decision, DecisionScreen)
        assert counts(decision.query_one("#cases-count", Static))[0].startswith(
            "1 case reviewed, for the file: 1 opened [o], 0 added by hand [+]"
        )
        assert [e.case for e in decision.review_log] == [opened]
        # a case opened from the decision's own list is opened too: marked, counted and logged
        case_list = decision.query_one(CaseList)
        case_list.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(on_top(app), CaseScreen)
        second = case_list.current_case()
        assert second is not None and second != opened
        await pilot.press("escape")
        await pilot.pause()
        assert on_top(app) is decision
        assert counts(decision.query_one("#cases-count", Static))[0].startswith(
            "2 cases reviewed, for the file: 2 opened [o], 0 added by hand [+]"
        )
        assert [e.case for e in decision.review_log] == [opened, second]
        assert case_list.ticked[case_list.ids.index(second)]
