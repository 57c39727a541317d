"""Every red case in one table: filters, sorting and a search by case id, then a drill-down.

`casefile` computes which rows are shown and in which order (vectorised on the polars frame); this
screen only turns keys into a `CaseQuery` and hands the result to the table.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Input, Static
from textual_fastdatatable import DataTable

from flipgate.present.casefile import COLUMNS, CaseQuery, choices, describe, red_table, select_cases
from flipgate.present.reasons import clusters_line
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.widgets.case_table import CaseTable, column_widths
from flipgate.tui.widgets.key_bar import KeyBar

SORT_WORDS = {key: label for label, _, key in COLUMNS}


class RedCasesScreen(Screen[None]):
    """Red cases of a comparison; `filter` names a starting filter (see `CaseQuery.from_filter`)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("red-cases")
    AUTO_FOCUS = "CaseTable"  # the search input only on `/`
    DEFAULT_CSS = """
    RedCasesScreen #red-header { height: auto; padding: 0 1; background: $boost; }
    RedCasesScreen #search { height: 1; border: none; padding: 0 1; }
    RedCasesScreen #search:focus { background: $boost; }
    """

    def __init__(self, comparison: Comparison, filter: str | None = None) -> None:
        super().__init__()
        self.comparison = comparison
        self.red = red_table(comparison)
        self.widths = column_widths(self.red)
        self.case_query = CaseQuery.from_filter(filter)

    def compose(self) -> ComposeResult:
        view = select_cases(self.red, self.case_query)
        yield Static(self._header(view.height), id="red-header")
        yield Input(placeholder="/ search case id", id="search")
        yield CaseTable(view, self.widths)
        yield KeyBar()

    @property
    def table(self) -> CaseTable:
        return self.query_one(CaseTable)

    def _header(self, shown: int) -> Text:
        """The count, the sort and any hint, set off by dots so that no two run together."""
        header = literal(describe(self.case_query, shown, self.red.height), "bold")
        reversed_ = " (reversed)" if self.case_query.descending else ""
        header.append(f" · sorted by {SORT_WORDS[self.case_query.sort]}{reversed_}", "dim")
        if shown == 0:
            header.append(" · nothing matches: x clears the filters, esc the search", "dim")
        if self.case_query.template is not None:
            header.append_text(self._template_flips(self.case_query.template))
        return header

    def _template_flips(self, template: str) -> Text:
        """What the template's clones did together, beside both readings of p."""
        clusters = self.comparison.result.clusters
        mine = next((t for t in clusters.templates if t.template == template), None)
        broke, fixed = (mine.broke, mine.fixed) if mine else (0, 0)
        line = Text(f"\n{broke} broke, {fixed} fixed here (net {broke - fixed:+})")
        if mine is not None and mine is clusters.concentrated:
            line.append(" ⚠ clones flip together", "bold")
        line.append(f" · {clusters_line(clusters)}", "dim")
        return line

    def _show(self, keep: str | None = None) -> None:
        """Show the cases of the current query, the cursor on `keep` when it is still shown."""
        view = select_cases(self.red, self.case_query)
        self.query_one("#red-header", Static).update(self._header(view.height))
        table = self.table
        table.show(view)
        row = table.row_of(keep) if keep is not None else None
        table.move_cursor(row=row if row is not None else 0)

    def _current_case(self) -> str | None:
        return self.table.case_at(self.table.cursor_row)

    def _requery(self, query: CaseQuery) -> None:
        keep = self._current_case()
        self.case_query = query
        self._show(keep)

    # --------------------------------------------------------------------- opening a case

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_case()

    def action_open_case(self) -> None:
        table = self.table
        case = table.case_at(table.cursor_row)
        if case is None:
            return
        cases = table.view["case"].to_list()
        self.app.push_screen(CaseScreen(self.comparison, case, cases), self._returned)

    def _returned(self, case: str | None) -> None:
        """Back from the drill-down: the cursor goes to the case shown last."""
        table = self.table
        row = table.row_of(case) if case is not None else None
        if row is not None:
            table.move_cursor(row=row)
        table.focus()

    # --------------------------------------------------------------------- search

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._requery(self.case_query.with_(search=event.value))

    @on(Input.Submitted, "#search")
    def _search_submitted(self) -> None:
        self.table.focus()

    def action_escape(self) -> None:
        search = self.query_one("#search", Input)
        if search.value:
            search.value = ""  # Input.Changed re-queries
            self.table.focus()
        elif search.has_focus:
            self.table.focus()
        else:
            self.dismiss()

    # --------------------------------------------------------------------- filters and sort

    def action_kind(self, kind: str) -> None:
        same = self.case_query.kind == kind
        self._requery(self.case_query.with_(kind=None if same else kind))

    def action_flag(self, name: str) -> None:
        self._requery(self.case_query.with_(**{name: not getattr(self.case_query, name)}))

    def action_cycle(self, name: str) -> None:
        """Step through the outcomes (worst first), rules or flip sources the red cases hold,
        then off."""
        column = {"outcome": "outcomes", "rule": "rules", "source": "source"}[name]
        values = (None, *choices(self.red, column))  # type: ignore[arg-type]
        current = getattr(self.case_query, name)
        following = values[(values.index(current) + 1) % len(values)] if current in values else None
        self._requery(self.case_query.with_(**{name: following}))

    def action_same_template(self) -> None:
        """Only the cases cloned from the template of the case under the cursor (again: off)."""
        if self.case_query.template is not None:
            self._requery(self.case_query.with_(template=None))
            return
        case = self._current_case()
        if case is None:
            return
        template = self.red.filter(self.red["case"] == case)["template"][0]
        if template is None:
            self.notify("this case has no template", timeout=2)
            return
        self._requery(self.case_query.with_(template=template))

    def action_clear_filters(self) -> None:
        self.query_one("#search", Input).value = ""
        self._requery(self.case_query.cleared())

    def action_sort(self, key: str) -> None:
        """Sort by `key`; the same key again reverses the order."""
        query = self.case_query
        descending = not query.descending if query.sort == key else False
        self._requery(query.with_(sort=key, descending=descending))

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.action_sort(COLUMNS[event.column_index][2])
