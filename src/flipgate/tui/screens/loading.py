"""The loading screen: the runs being opened, which step of reading and comparing them is under
way and for how long, and, when the input is bad, the file, line and field at fault with a key
to quit. It is painted at once; the overview replaces it when the gate is done (at a million
cases, the gate's seconds), and the overview's keys pressed meanwhile are said not to work yet."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from flipgate.core.errors import InputError
from flipgate.present.verify import unverified_words
from flipgate.session import GateRequest
from flipgate.tui.bindings import KEY_BINDINGS, bindings_for, keymap_of, keys_of, shown_keys
from flipgate.tui.format import literal
from flipgate.tui.widgets.key_bar import KeyBar


def describe_error(error: BaseException, quit_key: str) -> Group:
    """The error as labelled rows (file, line, field, problem), long values indented under."""
    if isinstance(error, InputError):
        error = unverified_words(error)  # a signed file's failed check, in words
        rows: list[tuple[str, str]] = [("file", str(error.path))]
        if error.line is not None:
            rows.append(("line", str(error.line)))
        if error.field:
            rows.append(("field", error.field))
        rows.append(("problem", error.message))
    else:
        rows = [("unexpected", f"{type(error).__name__}: {error}")]
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in rows:
        table.add_row(label, literal(value))
    advice = Text(
        f"\nNothing was written. Fix the input and open it again; press {quit_key} to quit."
    )
    return Group(table, advice)


def opening(request: GateRequest) -> Table:
    """What is being opened, one labelled row a run: the baseline and the candidate, or each of
    a campaign's candidates (named, or counted past a few)."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    if not request.is_campaign:
        rows = [("baseline", str(request.baseline)), ("candidate", str(request.candidate))]
    else:
        names = [name or path.name for name, path in request.candidates]
        shown = ", ".join(names[:SHOWN_CANDIDATES])
        if len(names) > SHOWN_CANDIDATES:
            shown += f" and {len(names) - SHOWN_CANDIDATES:,} more"
        rows = [("incumbent", str(request.baseline)), ("candidates", shown)]
    for label, value in rows:
        table.add_row(label, literal(value))
    return table


SHOWN_CANDIDATES = 4


class LoadingScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("loading")
    DEFAULT_CSS = """
    LoadingScreen { align: center middle; }
    LoadingScreen #box { width: 90; max-width: 100%; height: auto; padding: 1 2; }
    LoadingScreen #runs { margin: 1 0; }
    LoadingScreen #step { margin: 1 0; }
    LoadingScreen #error { display: none; }
    LoadingScreen.-failed #error { display: block; }
    LoadingScreen.-failed ProgressBar, LoadingScreen.-failed #step { display: none; }
    LoadingScreen.-failed #waiting { display: none; }
    """

    def __init__(self, request: GateRequest) -> None:
        super().__init__()
        self.request = request
        self.step, self.step_began = "starting", time.monotonic()

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("flipgate · opening the runs", id="heading")
            yield Static(opening(self.request), id="runs")
            yield Static("starting …", id="step")
            with Center():
                yield ProgressBar(total=None, show_eta=False, id="progress")
            yield Static(id="waiting")
            yield Static(id="error")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#waiting", Static).update(self.waiting())
        self.set_interval(1, self._tick)  # a long step (the gate at a million cases) still moves

    def waiting(self) -> str:
        first = "the overview" if not self.request.is_campaign else "the candidates"
        return (
            f"{first.capitalize()} opens when the runs are read and gated; its keys work from "
            f"then. {shown_keys(self.app, 'quit', first=True)} quits."
        )

    def show_progress(self, step: int, steps: int, description: str) -> None:
        self.step, self.step_began = description, time.monotonic()
        self._tick()
        self.query_one(ProgressBar).update(total=steps, progress=step)

    def _tick(self) -> None:
        seconds = int(time.monotonic() - self.step_began)
        took = f" {seconds} s" if seconds else ""
        self.query_one("#step", Static).update(literal(f"{self.step} …{took}"))

    def on_key(self, event: events.Key) -> None:
        """A key of the screen to come, pressed too early: said, rather than nothing."""
        if event.key in _later_keys(self):
            event.stop()
            self.notify(
                "Not yet: the runs are still being read and gated. " + self.waiting(),
                title="loading",
                markup=False,
            )

    def show_error(self, error: BaseException) -> None:
        self.query_one("#progress", ProgressBar).display = False
        self.add_class("-failed")
        self.query_one("#heading", Static).update("flipgate · these runs cannot be opened")
        quit_key = shown_keys(self.app, "quit", first=True)
        self.query_one("#error", Static).update(describe_error(error, quit_key))


def _later_keys(screen: LoadingScreen) -> frozenset[str]:
    """The keys of the screens that follow loading (the overview's and the candidates'), as the
    user's keymap has them."""
    keymap = keymap_of(screen.app)
    later = (b for b in KEY_BINDINGS if b.screen in ("overview", "campaign", "candidates"))
    return frozenset(key for b in later for key in keys_of(b, keymap).split(","))
