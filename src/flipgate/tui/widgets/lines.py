"""Rows of text in one or two columns, wrapped to the width and painted only where visible.

A stored output may be 240 KB and a trajectory 200 turns: a `Static` holding them wraps and
renders every line on each refresh (seconds), and textual-diff-view builds the whole diff up
front (16 s and more for a 240 KB JSON output, measured: bench/bench_diff_widget.py). This widget
keeps the rows as `Text`, counts the screen lines each row takes from its plain text (one pass of
`str.rfind` per screen line), and cuts a row into styled pieces only when the compositor asks for
one of its lines (`render_line`), so a frame costs the lines on screen. In two columns a row is as
tall as its taller side, so both sides of a row start on the same screen line. Counting 100,000
rows' lines is itself too long for the event loop: a worker may count them (`measure`) and hand
the count in with the rows, and a row replaced is counted alone.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from rich.cells import cell_len, chop_cells
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

# One cell per column: a Text, or a str already made safe (`present.text.safe`) that becomes a
# Text only when painted (an output's 10,000 lines need not all be built); None leaves it empty.
Row = Sequence[Text | str | None]
GUTTER = " │ "
CURSOR_BAR = "▌"  # marks the rows under the cursor where the theme's background cannot (mono)


def breaks(line: str, width: int) -> list[int]:
    """Where one line (no newline in it) is cut to fit `width` cells: after the last space of
    each stretch, or at the width in a word longer than half of it. Every character stays."""
    if len(line) <= width and (line.isascii() or cell_len(line) <= width):
        return []
    if not line.isascii():
        return list(accumulate(len(chunk) for chunk in chop_cells(line, width)))[:-1]
    offsets, at = [], 0
    while len(line) - at > width:
        space = line.rfind(" ", at + width // 2, at + width)
        at = space + 1 if space >= 0 else at + width
        offsets.append(at)
    return offsets


def screen_lines(cell: Text | str, width: int) -> int:
    plain = cell if isinstance(cell, str) else cell.plain
    return sum(len(breaks(line, width)) + 1 for line in plain.split("\n"))


def one_line_width(row: Row) -> int | None:
    """The cells of the row's widest side when it is one line of ASCII text (most rows of an
    output are), so that its height at any width is a comparison; None for any other row."""
    widest = 0
    for cell in row:
        if cell is None:
            continue
        plain = cell if isinstance(cell, str) else cell.plain
        if "\n" in plain or not plain.isascii():
            return None
        widest = max(widest, len(plain))
    return widest


def column_width(width: int, columns: int, cursor: bool) -> int:
    """The cells one column gets in a view `width` cells wide (a bar's cell kept for a cursor)."""
    width -= len(CURSOR_BAR) if cursor else 0
    if columns == 1:
        return max(1, width)
    return max(1, (width - len(GUTTER) * (columns - 1)) // columns)


def row_height(row: Row, widest: int | None, width: int) -> int:
    """The screen lines `row` takes at a column `width` (`widest`: its `one_line_width`)."""
    if widest is not None and widest <= width:
        return 1
    return max((screen_lines(cell, width) for cell in row if cell is not None), default=1)


@dataclass(frozen=True)
class Measured:
    """Rows counted for a view `width` cells wide: each row's `one_line_width` and height."""

    width: int
    widths: list[int | None]
    heights: list[int]


def measure(
    rows: Sequence[Row],
    width: int,
    *,
    columns: int = 1,
    cursor: bool = False,
    widths: list[int | None] | None = None,
) -> Measured:
    """What `LinesView` counts before it paints `rows` at `width` (`widths`: their
    `one_line_width`s, when known): done in a worker for many rows, then handed to `show`."""
    widths = [one_line_width(row) for row in rows] if widths is None else widths
    inner = column_width(width, columns, cursor)
    return Measured(
        width, widths, [row_height(r, w, inner) for r, w in zip(rows, widths, strict=True)]
    )


def fold(cell: Text | str, width: int) -> list[Text]:
    """`cell` cut at its newlines and at `breaks`, each piece keeping its styles."""
    text = Text(cell) if isinstance(cell, str) else cell
    lines = text.split("\n", allow_blank=True) if "\n" in text.plain else [text]
    pieces: list[Text] = []
    for line in lines:
        offsets = breaks(line.plain, width)
        pieces.extend(line.divide(offsets) if offsets else [line])
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
        self._tops: list[int] = [0]  # the screen line each row starts on, and the total
        self._widths: list[int | None] = []  # per row, `one_line_width`
        self._heights: list[int] = []  # per row, its screen lines at `_width`
        self._counted: dict[int, Measured] = {}  # the rows counted at each width, by width
        self._folded: dict[int, list[list[Text]]] = {}  # rows cut into pieces, as painted

    def show(
        self,
        rows: Sequence[Row],
        *,
        columns: int = 1,
        cursor: int | None = None,
        cursor_style: Style | None = None,
        bar_style: Style | None = None,
        measured: Sequence[Measured] = (),
    ) -> None:
        """Paint `rows`; `measured`: counted already (`measure`) at the widths the view may take
        (the layout tries a view without its container's scrollbar first, then with it)."""
        self._rows, self._columns, self._cursor = list(rows), columns, cursor
        self._has_cursor = cursor is not None
        self._cursor_style = cursor_style or self._cursor_style
        self._bar_style = bar_style or self._bar_style
        self._width = -1
        self._counted = {m.width: m for m in measured}
        self._widths = (
            measured[0].widths if measured else [one_line_width(row) for row in self._rows]
        )
        self.refresh(layout=True)

    def replace_row(self, index: int, row: Row) -> None:
        """One row changed (a turn unfolded, a case ticked): a row that was and stays one line
        is only painted again; any other makes the heights be counted again."""
        widest = one_line_width(row)
        counted = self._width >= 0
        self._rows[index] = row
        self._widths[index] = widest
        self._folded.pop(index, None)
        if not counted:
            self._counted = {}
            self.refresh(layout=True)
            return
        height = row_height(row, widest, self._column_width(self._width))
        if height == self._heights[index]:
            self.refresh()
            return
        self._heights[index] = height
        self._tops = [0, *accumulate(self._heights)]
        self._counted = {self._width: Measured(self._width, self._widths, self._heights)}
        self.refresh(layout=True)

    def move_cursor(self, cursor: int | None) -> None:
        self._cursor = cursor
        self.refresh()

    def row_top(self, index: int) -> int:
        """The screen line (within this widget) row `index` starts on."""
        self._layout(self._width if self._width >= 0 else self.size.width)
        return self._tops[min(index, len(self._tops) - 1)]

    def row_at(self, y: int) -> int:
        """The row painted on screen line `y` (within this widget)."""
        self._layout(self._width if self._width >= 0 else self.size.width)
        return max(0, min(len(self._rows) - 1, bisect_right(self._tops, y) - 1))

    def row_height(self, index: int) -> int:
        return self.row_top(index + 1) - self.row_top(index)

    # --------------------------------------------------------------------- layout and painting

    def _column_width(self, width: int) -> int:
        return column_width(width, self._columns, self._has_cursor)

    def _take(self, measured: Measured) -> None:
        self._width, self._heights = measured.width, measured.heights
        self._tops = [0, *accumulate(self._heights)]
        self._folded = {}

    def _layout(self, width: int) -> None:
        if width == self._width or width <= 0:
            return
        if width not in self._counted:
            columns, cursor, widths = self._columns, self._has_cursor, self._widths
            counted = measure(self._rows, width, columns=columns, cursor=cursor, widths=widths)
            self._counted[width] = counted
        self._take(self._counted[width])

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
        if index not in self._folded:
            cells = self._rows[index]
            self._folded[index] = [fold(c, column_width) if c is not None else [] for c in cells]
        segments: list[Segment] = []
        if self._has_cursor:
            bar = CURSOR_BAR if index == self._cursor else " "
            segments.append(Segment(bar, base + self._bar_style))
        console = self.app.console
        for column, lines in enumerate(self._folded[index]):
            if column:
                segments.append(Segment(GUTTER, style + Style(dim=True)))
            piece = lines[offset] if offset < len(lines) else Text("")
            cell = Strip(piece.render(console), piece.cell_len).apply_style(style)
            segments.extend(cell.extend_cell_length(column_width, style))
        return Strip(segments).adjust_cell_length(width, base)
