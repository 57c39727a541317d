"""The case list: every case to review (red in either arm, flipped or unpaired; `a` widens it to
every case) in one table, with filters, sorting and a search by case id, then a drill-down.

`casefile` makes the table and `case_query` computes which rows are shown and in which order
(vectorised on the polars frame); this screen only turns keys into a `CaseQuery` and hands the
result to the table. The lists themselves (a row per case to review, and per case) take seconds
at a million cases: past `BIG_COMPARISON` cases they are built in a worker, the header saying
so, the list of every case only on the first `a`, as is the search of the outputs and reasons;
there a filter, a sort and each key of a search by case id (tenths of a second on a million rows)
are applied in a worker too, so that the screen never waits on them. The cases whose arms diverge
(`d`) are found once for the list shown, on the first ask, in a worker with progress: it compares
their repetitions' outputs and trajectories (at a million cases, those to review, not the
million), and `d` again stops it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import polars as pl
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static
from textual.worker import get_current_worker
from textual_fastdatatable import DataTable

from flipgate.core.plural import plural
from flipgate.present.case_query import CaseQuery, choices, describe, select_cases
from flipgate.present.casefile import COLUMNS, failures_by_case, red_table
from flipgate.present.divergence import CHUNK, diverged
from flipgate.present.glossary import CASE_LIST_TERMS
from flipgate.present.reasons.warnings import clusters_line
from flipgate.present.search import cases_holding
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.collector import building
from flipgate.tui.format import count, literal
from flipgate.tui.messages import BIG_COMPARISON, Progress, post_unless_cancelled
from flipgate.tui.reach import Focused, Shown
from flipgate.tui.screens.case import push_case
from flipgate.tui.widgets.case_table import CaseTable, Column, column_widths, shown_columns
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine

SORT_WORDS = {key: label for label, _, key in COLUMNS}
# a filter stepped through (`cycle`) -> the table's column of its values
CYCLED = {"outcome": "outcomes", "rule": "rules", "source": "source", "state": "state"}


@dataclass(frozen=True)
class CaseLists:
    """The rows of the table: the cases to review and every case (None until built: a big
    comparison's, on the first `a`), and the columns both fill, fitted to the lists built;
    `failures` (`casefile.failures_by_case`) is kept for the list of every case."""

    red: pl.DataFrame
    every: pl.DataFrame | None
    columns: tuple[Column, ...]
    widths: list[int | None]
    failures: pl.DataFrame

    @classmethod
    def of(cls, comparison: Comparison, *, every: bool = True) -> CaseLists:
        """The cases to review and (`every`) every case: at a million cases the list of every
        case is two thirds of the time, which the screen spends only when `a` asks for it."""
        failures = failures_by_case(comparison)
        red = red_table(comparison, failures=failures)
        columns = shown_columns(comparison.cases)  # the raw columns it reads are the cases'
        lists = cls(red, None, columns, column_widths(red, columns), failures)
        return lists.widened(comparison) if every else lists

    def widened(self, comparison: Comparison) -> CaseLists:
        """With every case listed, the widths fitted to them (they hold the cases to review)."""
        every = red_table(comparison, every=True, failures=self.failures)
        return replace(self, every=every, widths=column_widths(every, self.columns))


class Stopped(Exception):
    """The search for the diverging cases was cancelled."""


class RedCasesScreen(Screen[None]):
    """The cases to review of a comparison; `filter` names a starting filter (see
    `CaseQuery.from_filter`)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("red-cases")
    TERMS = CASE_LIST_TERMS
    AUTO_FOCUS = "CaseTable"  # the search input only on `/`
    DEFAULT_CSS = """
    RedCasesScreen #red-header { height: auto; padding: 0 1; background: $boost; }
    RedCasesScreen #search { height: 1; border: none; padding: 0 1; }
    RedCasesScreen #search:focus { background: $boost; }
    """

    class Diverged(Message):
        """The worker's answer: the cases whose arms' outputs or trajectories differ, among
        every case or those to review."""

        def __init__(self, cases: frozenset[str], every: bool) -> None:
            super().__init__()
            self.cases, self.every = cases, every

    @dataclass
    class Built(Message, bubble=False):
        """The lists of a big comparison, built in a worker."""

        lists: CaseLists

    @dataclass
    class Widened(Message, bubble=False):
        """The lists with every case of a big comparison, built in a worker on the first `a`."""

        lists: CaseLists

    @dataclass
    class Selected(Message, bubble=False):
        """The rows a query keeps of a big comparison's list, in its order, found in a worker;
        `keep` is the case the cursor stays on."""

        query: CaseQuery
        every: bool
        view: pl.DataFrame
        keep: str | None

    @dataclass
    class Found(Message, bubble=False):
        """The cases whose outputs or reasons hold `text`, found in a worker."""

        text: str
        held: frozenset[str]

    def __init__(self, comparison: Comparison, filter: str | None = None) -> None:
        super().__init__()
        self.comparison = comparison
        self.every = False  # `a`: every case, not only those to review
        self.big = comparison.cases.height > BIG_COMPARISON
        self.lists = None if self.big else CaseLists.of(comparison)
        self.widening = False  # a big comparison's list of every case is being built
        self.case_query = CaseQuery.from_filter(filter)
        self.diverging: frozenset[str] | None = None  # found on the first `d`
        self.diverging_every = False  # whether they were found among every case

    @property
    def red(self) -> pl.DataFrame:
        """The list shown: the cases to review, or (`a`) every case."""
        assert self.lists is not None
        every = self.lists.every
        return every if self.every and every is not None else self.lists.red

    @property
    def columns(self) -> tuple[Column, ...]:
        assert self.lists is not None
        return self.lists.columns

    def compose(self) -> ComposeResult:
        yield Static(self._first_header(), id="red-header")
        yield Input(placeholder="/ search case id; enter: outputs and reasons too", id="search")
        if self.lists is not None:
            yield self._new_table(self.lists)
        yield ProgressLine()
        yield KeyBar()

    def _first_header(self) -> Text:
        """The count and the sort, or, until a big comparison's lists are built, that."""
        if self.lists is not None:
            return self._header(select_cases(self.red, self.case_query).height)
        cases = count(self.comparison.cases.height)
        return Text(f"building the list of {cases} cases …", "bold")

    def _new_table(self, lists: CaseLists, view: pl.DataFrame | None = None) -> CaseTable:
        if view is None:
            view = select_cases(self.red, self.case_query)
        return CaseTable(view, lists.columns, lists.widths)

    @work(thread=True, exclusive=True, group="lists")
    def _build(self) -> None:
        post_unless_cancelled(self, self.Built(CaseLists.of(self.comparison, every=False)))

    @on(Built)
    def _built(self, message: Built) -> None:
        self.lists = message.lists
        # empty until the query's rows arrive from the worker: the table is laid out meanwhile
        table = self._new_table(message.lists, message.lists.red.clear())
        self.mount(table, before=self.query_one(ProgressLine))
        if not self.query_one("#search", Input).has_focus:
            table.focus()
        self._show()
        self.call_after_refresh(self._show_header)  # laid out: which columns fit is known
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="lists", description="widen")
    def _widen(self, lists: CaseLists) -> None:
        widened = lists.widened(self.comparison)
        post_unless_cancelled(self, self.Widened(widened))

    @on(Widened)
    def _widened(self, message: Widened) -> None:
        keep = self._current_case()
        self.lists = message.lists
        self.table.refit(self.lists.widths)
        self.widening, self.every = False, True
        self._show(keep)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Until a big comparison's lists are built, only the search box and leaving."""
        return self.lists is not None or action in ("escape", "search")

    @property
    def table(self) -> CaseTable:
        return self.query_one(CaseTable)

    def _header(self, shown: int) -> Text:
        """The count, the sort and any hint, set off by dots so that no two run together."""
        header = literal(
            describe(self.case_query, shown, self.red.height, every=self.every), "bold"
        )
        reversed_ = " (reversed)" if self.case_query.descending else ""
        header.append(f" · sorted by {SORT_WORDS[self.case_query.sort]}{reversed_}", "dim")
        if shown == 0:
            clear = shown_keys(self.app, "red-clear", first=True)
            header.append(f" · nothing matches: {clear} clears the filters, esc the search", "dim")
        if hidden := self._off_screen():  # on a narrow screen, the ledger's state among them
            header.append(f" · → shows {', '.join(hidden)}", "dim")
        if self.case_query.template is not None:
            header.append_text(self._template_flips(self.case_query.template))
        return header

    def _off_screen(self) -> list[str]:
        tables = self.query(CaseTable)
        return tables.first().off_screen() if tables and tables.first().size.width else []

    def on_resize(self) -> None:
        if self.lists is not None:  # which columns fit is known once the table is laid out
            self.call_after_refresh(self._show_header)

    def _show_header(self) -> None:
        self.query_one("#red-header", Static).update(self._header(self.table.view.height))

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
        """Show the cases of the current query, the cursor on `keep` when it is still shown; a
        big comparison's are selected in a worker (`_select`)."""
        if self.big:
            self._select(self.red, self.case_query, self.every, keep)
        else:
            self._show_view(select_cases(self.red, self.case_query), keep)

    @work(thread=True, exclusive=True, group="query", description="select")
    def _select(self, table: pl.DataFrame, query: CaseQuery, every: bool, keep: str | None) -> None:
        view = select_cases(table, query)
        post_unless_cancelled(self, self.Selected(query, every, view, keep))

    @on(Selected)
    def _selected(self, message: Selected) -> None:
        if message.query == self.case_query and message.every == self.every:  # not outrun
            self._show_view(message.view, message.keep)

    def _show_view(self, view: pl.DataFrame, keep: str | None) -> None:
        self.query_one("#red-header", Static).update(self._header(view.height))
        table = self.table
        table.show(view)
        row = table.row_of(keep) if keep is not None else None
        table.move_cursor(row=row if row is not None else 0)
        self._mark_sort()

    def on_mount(self) -> None:
        if self.lists is None:
            self._build()
        else:
            self._mark_sort()

    def _mark_sort(self) -> None:
        query = self.case_query
        column = next((c for _, c, key in self.columns if key == query.sort), None)
        self.table.mark_sort(column, descending=query.descending)

    def _current_case(self) -> str | None:
        return self.table.case_at(self.table.cursor_row)

    def _requery(self, query: CaseQuery) -> None:
        self.case_query = query
        if self.lists is not None:  # else shown once the lists are built
            self._show(self._current_case())

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
        push_case(self.app, self.comparison, case, cases, self._returned)

    def _returned(self, case: str | None) -> None:
        """Back from the drill-down: the cursor goes to the case shown last."""
        table = self.table
        row = table.row_of(case) if case is not None else None
        if row is not None:
            table.move_cursor(row=row)
        table.focus()

    def action_every_case(self) -> None:
        """Every case of the comparison, or again only those to review; a big comparison's list
        of every case is built the first time, in a worker, the header saying so."""
        assert self.lists is not None
        if self.lists.every is None:
            if not self.widening:
                self.widening = True
                cases = count(self.comparison.cases.height)
                header = Text(f"building the list of every case ({cases}) …", "bold")
                self.query_one("#red-header", Static).update(header)
                self._widen(self.lists)
            return
        keep = self._current_case()
        self.every = not self.every
        self._show(keep)

    # --------------------------------------------------------------------- copy and export

    def focused_text(self) -> Focused | None:
        case = self._current_case()
        return None if case is None else Focused(f"case id {case}", case)

    def shown_table(self) -> Shown:
        """The rows as shown, in their order, under the labels on screen."""
        columns = [pl.col(column).alias(label) for label, column, _ in self.columns]
        return Shown("cases", self.table.view.select(columns))

    # --------------------------------------------------------------------- search

    def action_search(self) -> None:
        self.query_one("#search", Input).focus()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        """As the reviewer types: the case ids; enter searches the outputs and reasons too."""
        self._requery(self.case_query.with_(search=event.value, held=frozenset()))

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        if self.big:
            self.query_one("#red-header", Static).update(
                literal(f"searching the outputs and reasons for {event.value!r} …", "bold")
            )
            self._search_text(event.value)
        else:
            self._found(self.Found(event.value, cases_holding(self.comparison, event.value)))

    @work(thread=True, exclusive=True, group="search", description="search")
    def _search_text(self, text: str) -> None:
        post_unless_cancelled(self, self.Found(text, cases_holding(self.comparison, text)))

    @on(Found)
    def _found(self, message: Found) -> None:
        self._requery(self.case_query.with_(search=message.text, held=message.held))
        if self.lists is not None:
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
        """Step through the outcomes (worst first), rules, flip sources or ledger states the
        cases listed hold, then off."""
        column = CYCLED[name]
        values = (None, *choices(self.red, column))  # type: ignore[arg-type]
        current = getattr(self.case_query, name)
        following = values[(values.index(current) + 1) % len(values)] if current in values else None
        self._requery(self.case_query.with_(**{name: following}))

    def action_diverged(self) -> None:
        """Only the cases whose arms' outputs or trajectories differ (again: off); found once
        for the list shown, in a worker, the first time; again while it looks: stopped."""
        finding = [w for w in self.workers if w.group == "diverged" and w.is_running]
        if finding:
            for worker in finding:
                worker.cancel()
            self.query_one(ProgressLine).finish()
            self.notify("Stopped looking for the cases whose arms diverge.", title="diverged")
        elif self.case_query.diverged is not None:
            self._requery(self.case_query.with_(diverged=None))
        elif self.diverging is not None and (self.diverging_every or not self.every):
            self._requery(self.case_query.with_(diverged=self.diverging))
        else:
            self._find_diverging(self.red["case"], every=self.every)

    @work(thread=True, exclusive=True, group="diverged", description="diverged")
    def _find_diverging(self, among: pl.Series, *, every: bool) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:  # `d` again, or the screen left: stop between chunks
                raise Stopped
            chunks = -(-total // CHUNK)  # the progress line counts steps: one per chunk aligned
            said = f"{done:,} of {total:,} trajectories that differ in text aligned"
            self.post_message(Progress(min(done // CHUNK, chunks - 1), chunks, said))

        cases = plural(among.len(), "case")
        self.post_message(
            Progress(0, 1, f"finding which of {cases} have arms whose outputs differ")
        )
        try:
            with building():
                found = diverged(self.comparison, progress, among)
        except Stopped:
            return
        post_unless_cancelled(self, self.Diverged(frozenset(found["case"].to_list()), every))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(Diverged)
    def _diverged(self, message: Diverged) -> None:
        self.query_one(ProgressLine).finish()
        self.diverging, self.diverging_every = message.cases, message.every
        self._requery(self.case_query.with_(diverged=message.cases))

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

    def offers(self, action: str) -> bool:
        """The footer leaves out the sorts by a column these runs leave out (and, until the
        lists are built, every key that needs them)."""
        if self.lists is None:
            return action in ("escape", "search")
        shown = {f"sort('{sort}')" for *_, sort in self.columns}
        return not action.startswith("sort('") or action in shown or action == "sort('direction')"

    def action_sort(self, key: str) -> None:
        """Sort by `key`; the same key again reverses the order."""
        query = self.case_query
        shown = {sort for *_, sort in self.columns}
        if key in SORT_WORDS and key not in shown:  # a column left out: nothing to sort by
            self.notify(f"no {SORT_WORDS[key]} in these runs to sort by", timeout=3)
            return
        descending = not query.descending if query.sort == key else False
        self._requery(query.with_(sort=key, descending=descending))

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.action_sort(self.columns[event.column_index][2])
