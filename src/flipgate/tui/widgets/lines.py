"""Rows of text in one or two columns, wrapped to the width and painted only where visible.

A stored output may be 240 KB and a trajectory 200 turns: a `Static` holding them wraps and
renders every line on each refresh (seconds), and textual-diff-view builds the whole diff up
front (16 s for a 240 KB JSON output, measured: see bench/README.md). This widget keeps the rows
as `Text`, folds each into screen lines once per width (a slice per line for ASCII text), and
renders a line only when the compositor asks for it (`render_line`), so the cost of a frame is
the lines on screen. In two columns a row is as tall as its taller side, so both sides of a row
start on the same screen line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

Row = Sequence[Text | None]  # one Text per column; None leaves the column empty on this row
GUTTER = " │ "
CURSOR_BAR = "▌"  # marks the rows under the cursor where the theme's background cannot (mono)


def fold(text: Text, width: int) -> list[Text]:
    """`text` cut into pieces at most `width` cells wide: at its newlines, then after the last
    space of each stretch (or, in a word longer than half the width, at the width). Every
    character stays, in order: nothing is trimmed or moved."""
    pieces: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        if (len(plain) if plain.isascii() else cell_len(plain)) <= width:
            pieces.append(line)
            continue
        if plain.isascii():
            offsets, at = [], 0
            while len(plain) - at > width:
                space = plain.rfind(" ", at + width // 2, at + width)
                at = space + 1 if space >= 0 else at + width
                offsets.append(at)
        else:
            offsets = list(accumulate(len(chunk) for chunk in chop_cells(plain, width)))[:-1]
        pieces.extend(line.divide(offsets))
    return pieces or [Text("")]


class LinesView(Widget):
    """`rows` of one or two columns; `cursor` (a row index) is drawn highlighted, with a bar in
    the left margin that a view with a cursor keeps for it."""

    DEFAULT_CSS = """
    LinesView { height: auto; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Row] = []
        self._columns = 1
        self._cursor: int | None = None
        self._has_cursor = False
        self._cursor_style = Style(reverse=True)
        self._bar_style = Style(bold=True)
        self._width = -1
        self._folded: list[list[list[Text]]] = []  # per row, per column: its screen lines
        self._tops: list[int] = [0]  # the screen line each row starts on, and the total

    def show(
        self,
        rows: Sequence[Row],
        *,
        columns: int = 1,
        cursor: int | None = None,
        cursor_style: Style | None = None,
        bar_style: Style | None = None,
    ) -> None:
        self._rows, self._columns, self._cursor = list(rows), columns, cursor
        self._has_cursor = cursor is not None
        self._cursor_style = cursor_style or self._cursor_style
        self._bar_style = bar_style or self._bar_style
        self._width = -1
        self.refresh(layout=True)

    def replace_row(self, index: int, row: Row) -> None:
        """One row changed (a turn unfolded): refold only it."""
        self._rows[index] = row
        if self._width >= 0:
            self._folded[index] = self._fold_row(row)
            self._tops = [0, *accumulate(self._height(r) for r in self._folded)]
        self.refresh(layout=True)

    def move_cursor(self, cursor: int | None) -> None:
        self._cursor = cursor
        self.refresh()

    def row_top(self, index: int) -> int:
        """The screen line (within this widget) row `index` starts on."""
        self._layout(self._width if self._width >= 0 else self.size.width)
        return self._tops[min(index, len(self._tops) - 1)]

    def row_height(self, index: int) -> int:
        return self.row_top(index + 1) - self.row_top(index)

    # --------------------------------------------------------------------- layout and painting

    def _column_width(self, width: int) -> int:
        width -= len(CURSOR_BAR) if self._has_cursor else 0
        if self._columns == 1:
            return max(1, width)
        return max(1, (width - len(GUTTER) * (self._columns - 1)) // self._columns)

    def _fold_row(self, row: Row) -> list[list[Text]]:
        width = self._column_width(self._width)
        return [fold(cell, width) if cell is not None else [] for cell in row]

    @staticmethod
    def _height(folded: list[list[Text]]) -> int:
        return max((len(lines) for lines in folded), default=0) or 1

    def _layout(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        self._width = width
        self._folded = [self._fold_row(row) for row in self._rows]
        self._tops = [0, *accumulate(self._height(r) for r in self._folded)]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._layout(width)
        return self._tops[-1]

    def on_resize(self) -> None:
        self._layout(self.size.width)

    def render_line(self, y: int) -> Strip:
        self._layout(self.size.width)
        width = self.size.width
        base = self.rich_style
        if y >= self._tops[-1]:
            return Strip.blank(width, base)
        index = bisect_right(self._tops, y) - 1
        offset = y - self._tops[index]
        style = base + self._cursor_style if index == self._cursor else base
        column_width = self._column_width(width)
        segments: list[Segment] = []
        if self._has_cursor:
            bar = CURSOR_BAR if index == self._cursor else " "
            segments.append(Segment(bar, base + self._bar_style))
        console = self.app.console
        for column, lines in enumerate(self._folded[index]):
            if column:
                segments.append(Segment(GUTTER, style + Style(dim=True)))
            piece = lines[offset] if offset < len(lines) else Text("")
            cells = Strip(piece.render(console), piece.cell_len).apply_style(style)
            segments.extend(cells.extend_cell_length(column_width, style))
        return Strip(segments).adjust_cell_length(width, base)
