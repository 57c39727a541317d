"""The title bar: which two runs are compared. Run ids come from files, so they go through
`literal` (Textual's `Header` would read the title as markup)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from flipgate.tui.format import literal


class TitleBar(Widget):
    DEFAULT_CSS = """
    TitleBar { height: 1; padding: 0 1; }
    """

    def __init__(self, baseline: str, candidate: str, suite: str) -> None:
        super().__init__()
        self.runs = (baseline, candidate)
        self.suite = suite

    def render(self) -> RenderableType:
        baseline, candidate = self.runs
        text = Text("flipgate  ", "bold", end="")
        text.append_text(literal(baseline))
        text.append("  →  ")
        text.append_text(literal(candidate))
        text.append(f"   · {self.suite} suite")
        return text
