"""A tiny app that shows one screen, and the comparison of the fixture workspace it shows.

The app shell is built elsewhere; these tests drive the case screens on their own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import load_workspace

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
CASES_WORKSPACE = FIXTURES / "cases"


def load_comparison(path: Path) -> Comparison:
    workspace = load_workspace(path)
    return compare(
        load_run(workspace.baseline),
        load_run(workspace.candidate),
        load_spec(workspace.gate),
        load_flaky(workspace.flaky),
    )


async def settled(pilot: Pilot[Any]) -> None:
    """Wait for every worker, and for the workers their answers start, then for the last frame."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    while pilot.app.workers:  # an answer started another job (a form's edit, then the review)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@pytest.fixture
def notices(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the app notified, in order (Textual keeps the notifications it shows private)."""
    said: list[str] = []
    notify = App.notify

    def noted(app: App[Any], message: str, *args: Any, **kwargs: Any) -> None:
        said.append(message)
        notify(app, message, *args, **kwargs)

    monkeypatch.setattr(App, "notify", noted)
    return said


class ScreenApp(App[None]):
    """Pushes the screen a test gives it, over a blank default screen."""

    def __init__(self, make_screen: Callable[[], Screen[object]]) -> None:
        super().__init__()
        self.make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self.make_screen())


@pytest.fixture(scope="session")
def comparison() -> Comparison:
    return load_comparison(CASES_WORKSPACE)
