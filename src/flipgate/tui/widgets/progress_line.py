"""What a screen's worker is doing, which step of how many, and a pulse; hidden when idle."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.widgets import ProgressBar, Static

from flipgate.tui.format import literal
from flipgate.tui.messages import Progress


class ProgressLine(Vertical):
    DEFAULT_CSS = """
    ProgressLine { height: auto; padding: 0 1; display: none; }
    ProgressLine.-busy { display: block; }
    ProgressLine > Static { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Static()
        yield ProgressBar(total=None, show_eta=False, show_percentage=False)

    def show(self, progress: Progress) -> None:
        # The steps are few and uneven (one may take seconds): say which, and pulse meanwhile.
        where = f"{progress.description} … (step {progress.step + 1} of {progress.steps})"
        self.query_one(Static).update(literal(where))
        if not self.busy:
            self.add_class("-busy")
            self.screen.refresh_bindings()  # the screen's keys wait while it works

    def finish(self) -> None:
        self.remove_class("-busy")
        self.screen.refresh_bindings()

    @property
    def busy(self) -> bool:
        return self.has_class("-busy")


def waiting(screen: DOMNode, action: str) -> bool | None:
    """For a screen's `check_action`: its keys (but back) are shown dimmed and wait while it works.

    None: shown, disabled. The screen's worker finishing refreshes the bindings.
    """
    if action != "back" and any(line.busy for line in screen.query(ProgressLine)):
        return None
    return True
