"""The loading screen: which step of reading and comparing the runs is under way, and, when the
input is bad, the file, line and field at fault with a key to quit."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from flipgate.core.errors import InputError
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import literal
from flipgate.tui.widgets.key_bar import KeyBar


def describe_error(error: BaseException, quit_key: str) -> Group:
    """The error as labelled rows (file, line, field, problem), long values indented under."""
    if isinstance(error, InputError):
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


class LoadingScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("loading")
    DEFAULT_CSS = """
    LoadingScreen { align: center middle; }
    LoadingScreen #box { width: 90; max-width: 100%; height: auto; padding: 1 2; }
    LoadingScreen #step { margin: 1 0; }
    LoadingScreen #error { display: none; }
    LoadingScreen.-failed #error { display: block; }
    LoadingScreen.-failed ProgressBar, LoadingScreen.-failed #step { display: none; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Static("flipgate · opening the runs", id="heading")
            yield Static("starting", id="step")
            with Center():
                yield ProgressBar(total=None, show_eta=False, id="progress")
            yield Static(id="error")
        yield KeyBar()

    def show_progress(self, step: int, steps: int, description: str) -> None:
        self.query_one("#step", Static).update(literal(f"{description} …"))
        self.query_one(ProgressBar).update(total=steps, progress=step)

    def show_error(self, error: BaseException) -> None:
        self.add_class("-failed")
        self.query_one("#heading", Static).update("flipgate · these runs cannot be opened")
        quit_key = shown_keys(self.app, "quit", first=True)
        self.query_one("#error", Static).update(describe_error(error, quit_key))
