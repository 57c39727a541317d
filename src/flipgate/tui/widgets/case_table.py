"""The case table: a polars frame shown through textual-fastdatatable, one row per case listed.

The stock DataTable builds a row object per row and takes seconds to paint 100,000 of them; this one
reads cells from the frame only for the rows on screen. Markup is off: case ids and templates are
untrusted and were made visible (control pictures) by `casefile.red_table`. Colour is added here,
per visible cell, as `Text` objects, and never carries meaning alone (the words are in the cell).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import polars as pl
from rich.text import Text
from textual.coordinate import Coordinate
from textual_fastdatatable import DataTable
from textual_fastdatatable.backend import PolarsBackend

from flipgate.present.casefile import ABSENT, COLUMNS
from flipgate.tui.widgets.case_format import Palette, rep_pattern

Column = tuple[str, str, str]  # label, column of the frame, sort key (`casefile.COLUMNS`)
# the direction's longest: `unpaired: cand not finished`, `unpaired: cand reps missing`
MAX_WIDTH = {"case_shown": 28, "template_shown": 24, "direction": 27}
# A column that says nothing for these cases: the counts of wrong decisions on a pass/fail suite,
# the cost change where no run records a cost.
SAYS_NOTHING = {"base_wrong": "base_wrong", "cand_wrong": "cand_wrong", "cost_shown": "cost_delta"}
ASCENDING, DESCENDING = " ▲", " ▼"


def shown_columns(table: pl.DataFrame) -> tuple[Column, ...]:
    """The columns of `casefile.COLUMNS` worth showing for `table`'s cases."""
    silent = {
        shown for shown, raw in SAYS_NOTHING.items() if not (table[raw].fill_null(0) != 0).any()
    }
    return tuple(column for column in COLUMNS if column[1] not in silent)


def column_widths(table: pl.DataFrame, columns: Sequence[Column]) -> list[int | None]:
    """Widths fitted to every case, so that filtering never makes the columns jump; room for the
    sort arrow beside each label."""
    widths: list[int | None] = []
    for label, column, _ in columns:
        lengths = table[column].cast(pl.String).fill_null(ABSENT).str.len_chars()
        longest = int(lengths.max() or 0) if len(lengths) else 0  # type: ignore[arg-type]
        width = max(len(label) + len(ASCENDING), longest)
        widths.append(min(width, MAX_WIDTH.get(column, width)))
    return widths


class FittedBackend(PolarsBackend):
    """The rows of a frame whose columns' widths are known: the table asks its backend for the
    widest cell of every column each time the rows change, which reads every row (4.8 s for a
    million, on the event loop, at each keystroke of a search); these widths fit every case."""

    def __init__(self, frame: pl.DataFrame, widths: Sequence[int | None]) -> None:
        super().__init__(frame)
        self.render_markup = False
        self.fitted = [width or 0 for width in widths]

    @property
    def column_content_widths(self) -> list[int]:
        return self.fitted


