"""Suite health (seed 002): is the suite still measuring the product?

Coverage against traffic, the case-age histogram, free passes, stale references with a retire
action, the counterfactual table, rejection reasons and the production signal. Everything is
computed by `flipgate.core.suite.audit` and worded by `flipgate.present.suite_report`; a
retirement goes through `core.suite.manifest.retire`, then the audit is read again.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from flipgate.core.errors import InputError
from flipgate.core.suite.audit import SuiteAudit, audit
from flipgate.core.suite.manifest import Retirement, retire
from flipgate.core.suite.workspace import load_suite
from flipgate.present.suite_report import findings, headline
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal
from flipgate.tui.screens.flaky import FlakyForm
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.suite_charts import (
    AgeHistogram,
    CounterfactualTable,
    CoverageChart,
    RejectionChart,
    SuiteChart,
)

# The sections of `findings`, in order, and the picture each is drawn with.
CHARTS: tuple[type[SuiteChart], ...] = (
    CoverageChart,
    AgeHistogram,
    SuiteChart,  # free passes: figures only
    SuiteChart,  # stale references: the proposals table follows
    CounterfactualTable,
    RejectionChart,
    SuiteChart,  # production signal
)
STALE = 3


class SuiteScreen(Screen[bool]):
    """Dismissed with whether a case was retired here (the gate behind it is then applied again)."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("suite")
    DEFAULT_CSS = """
    SuiteScreen #suite-header { height: auto; padding: 0 1; background: $boost; text-style: bold; }
    SuiteScreen #suite-proposals {
        height: auto; max-height: 14; border: round $panel-lighten-2;
    }
    """

    def __init__(self, result: SuiteAudit, *, can_go_back: bool = True) -> None:
        super().__init__()
        self.result = result
        self.can_go_back = can_go_back
        self.retired_here = False

    def compose(self) -> ComposeResult:
        yield Static(literal(headline(self.result)), id="suite-header")
        with VerticalScroll(id="suite-body"):
            for i, (chart, section) in enumerate(zip(CHARTS, findings(self.result), strict=True)):
                yield chart(self.result, section, id=f"suite-section-{i}")
                if i == STALE and self.result.stale is not None:
                    yield DataTable(id="suite-proposals", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self._fill_proposals()

    def _fill_proposals(self) -> None:
        stale = self.result.stale
        if stale is None:
            return
        table = self.query_one("#suite-proposals", DataTable)
        table.clear(columns=True)
        table.add_columns("case", "intent", "why retire it")
        for case, intent, reason in stale.proposals.rows():
            table.add_row(literal(case), literal(intent), literal(reason), key=case)
        table.border_title = "retirement proposals (r: retire the selected case)"

    # ------------------------------------------------------------------ retire

    def action_retire(self) -> None:
        stale = self.result.stale
        if stale is None or stale.proposals.height == 0:
            self.notify("No retirement proposals.", title="suite", markup=False)
            return
        table = self.query_one("#suite-proposals", DataTable)
        case = str(stale.proposals["case"][table.cursor_row])
        why = str(stale.proposals["reason"][table.cursor_row])
        path = self.result.inputs.manifest.path

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
            self._reload()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _reload(self) -> None:
        """Read the workspace again after a retirement and show the audit it gives now."""
        path = self.result.inputs.path
        try:
            updated = audit(load_suite(path))  # as of the retirement just made
        except InputError as error:
            self.app.call_from_thread(self.notify, str(error), severity="error", markup=False)
            return
        self.app.call_from_thread(self._show, updated)

    async def _show(self, updated: SuiteAudit) -> None:
        self.result = updated
        await self.recompose()
        self._fill_proposals()

    def action_back(self) -> None:
        if self.can_go_back:
            self.dismiss(self.retired_here)
        else:
            self.app.exit()
