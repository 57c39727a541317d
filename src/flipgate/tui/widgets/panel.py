"""The base of every overview panel: a focusable box that renders Rich text from the comparison.

Panels render on every refresh (no cached `Static` content), so a theme switch, which changes the
component-class styles below, recolours them without rebuilding the screen.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.widget import Widget

from flipgate.session import Comparison

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

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()
