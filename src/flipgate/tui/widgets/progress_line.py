"""One line that says what a screen's worker is doing and how far it got; hidden when idle."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import ProgressBar, Static

from flipgate.tui.format import literal
from flipgate.tui.messages import Progress


class ProgressLine(Horizontal):
    DEFAULT_CSS = """
    ProgressLine { height: 1; padding: 0 1; display: none; }
    ProgressLine.-busy { display: block; }
    ProgressLine > Static { width: auto; margin-right: 2; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static()
        yield ProgressBar(total=None, show_eta=False)

    def show(self, progress: Progress) -> None:
        self.query_one(Static).update(literal(f"{progress.description} …"))
        self.query_one(ProgressBar).update(total=progress.steps, progress=progress.step)
        if not self.busy:
            self.add_class("-busy")
            self.screen.refresh_bindings()  # the screen's keys wait while it works

    def finish(self) -> None:
        self.remove_class("-busy")
        self.screen.refresh_bindings()

    @property
    def busy(self) -> bool:
        return self.has_class("-busy")


def waiting(screen: Screen[object], action: str) -> bool | None:
    """For a screen's `check_action`: its keys (but back) are shown dimmed and wait while it works.

    None: shown, disabled. The screen's worker finishing refreshes the bindings.
    """
    if action != "back" and any(line.busy for line in screen.query(ProgressLine)):
        return None
    return True
