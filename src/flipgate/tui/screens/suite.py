"""Suite health (seed 002): is the suite still measuring the product?

Coverage against traffic, the case-age histogram, free passes, stale references with a retire
action, the counterfactual table, rejection reasons and the production signal. Everything is
computed by `flipgate.core.suite.audit`, in a worker, and worded by
`flipgate.present.suite_report`; a retirement goes through `core.suite.manifest.retire`, then the
workspace is audited again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import ClassVar

import polars as pl
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from textual_fastdatatable import DataTable, create_backend

from flipgate.core.errors import InputError
from flipgate.core.suite.audit import StaleReferences, SuiteAudit, audit
from flipgate.core.suite.manifest import MANIFEST, Retirement, retire
from flipgate.present.suite_findings import findings
from flipgate.present.suite_report import headline
from flipgate.present.text import safe_column
from flipgate.session.suite import read_suite
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.collector import building
from flipgate.tui.format import literal
from flipgate.tui.messages import Progress, Steps, post_unless_cancelled
from flipgate.tui.reach import Shown, open_case
from flipgate.tui.screens.flaky import FlakyForm
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine, waiting
from flipgate.tui.widgets.suite_charts import (
    AgeHistogram,
    CounterfactualTable,
    CoverageChart,
    RejectionChart,
    SuiteChart,
)

# The sections of `findings` drawn with a picture; the others are their lines alone (the stale
# references are followed by the proposals table).
CHARTS: dict[str, type[SuiteChart]] = {
    "coverage": CoverageChart,
    "case_age": AgeHistogram,
    "counterfactual": CounterfactualTable,
    "rejections": RejectionChart,
}
STALE = "stale_references"
PROPOSAL_COLUMNS = {"case": "case", "intent": "intent", "reason": "why retire it"}


class SuiteScreen(Screen[bool]):
    """Dismissed with whether a case was retired here (the gate behind it is then applied again).

    Given no audit, it reads the workspace and audits it in a worker, its progress on the screen's
    progress line; after a retirement it does so again.
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("suite")
    DEFAULT_CSS = """
    SuiteScreen #suite-header { height: auto; padding: 0 1; background: $boost; text-style: bold; }
    SuiteScreen #suite-problem { padding: 1 1; color: $error; }
    SuiteScreen #suite-proposals {
        height: auto; max-height: 14; border: round $panel-lighten-2;
    }
    """

    @dataclass
    class Audited(Message):
        """The worker's answer: the audit, or why the workspace could not be read."""

        result: SuiteAudit | None
        problem: str | None

    def __init__(
        self, workspace: Path, result: SuiteAudit | None = None, *, can_go_back: bool = True
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.result = result
        self.can_go_back = can_go_back
        self.retired_here = False

    def compose(self) -> ComposeResult:
        yield Static(id="suite-header")
        yield ProgressLine()
        with VerticalScroll(id="suite-body"):
            yield from self._sections()
        yield KeyBar()

    def _sections(self) -> Iterator[Widget]:
        result = self.result
        if result is None:
            return
        for i, section in enumerate(findings(result)):
            yield CHARTS.get(section.key, SuiteChart)(result, section, id=f"suite-section-{i}")
            if section.key == STALE and result.stale is not None:
                yield self._proposals(result.stale)

    def _proposals(self, stale: StaleReferences) -> DataTable:
        """The retirement proposals, read from the frame only for the rows on screen: a suite of
        10,000 cases can propose thousands (the stock table took 1.6 s to lay out 3,267)."""
        shown = stale.proposals.select(safe_column(column) for column in PROPOSAL_COLUMNS)
        table = DataTable(
            backend=create_backend(shown),
            column_labels=list(PROPOSAL_COLUMNS.values()),
            cursor_type="row",
            render_markup=False,  # case ids, intents and names are the manifest's, made visible
            zebra_stripes=True,
            id="suite-proposals",
        )
        key = shown_keys(self.app, "suite-retire", first=True)
        table.border_title = f"retirement proposals ({key}: retire the selected case)"
        return table

    def on_mount(self) -> None:
        self._show_header()
        if self.result is None:
            self._audit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return waiting(self, action)

    def _show_header(self) -> None:
        header = headline(self.result) if self.result else f"suite health of {self.workspace}"
        self.query_one("#suite-header", Static).update(literal(header))

    # ------------------------------------------------------------------ auditing

    @work(thread=True, exclusive=True)
    def _audit(self) -> None:
        """Read every file of the workspace and audit it (as of the newest day it records)."""
        progress = Steps(self, 4)  # the three steps of reading the workspace, then the audit
        try:
            # The collector's full passes over what the read builds held the UI thread 0.3 s.
            with building():
                inputs = read_suite(self.workspace, progress)
                progress("auditing the suite")
                result = audit(inputs)
        except InputError as error:
            post_unless_cancelled(self, self.Audited(None, str(error)))
            return
        post_unless_cancelled(self, self.Audited(result, None))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(Audited)
    async def _audited(self, message: Audited) -> None:
        body = self.query_one("#suite-body", VerticalScroll)
        if message.result is not None:
            self.result = message.result
            await body.remove_children()
            await body.mount_all(self._sections())
        elif self.result is None:  # nothing to show but why
            await body.mount(Static(literal(str(message.problem)), id="suite-problem"))
        else:  # read again after a retirement: the figures stay as they were
            self.notify(str(message.problem), title="suite", severity="error", markup=False)
        self._show_header()
        self.query_one(ProgressLine).finish()

    # ------------------------------------------------------------------ open and export

    @on(DataTable.RowSelected, "#suite-proposals")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter or a click on a proposal opens its case, where the runs open hold it."""
        stale = self.result.stale if self.result else None
        if stale is not None:
            cases = stale.proposals["case"].to_list()
            open_case(self.app, cases[event.cursor_row], cases)

    def shown_table(self) -> Shown | None:
        """The retirement proposals, under the labels on screen."""
        stale = self.result.stale if self.result else None
        if stale is None:
            return None
        labels = [pl.col(column).alias(label) for column, label in PROPOSAL_COLUMNS.items()]
        return Shown("retirement-proposals", stale.proposals.select(labels))

    # ------------------------------------------------------------------ retire

    def action_retire(self) -> None:
        stale = self.result.stale if self.result else None
        if stale is None or stale.proposals.height == 0:
            self.notify("No retirement proposals.", title="suite", markup=False)
            return
        table = self.query_one("#suite-proposals", DataTable)
        if not table.has_focus:  # the cursor row is only a choice once the user is in the table
            table.focus()
            key = shown_keys(self.app, "suite-retire", first=True)
            self.notify(f"Choose the case to retire, then {key}.", title="suite", markup=False)
            return
        case = str(stale.proposals["case"][table.cursor_row])
        why = str(stale.proposals["reason"][table.cursor_row])
        path = self.workspace / MANIFEST

        def submit(values: dict[str, str]) -> Retirement:  # a refusal is an InputError
            return retire(path, case, values["reason"], date.today())

        about = Text.assemble(
            "Move ",
            literal(case, "bold"),
            f" to the archive of {path.name} with today's date. ",
            "It ",
            literal(why),
            ".",
        )
        form = FlakyForm(
            f"retire {case}", about, {"reason": "why it no longer belongs in the suite"}, submit
        )
        self.app.push_screen(form, self._retired)

    def _retired(self, done: str | None) -> None:
        if done is not None:
            self.retired_here = True
            self.notify(done, title="suite", markup=False)
            self._audit()  # as of the retirement just made

    def action_back(self) -> None:
        if self.can_go_back:
            self.dismiss(self.retired_here)
        else:
            self.app.exit()
