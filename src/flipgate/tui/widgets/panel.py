"""The base of every overview panel: a focusable box that renders Rich text from the comparison.

Panels render on every refresh (no cached `Static` content), so a theme switch, which changes the
component-class styles below, recolours them without rebuilding the screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from flipgate.session import Comparison

SHORT = 30  # rows: below this the verdict and the next step say their gist, a line each

# Named styles each theme file sets, e.g. `Panel > .panel--pass { color: green; }`.
STYLE_NAMES = (
    "pass",
    "fail",
    "b",
    "c",
    "muted",
    "label",
    "heading",
    "moved",
    "warn",
    "cursor",
    "false_negative",
    "false_positive",
    "inconclusive",
    "mirror",
    "agreement",
)


class Panel(Widget):
    """A bordered, focusable box showing one part of the gate result."""

    can_focus = True
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"panel--{name}" for name in STYLE_NAMES}
    DEFAULT_CSS = """
    Panel {
        height: auto;
        padding: 0 1;
        border: round $panel-lighten-2;
    }
    """
    TITLE = ""

    def __init__(self, comparison: Comparison, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="panel")
        self.comparison = comparison
        self.border_title = self.TITLE

    @property
    def drill_filter(self) -> str | None:
        """The red-case filter that enter on this panel opens (None: every red case)."""
        return None

    def style(self, name: str) -> Style:
        """The theme's style for `name`; the empty name is the plain style."""
        if not name:
            return Style()
        return self.get_component_rich_style(f"panel--{name}", partial=True)

    @property
    def short(self) -> bool:
        """A short terminal (80x24): the panels that lead say their gist, so the flip matrix
        shows without scrolling."""
        return self.app.size.height < SHORT

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


def one_line(text: Text) -> Text:
    """`text` kept to one line, cut with an ellipsis: its gist on a short terminal."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text
