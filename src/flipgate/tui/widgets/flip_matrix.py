"""The 2x2 flip matrix: baseline pass/fail down, candidate pass/fail across, `b` and `c` marked.

A cursor moves between the four cells; enter (or a click on the selected cell) asks the screen to
open the red cases of that cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive

from flipgate.core.vocab import FLIPS
from flipgate.present.sources import split_line
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import CELL_WORDS, FAIL, PASS, count, share
from flipgate.tui.widgets.panel import Panel

# (baseline row, candidate column) -> cell; row/column 0 is pass, 1 is fail.
GRID = (("both_pass", "pass_to_fail"), ("fail_to_pass", "both_fail"))
CELL_STYLE = {"both_pass": "pass", "both_fail": "fail", "pass_to_fail": "b", "fail_to_pass": "c"}
LABEL_WIDTH = 17
CELL_WIDTH = 19
WIDTH = LABEL_WIDTH + 2 * CELL_WIDTH + 4  # the panel's width: border and padding included
SHORT = 30  # terminal rows below which the cells lose the blank row under them (80x24 fits)


class FlipMatrix(Panel):
    TITLE = "flip matrix · paired cases"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("matrix")
    cursor: reactive[tuple[int, int]] = reactive((0, 1))  # start on `b`: what broke

    @dataclass
    class CellChosen(Message):
        cell: str

    @property
    def cell(self) -> str:
        row, column = self.cursor
        return GRID[row][column]

    @property
    def drill_filter(self) -> str:
        return self.cell

    def action_move(self, rows: int, columns: int) -> None:
        row, column = self.cursor[0] + rows, self.cursor[1] + columns
        if not (0 <= row <= 1 and 0 <= column <= 1):
            # Past the edge the arrow keeps its meaning on the screen: the next or previous panel.
            if rows + columns > 0:
                self.screen.focus_next()
            else:
                self.screen.focus_previous()
            return
        self.cursor = (row, column)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = (offset.y - 2) // self._stride if offset.y >= 2 else -1
        column = (offset.x - LABEL_WIDTH) // CELL_WIDTH if offset.x >= LABEL_WIDTH else -1
        if row in (0, 1) and column in (0, 1):
            if (row, column) == self.cursor:
                self.post_message(self.CellChosen(self.cell))
            self.cursor = (row, column)

    def render(self) -> RenderableType:
        result = self.comparison.result
        paired = result.paired
        lines = Text(end="")
        lines.append(" " * LABEL_WIDTH + "candidate\n", self.style("label"))
        lines.append(" " * LABEL_WIDTH)
        for word in (PASS, FAIL):
            lines.append(word.ljust(CELL_WIDTH), self.style("pass" if word == PASS else "fail"))
        lines.append("\n")
        for row, word in enumerate((PASS, FAIL)):
            head = ("baseline " if row == 0 else " " * 9) + word
            lines.append(head.ljust(LABEL_WIDTH), self.style("pass" if row == 0 else "fail"))
            for column in (0, 1):
                self._cell_text(lines, GRID[row][column], (row, column), name=True)
            lines.append("\n" + " " * LABEL_WIDTH)
            for column in (0, 1):
                self._cell_text(lines, GRID[row][column], (row, column), name=False)
            lines.append(
                "\n" + (" " * LABEL_WIDTH + " " * 2 * CELL_WIDTH + "\n") * (self._stride - 2)
            )
        lines.append(f"{count(paired)} paired cases counted", self.style("muted"))
        sources = self.comparison.result.sources
        if sources is not None and self.comparison.result.flipped:
            lines.append("\nwho flipped", self.style("label"))
            for direction in FLIPS:
                lines.append(
                    f"\n{split_line(sources, direction)}", self.style(CELL_STYLE[direction])
                )
        return lines

    @property
    def _stride(self) -> int:
        """Rows a cell takes: its name, its count, and a blank row where the terminal has room."""
        return 2 if self.app.size.height < SHORT else 3

    def _cell_text(self, lines: Text, cell: str, at: tuple[int, int], *, name: bool) -> None:
        n = self.comparison.result.cells[cell]
        text = (
            CELL_WORDS[cell] if name else f"{count(n)}  {share(n, self.comparison.result.paired)}"
        )
        style = self.style(CELL_STYLE[cell])
        if at == self.cursor and self.has_focus:
            style += self.style("cursor")
        lines.append(f" {text}".ljust(CELL_WIDTH - 1), style)
        lines.append(" ")
