"""The app stays responsive: each screen's domain work runs in a thread worker, its progress shown
and its keys dimmed meanwhile, and the answer comes back as a message.

Each test holds the slow core call at a gate in its worker thread, looks at the screen while it
waits, then lets it go.
"""

from __future__ import annotations

import ast
import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TextArea

from flipgate.core.curation.review import review
from flipgate.core.decision.review import build_record
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.triage.evidence import evidence
from flipgate.core.triage.walk import start_walk, walk_path
from flipgate.session import gating, triaging
from flipgate.tui import app as app_module
from flipgate.tui.screens import decision, flaky
from flipgate.tui.screens.decision import DecisionScreen
from flipgate.tui.screens.flaky import FlakyScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets.progress_line import ProgressLine
from tests.conftest import SAMPLES, copy_sample

from .conftest import Building, ScreenApp, load_comparison, open_app, settled


class Gate:
    """Stands in for a slow core function: notes its thread, then waits to be let through."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.reached, self.open = threading.Event(), threading.Event()
        self.threads: list[threading.Thread] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.threads.append(threading.current_thread())
        self.reached.set()
        assert self.open.wait(10), "the test never let the worker through"
        return self.real(*args, **kwargs)

    async def held(self, pilot: Pilot[Any]) -> None:
        """Wait (off the event loop) until the worker is at the gate, then for the frame."""
        assert await asyncio.to_thread(self.reached.wait, 10)
        await pilot.pause()


def progress_shown(screen: Any) -> str:
    line = screen.query_one(ProgressLine)
    assert line.busy
    return str(line.query_one(Static).render())


async def test_triage_evidence_is_gathered_in_a_worker(
    comparison: Comparison, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(evidence)
    monkeypatch.setattr(triaging, "evidence", gate)
    app = ScreenApp(lambda: TriageScreen(comparison, walk_path(tmp_path)))
    async with app.run_test(size=(140, 45)) as pilot:
        await gate.held(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert "gathering the evidence for each class" in progress_shown(screen)
        assert not screen.query_one("#triage-main").display
        assert screen.check_action("find", ("cause",)) is None  # shown, dimmed, does nothing
        assert screen.check_action("back", ()) is True
        gate.open.set()
        await settled(pilot)
        assert gate.threads[0] is not threading.main_thread()
        assert not screen.query_one(ProgressLine).busy
        assert screen.query_one("#triage-main").display
        assert len(screen.steps) == 5 and screen.walk is not None


async def test_the_flaky_review_runs_in_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(review)
    monkeypatch.setattr(flaky, "review", gate)
    comparison = load_comparison(SAMPLES / "agent-suite")
    screen = FlakyScreen(
        SAMPLES / "agent-suite" / "flaky.yaml",
        [comparison.baseline, comparison.candidate],
        [],
        comparison.spec,
    )
    async with ScreenApp(lambda: screen).run_test(size=(140, 45)) as pilot:
        await gate.held(pilot)
        assert "reviewing the entries against 1 baseline run" in progress_shown(screen)
        assert screen.check_action("accept", ()) is None
        gate.open.set()
        await settled(pilot)
        assert gate.threads[0] is not threading.main_thread()
        assert screen.report is not None and len(screen.report.entries) == 2
        assert not screen.query_one(ProgressLine).busy


async def test_the_decision_digests_the_runs_in_a_worker(
    comparison: Comparison, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate(build_record)
    monkeypatch.setattr(decision, "build_record", gate)
    workspace = tmp_path / "ws"
    app = ScreenApp(lambda: DecisionScreen(comparison, start_walk(comparison), workspace, cases={}))
    async with app.run_test(size=(140, 45)) as pilot:
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        screen.query_one("#decision", Select).value = "reject"
        screen.query_one("#cause", Select).value = "regression"
        screen.query_one("#reviewer", Input).value = "Rita <rita@example.com>"
        screen.query_one("#reason", TextArea).text = "   "  # refused once the record is built
        screen.action_sign()
        await gate.held(pilot)
        assert "digesting both runs" in progress_shown(screen)
        assert screen.query_one("#sign").disabled
        gate.open.set()
        await settled(pilot)
        assert gate.threads[0] is not threading.main_thread()
        assert "reason: a decision needs a reason" in str(
            screen.query_one("#outcome", Static).render()
        )
        assert not screen.query_one("#sign").disabled
    assert not (workspace / "decisions").exists()


async def test_the_gate_is_applied_again_in_a_worker_with_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = copy_sample("agent-suite", tmp_path / "ws")
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        first = app.screen
        assert isinstance(first, OverviewScreen)
        gate = Gate(compare)
        monkeypatch.setattr(gating, "compare", gate)
        await pilot.press("f", "escape")  # leaving the flaky list applies the gate again
        await gate.held(pilot)
        assert app.screen is first
        assert "pairing the cases and counting the flips" in progress_shown(first)
        assert first.check_action("red_cases", ()) is None
        gate.open.set()
        await settled(pilot)
        assert gate.threads[0] is not threading.main_thread()
        assert isinstance(app.screen, OverviewScreen) and app.screen is not first


async def test_a_failed_re_gate_is_said_and_the_overview_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, notices: list[str]
) -> None:
    workspace = copy_sample("agent-suite", tmp_path / "ws")
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        first = app.screen
        await pilot.press("f")
        await settled(pilot)
        (workspace / "flaky.yaml").write_text("entries: 3\n")  # broken behind the app's back
        await pilot.press("escape")
        await settled(pilot)
        assert app.screen is first
        assert not first.query_one(ProgressLine).busy
        assert first.check_action("red_cases", ()) is True
        assert "flaky.yaml" in notices[-1]


def test_a_worker_given_arguments_is_described_without_them() -> None:
    """Textual describes a worker by the repr of its arguments unless told otherwise, on the
    event loop: a million cases' comparison took 110 ms to say, and a long trajectory's text
    longer. So every worker method that takes arguments is given its description."""
    source = Path(__file__).parents[2] / "src" / "flipgate" / "tui"
    undescribed = []
    for path in sorted(source.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            arguments = node.args
            taken = len(arguments.args) + len(arguments.kwonlyargs) > 1 or arguments.vararg
            for decorator in node.decorator_list:
                if (
                    taken
                    and isinstance(decorator, ast.Call)
                    and getattr(decorator.func, "id", None) == "work"
                    and "description" not in {k.arg for k in decorator.keywords}
                ):
                    undescribed.append(f"{path.name}: {node.name}")
    assert undescribed == []


async def test_the_comparison_is_built_out_of_the_collectors_sight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load and the re-gate build the comparison inside `building` (the collector paused,
    what was built frozen after): full collections the screens cause later walk none of it."""
    inside: list[str] = []
    building = Building()

    def noted(real: Callable[..., Comparison], name: str) -> Callable[..., Comparison]:
        def call(*args: Any, **kwargs: Any) -> Comparison:
            inside.append(f"{name} {'inside' if building.depth else 'outside'}")
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(app_module, "building", building)
    monkeypatch.setattr(app_module, "gate", noted(gating.gate, "gate"))
    monkeypatch.setattr(app_module, "gate_again", noted(gating.gate_again, "gate_again"))
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("f", "escape")  # leaving the flaky list applies the gate again
        await settled(pilot)
    assert inside == ["gate inside", "gate_again inside"]