class CaseTable(DataTable):
    """The visible red cases; `view` is the frame behind the rows, in their order."""

    DEFAULT_CSS = """
    CaseTable { height: 1fr; max-height: 100%; }
    """

    def __init__(
        self,
        view: pl.DataFrame,
        columns: Sequence[Column],
        widths: list[int | None],
        *,
        id: str | None = None,
    ) -> None:
        self.shown = [column for _, column, _ in columns]
        self.labels = [label for label, _, _ in columns]
        self.widths = widths
        super().__init__(
            backend=FittedBackend(view.select(self.shown), widths),
            column_labels=list(self.labels),
            column_widths=widths,
            cursor_type="row",
            render_markup=False,
            null_rep=ABSENT,
            zebra_stripes=True,
            id=id,
        )
        self.view = view
        self._palette: Palette | None = None

    @property
    def palette(self) -> Palette:
        if self._palette is None:
            self._palette = Palette.of(self.app)
        return self._palette

    def notify_style_update(self) -> None:
        self._palette = None  # the theme may have changed: its colours are read again
        super().notify_style_update()

    def show(self, view: pl.DataFrame) -> None:
        """Put `view`'s rows in place of the current ones, in one paint.

        textual-fastdatatable has no public way to replace its data (it suggests a new table);
        remounting costs three paints of every visible cell (the old table losing focus, the new
        one before and after taking it), so this swaps the backend as the table's own
        `remove_row` updates itself. The columns and their widths stay: they fit every red case.
        """
        self.view = view
        self.backend = FittedBackend(view.select(self.shown), self.widths)
        self._update_count += 1
        self._require_update_dimensions = True
        self.cursor_coordinate = self.cursor_coordinate  # clamped to the new rows
        self.refresh(layout=True)
        self.check_idle()

    def refit(self, widths: list[int | None]) -> None:
        """New widths (every case listed, past the cases to review), shown with the next rows
        (`show`); the columns are made anew, their sort arrow with them (`mark_sort`)."""
        self.widths = widths
        self._column_widths = list(widths)
        self._ordered_columns = None

    def mark_sort(self, column: str | None, *, descending: bool) -> None:
        """The arrow beside the label of the column the rows are sorted by (None: no column)."""
        for i, table_column in enumerate(self.ordered_columns):
            arrow = (DESCENDING if descending else ASCENDING) if self.shown[i] == column else ""
            table_column.label = Text(self.labels[i] + arrow)
        self.refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter is the screen's (`red-open`, shown in the footer as Open): the table's own
        enter (select, hidden from the footer) would take the key and hide Open. A click on a
        row still selects it."""
        return action != "select_cursor"

    def action_cursor_right(self, select: bool = False) -> None:
        """→ scrolls to the next column's left edge: a cell at a time, the ledger's state sat
        some forty presses off an 80-column screen."""
        ahead = (edge for edge in self.column_edges() if edge > self.scroll_x)
        self.scroll_to(x=min(next(ahead, self.max_scroll_x), self.max_scroll_x), animate=False)

    def action_cursor_left(self, select: bool = False) -> None:
        """← scrolls back to the previous column's left edge."""
        behind = [edge for edge in self.column_edges() if edge < self.scroll_x]
        self.scroll_to(x=behind[-1] if behind else 0, animate=False)

    def column_edges(self) -> list[int]:
        """Where each column starts, in cells from the left, as the table is scrolled."""
        return [0, *accumulate(column.render_width for column in self.ordered_columns)][:-1]

    def off_screen(self) -> list[str]:
        """The labels of the columns that do not fit, at the table's left end."""
        edges = [*self.column_edges(), self.virtual_size.width]
        width = self.scrollable_content_region.width
        return [label for label, end in zip(self.labels, edges[1:], strict=True) if end > width]

    def case_at(self, row: int) -> str | None:
        return str(self.view["case"][row]) if 0 <= row < self.view.height else None

    def row_of(self, case: str) -> int | None:
        index = self.view["case"].index_of(case)
        return None if index is None else int(index)

    # Styling happens where the table asks for cell values, i.e. only for rows being painted; the
    # colour comes from the row's codes (`kind`, `worst_code`), never from the words shown.
    def get_cell_at(self, coordinate: Coordinate) -> Any:
        value = super().get_cell_at(coordinate)
        return self._styled(coordinate.row, coordinate.column, value)

    def get_row_at(self, row_index: int) -> list[Any]:
        return [self._styled(row_index, i, v) for i, v in enumerate(super().get_row_at(row_index))]

    def _styled(self, row: int, column: int, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        name = self.shown[column]
        palette = self.palette
        if name in ("base_pattern", "cand_pattern"):
            return rep_pattern(value, palette)
        if name == "direction":
            return Text(value, style=palette.direction(self.view["kind"][row]))
        if name == "worst_shown" and (worst := self.view["worst_code"][row]) is not None:
            return Text(value, style=palette.outcome(worst))
        if name == "safety_shown" and value:
            return Text(value, style=palette.warn)
        if name == "cost_shown":  # a signed number: right-aligned, as the counts beside it
            return Text(value, justify="right")
        return value
