"""Model text with emoji whose width terminals disagree on keeps the borders beside it in place
(issue 29 item 10): two panels side by side, each line measured as Rich lays it out and as a
terminal that measures each character does (tmux 3.3: a skin tone is two cells more, a heart
with VS16 one fewer, than Rich's joined emoji)."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from flipgate.tui.format import literal

MODEL_TEXT = (
    "thumbs 👍🏽 up and 👋🏿 waved\n"
    "a family 👨‍👩‍👧 in one glyph\n"
    "a heart ❤️ and a warning ⚠️ sign\n"
    "plain text, for the ruler"
)


def terminal_width(text: str) -> int:
    """The cells a terminal that measures each character on its own moves across for `text`
    (wcwidth's rule: wide and full-width characters two, marks and format characters none)."""
    width = 0
    for char in text:
        if unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


class TwoPanels(App[None]):
    CSS = "Static { width: 1fr; height: auto; border: round $primary; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static(literal(MODEL_TEXT, lines=True), id="baseline")
            yield Static(literal("the same, without emoji", lines=True), id="candidate")


async def test_each_line_of_a_panel_is_as_wide_in_the_terminal_as_rich_lays_it_out() -> None:
    app = TwoPanels()
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        for panel in app.query(Static):
            for y in range(panel.size.height):
                line = panel.render_line(y)  # padded to the panel's width by Rich's measure
                assert terminal_width(line.text) == line.cell_length, (panel.id, line.text)
        # nothing lost: each modifier is there, as its escape
        shown = str(app.query_one("#baseline", Static).render())
        assert "👍\\U0001f3fd" in shown and "❤\\ufe0f" in shown and "👨\\u200d👩" in shown


@pytest.mark.parametrize("size", [(100, 12), (60, 12)], ids=["100x12", "60x12"])
def test_the_panels_borders_stay_in_line(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(TwoPanels(), terminal_size=size)
