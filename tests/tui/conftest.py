"""The app as a user opens it (`open_app`), a tiny app that shows one screen, and the comparison
of the fixture workspace it shows: every app and every comparison through the application layer.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from flipgate.session import Comparison, GateRequest, gate, read
from flipgate.tui.app import GateApp
from flipgate.tui.bindings import Keymap
from flipgate.tui.factory import make_app
from tests.conftest import write_run

FIXTURES = Path(__file__).parent / "fixtures"
CASES_WORKSPACE = FIXTURES / "cases"


class Building:
    """A stand-in for `flipgate.tui.collector.building` that says whether a call is inside it."""

    def __init__(self) -> None:
        self.depth = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1


def load_comparison(*runs: Path, **options: Any) -> Comparison:
    """The comparison `flipgate open` shows on `runs` (a workspace, or two runs) and `options`
    (`GateRequest.of`'s)."""
    return gate(read(GateRequest.of(runs, **options)))


def open_app(
    *runs: Path, theme: str = "dark", keymap: Keymap | None = None, **options: Any
) -> GateApp:
    """The app `flipgate open` starts on `runs` (a workspace, two runs, or a campaign) and
    `options`, left to read them in its worker."""
    request = GateRequest.of(runs, shape="pair_or_campaign", **options)
    return make_app(request, theme=theme, keymap=keymap)


async def settled(pilot: Pilot[Any]) -> None:
    """Wait until the app is still: every worker done, and the workers their answers start (a
    pushed screen's own, a form's edit then the review), and a pause on the screen shown that
    starts none.

    `pilot.pause()` alone waits until the process looks idle; on a loaded machine a starved app
    looks idle with a worker still running, so this waits on the workers themselves.
    """
    app = pilot.app
    for _ in range(100):  # a screen that kept starting workers would never settle
        await app.workers.wait_for_complete()
        screen = app.screen
        await pilot.pause()
        if not app.workers and app.screen is screen:
            return
    raise AssertionError(f"the app never settled: {len(app.workers)} workers on {app.screen}")


def keys(*pressed: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """A snapshot's `run_before`: wait for the app, then press `pressed` in turn, settling after
    each (snap_compare's own `press` does not wait for the workers a key starts)."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settled(pilot)
        for key in pressed:
            await pilot.press(key)
            await settled(pilot)

    return run_before


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


ScreenResult = TypeVar("ScreenResult")


class ScreenApp(App[None], Generic[ScreenResult]):
    """Pushes the screen a test gives it, over a blank default screen."""

    def __init__(self, make_screen: Callable[[], Screen[ScreenResult]]) -> None:
        super().__init__()
        self.make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self.make_screen())


AppResult = TypeVar("AppResult")


def on_top(app: App[AppResult]) -> Screen[object]:
    """The screen shown now. Read afresh after a key: mypy keeps what an earlier check of
    `app.screen` narrowed it to."""
    return app.screen


@pytest.fixture(scope="session")
def comparison() -> Comparison:
    return load_comparison(CASES_WORKSPACE)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A copy of the fixture workspace: a decision file records run paths relative to it."""
    target = tmp_path / "ws"
    shutil.copytree(CASES_WORKSPACE, target)
    return target


# --------------------------------------------------------------------------- an agent suite

HOSTILE_ARG = "[bold red]A-1[/bold red]\x1b[31m"
HOSTILE_TURN = (
    "[link=https://evil.example]click[/link] \x1b]8;;https://evil.example\x07x\x1b]8;;\x07"
)
LONG_RESULT = "\n".join(f"line {i}: order history entry" for i in range(1, 41))


def agent_turns(*, confirms: bool, amount: int = 180) -> list[dict[str, Any]]:
    """A refund conversation; without `confirms` the agent refunds without asking."""

    def call(name: str, call_id: str, **arguments: Any) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "name": name, "arguments": arguments}
            ]},
            {"role": "tool", "tool_call_id": call_id, "content": f"{name} done"},
        ]  # fmt: skip

    turns: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a support agent." + (" Confirm first." if confirms else "")},
        {"role": "user", "content": f"Refund order A-1, please. {HOSTILE_TURN}"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "lookup_order", "arguments": {"order_id": HOSTILE_ARG}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": LONG_RESULT},
    ]  # fmt: skip
    if confirms:
        turns += [
            {"role": "assistant", "content": f"I can refund ${amount}. Shall I go ahead?"},
            {"role": "user", "content": "Yes please."},
        ]
    return [*turns, *call("issue_refund", "c2", order_id="A-1", amount=amount),
            {"role": "assistant", "content": f"Done: ${amount} refunded."}]  # fmt: skip


def agent_rows(confirms: tuple[bool, ...], case: str) -> list[dict[str, Any]]:
    return [
        {
            "case": case,
            "rep": rep,
            "passed": {"confirmed_first": ok, "resolved": True},
            "reasons": {
                "confirmed_first": "ok" if ok else "refunded before the customer confirmed"
            },
            "output": json.dumps({"refund": 180, "confirmed": ok}),
            "messages": agent_turns(confirms=ok),
        }
        for rep, ok in enumerate(confirms)
    ]


@pytest.fixture(scope="session")
def agent_comparison(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    """Two red cases of a refund agent whose candidate skips the confirmation in reps 1 and 2."""
    root = tmp_path_factory.mktemp("agent")
    runs = []
    for arm, confirms in (("baseline", (True, True, True)), ("candidate", (True, False, False))):
        rows = agent_rows(confirms, "refund-001") + agent_rows(confirms, "refund-002")
        runs.append(write_run(root / arm, rows, key={"prompt": arm}))
    return load_comparison(*runs, change=("prompt",))
