"""The grid of every repetition's turns: a column per repetition under its arm, number and
verdict, a row per turn, the turn-number column fixed while the repetitions scroll sideways.

Each cell is its turn on one line, cut to the column: dim where it is the reference's turn,
and where it is not, the words the reference lacks marked (`Grid.changed_words`). Marks: `▸`
in the cell where its repetition first parts from the reference; in the turn column `◆` where
the arms part and `~` where an arm's own repetitions first part. Only the rows and columns on
screen are drawn, so a 200-turn case of twenty repetitions costs a screenful a frame.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from flipgate.present.repetitions import ROLE_SHORT, Grid, flat
from flipgate.tui.format import literal
from flipgate.tui.widgets.case_format import Palette

HEADER = 2  # lines: the repetition's arm and number, then its verdict
MIN_COLUMN = 22  # cells of a column when they do not all fit; they share the width when they do
MAX_COLUMN = 60
ARMS_PART = "◆"
OWN_PART = "~"
PARTS_HERE = "▸"
LEAD = 8  # characters a cell shows before a change it was moved along to
TURN = "turn"  # the turn column's heading
VERDICT = {True: "✓ pass", False: "✗ fail", None: "· no verdict"}


def layout(width: int, columns: int, fixed: int) -> tuple[int, int]:
    """How many columns are on screen at once in `width` cells, and the cells each takes (a
    separator's cell besides)."""
    room = max(1, width - fixed)
    shown = max(1, min(columns, room // (MIN_COLUMN + 1)))
    return shown, max(4, min(MAX_COLUMN, room // shown - 1))


class RepetitionGrid(Widget, can_focus=True):
    """`grid`'s rows on screen from `top`, its columns from `left`; one cell under the cursor."""

    DEFAULT_CSS = """
    RepetitionGrid { height: auto; max-height: 70%; }
    """

    class Moved(Message):
        """The cursor moved to another cell: the screen shows its turn whole."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.grid: Grid | None = None
        self.row = self.column = 0  # the cell under the cursor
        self.top = self.left = 0  # the first row and column on screen
        self._painted: dict[tuple[int, int, int], Strip] = {}  # (row, column, cells) -> cell
        self._palette: Palette | None = None

    def show(self, grid: Grid) -> None:
        """A new grid: the cursor on where the arms part, in the first candidate repetition
        that parts there (else the reference's first turn)."""
        self.grid = grid
        self._painted.clear()
        self.top = self.left = 0
        self.row = grid.first_rows["arms"] or 0
        self.column = grid.reference or 0
        if grid.first_rows["arms"] is not None:
            self.column = next(
                (
                    i
                    for i, rep in enumerate(grid.columns)
                    if rep.arm == "candidate" and grid.parts_from_reference[i] == self.row
                ),
                self.column,
            )
        self.move(0, 0)

    # --------------------------------------------------------------------- moving

    @property
    def fixed(self) -> int:
        """The turn column's cells: two marks, the widest label (or `turn`), a space."""
        widest = max((len(label) for label in self.grid.labels), default=1) if self.grid else 1
        return 2 + max(widest, len(TURN)) + 1

    def _shown(self) -> tuple[int, int]:
        count = len(self.grid.columns) if self.grid else 0
        return layout(self.size.width, count, self.fixed)

    @property
    def page(self) -> int:
        return max(1, self.size.height - HEADER)

    def move(self, rows: int, columns: int) -> None:
        """The cursor `rows` down and `columns` right, kept in the grid and on screen."""
        if self.grid is None or not self.grid.columns:
            return
        self.row = max(0, min(len(self.grid.cells) - 1, self.row + rows))
        self.column = max(0, min(len(self.grid.columns) - 1, self.column + columns))
        self.top = min(self.row, max(self.top, self.row - self.page + 1))
        shown, _ = self._shown()
        self.left = min(self.column, max(self.left, self.column - shown + 1))
        self.refresh()
        self.post_message(self.Moved())

    def move_to(self, row: int | None = None, column: int | None = None) -> None:
        self.move(
            0 if row is None else row - self.row, 0 if column is None else column - self.column
        )

    def on_resize(self) -> None:
        self.move(0, 0)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return HEADER + (len(self.grid.cells) if self.grid else 0)

    # --------------------------------------------------------------------- painting

    def restyle(self) -> None:
        """Another theme: every cell drawn again in its colours."""
        self._painted.clear()
        self._palette = None
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width, base = self.size.width, self.rich_style
        if self.grid is None:
            return Strip.blank(width, base)
        if self._palette is None:
            self._palette = Palette.of(self.app)
        palette = self._palette
        shown, cells = self._shown()
        columns = range(self.left, min(len(self.grid.columns), self.left + shown))
        row = self.top + y - HEADER
        if y < HEADER:
            fixed = Text(TURN.rjust(self.fixed - 1) + " " if y == 1 else "", style="bold")
            parts = [self._fit(self._heading(c, y, palette), cells) for c in columns]
        elif row < len(self.grid.cells):
            fixed = self._label(row, palette)
            parts = [self._painted_cell(row, c, cells, palette) for c in columns]
        else:
            return Strip.blank(width, base)
        segments = list(self._fit(fixed, self.fixed).apply_style(base))
        for column, part in zip(columns, parts, strict=True):
            segments.append(Segment("│", base + palette.muted))
            cursor = row == self.row and column == self.column
            segments.extend(part.apply_style(base + palette.cursor if cursor else base))
        return Strip(segments).adjust_cell_length(width, base)

    def _painted_cell(self, row: int, column: int, cells: int, palette: Palette) -> Strip:
        """A cell as painted, kept: moving the cursor paints the screen again, not its cells."""
        key = (row, column, cells)
        if key not in self._painted:
            self._painted[key] = self._fit(self._cell(row, column, cells, palette), cells)
        return self._painted[key]

    def _fit(self, text: Text, cells: int) -> Strip:
        text.truncate(cells, overflow="ellipsis", pad=True)
        return Strip(text.render(self.app.console), cells)

    def _heading(self, column: int, line: int, palette: Palette) -> Text:
        assert self.grid is not None
        rep = self.grid.columns[column]
        if line == 0:
            return Text(f"{rep.arm} rep {rep.rep}", style="bold")
        verdict = Text.assemble(
            (VERDICT[rep.passed], palette.good if rep.passed else palette.bad)
            if rep.passed is not None
            else (rep.status, palette.warn)
        )
        if column == self.grid.reference:
            verdict.append(" · reference", palette.muted)
        elif not rep.turns:
            verdict.append(" · no turns", palette.muted)
        return verdict

    def _label(self, row: int, palette: Palette) -> Text:
        assert self.grid is not None
        firsts = self.grid.first_rows
        arms = ARMS_PART if firsts["arms"] == row else " "
        own = OWN_PART if row in (firsts["baseline"], firsts["candidate"]) else " "
        out = Text.assemble((arms + own, palette.warn))
        label = self.grid.labels[row].rjust(self.fixed - 3) + " "
        out.append(label, "bold" if row == self.row else palette.muted)
        return out

    def _cell(self, row: int, column: int, cells: int, palette: Palette) -> Text:
        assert self.grid is not None
        turn = self.grid.cells[row][column]
        mark = PARTS_HERE if self.grid.parts_from_reference[column] == row else " "
        if turn is None:  # a gap: the repetition took no turn here
            return Text.assemble((mark, palette.warn), ("  ·", palette.muted))
        role = ROLE_SHORT.get(turn.role, turn.role)
        out = Text.assemble((mark, palette.warn), (f"{role} ", palette.muted))
        if not self.grid.differs(row, column):
            style = palette.muted if column != self.grid.reference else ""
            return out.append_text(literal(flat(turn)[: cells * 4], style))
        spans = self.grid.changed_words(row, column)
        # a change past the column's width is brought into it: the cell starts a little before
        room = cells - len(out)
        skip = max(0, spans[0][0] - LEAD) if spans and spans[0][0] > room - LEAD else 0
        if skip:
            out.append("…", palette.muted)
        prefix = len(out) - skip
        # cut before making it safe and marking it: a 5 MB turn is not marked whole to show 30 cells
        end = skip + cells * 4
        out.append_text(literal(flat(turn)[skip:end]))
        for start, stop in spans:
            if skip <= start < end:
                out.stylize(palette.added_words, prefix + start, prefix + min(stop, end))
        return out
