"""The flaky list: entries with their flags, the proposals from identical baseline runs, and the two
changes a curator makes here (accept a proposal, retire a repaired entry).

Everything shown is computed by `flipgate.core.curation`, in a worker (which listed cases flipped
is read from the comparison shown; every identical run is read: seconds on a large suite); every
change goes through it and is written at once, in a worker too. A refused change shows its reason in the form, and the file
stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import polars as pl
from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Input, Static

from flipgate.core.curation.entries import Edit, add, load_list, remove
from flipgate.core.curation.flips import Proposal, ProposedEntry, propose
from flipgate.core.curation.review import (
    CheckReport,
    EntryReview,
    flipped_among,
    flipped_in_run,
    review,
)
from flipgate.core.errors import InputError
from flipgate.core.gate.spec import GateSpec
from flipgate.core.plural import plural
from flipgate.core.runs.model import Run
from flipgate.present.curation import done_words
from flipgate.present.glossary import FLAKY_TERMS
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import literal
from flipgate.tui.messages import Progress, Steps, post_unless_cancelled
from flipgate.tui.reach import Focused, Shown, open_case
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine, waiting

if TYPE_CHECKING:  # the manifest's reader imports pyarrow: loaded by the suite screen, not here
    from flipgate.core.suite.manifest import Retirement


# The change the form's values ask for, made through the core (a flaky list's `Edit`, a suite's
# `Retirement`, said in a line by `done_words`); raises InputError to refuse it (or when the file
# cannot be written).
Submit = Callable[[dict[str, str]], "Edit | Retirement"]


class FlakyForm(ModalScreen[str | None]):
    """A small form: every field is required; the change is made by `submit`, not by the form.

    It is made in a worker; the form closes with what was done (None: cancelled).
    """

    @dataclass
    class Answered(Message):
        done: str | None  # what the change did, or None when it was refused
        refusal: str = ""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("flaky-form")
    DEFAULT_CSS = """
    FlakyForm { align: center middle; }
    FlakyForm > Vertical {
        width: 76; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    FlakyForm .form-label { margin-top: 1; }
    FlakyForm .form-error { color: $error; margin-top: 1; }
    FlakyForm Input { width: 100%; }
    """

    def __init__(
        self, title: str, about: RenderableType, fields: dict[str, str], submit: Submit
    ) -> None:
        super().__init__()
        self.form_title = title
        self.about = about
        self.fields = fields  # name -> placeholder
        self.submit = submit

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.form_title
            cancel = shown_keys(self.app, "flaky-form-cancel", first=True)
            box.border_subtitle = Text(f"enter to save · {cancel} to cancel")
            yield Static(self.about, classes="form-about")
            for name, placeholder in self.fields.items():
                yield Static(Text(f"{name} (required)"), classes="form-label")
                yield Input(placeholder=placeholder, id=f"form-{name}")
            yield Static("", id="form-error", classes="form-error")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        inputs = list(self.query(Input))
        values = {name: self.query_one(f"#form-{name}", Input).value for name in self.fields}
        empty = next((i for i in inputs if not i.value.strip()), None)
        if empty is not None and empty is not event.input:
            empty.focus()  # enter moves on to the next empty field before saving
            return
        self.query_one("#form-error", Static).update("saving …")
        self._save(values)

    @work(thread=True, exclusive=True, description="save")
    def _save(self, values: dict[str, str]) -> None:
        try:
            edit = self.submit(values)
        except (InputError, OSError) as refused:  # refused, or the disk would not take it
            self.post_message(self.Answered(None, str(refused)))
            return
        self.post_message(self.Answered(done_words(edit)))

    @on(Answered)
    def _answered(self, message: Answered) -> None:
        if message.done is not None:
            self.dismiss(message.done)
        else:
            self.query_one("#form-error", Static).update(literal(message.refusal))

    def action_cancel(self) -> None:
        self.dismiss(None)


MIN_LAST = 12  # cells the free-text column keeps however narrow the screen: a word or two and "…"


def _fill(
    table: DataTable[RenderableType], rows: Sequence[tuple[Text, ...]], keys: Sequence[str]
) -> None:
    """`rows` in `table`, its cursor kept, and the last column (a reason, evidence: free text) cut
    with "…" to the width the others leave it, so that no row runs off the screen; the detail
    under the tables shows the focused row's in full."""
    cursor, pad = table.cursor_row, 2 * table.cell_padding
    labels = [column.label for column in table.columns.values()]
    used = sum(
        max([label.cell_len, *(row[i].cell_len for row in rows)]) + pad
        for i, label in enumerate(labels[:-1])
    )
    room = table.content_region.width - table.styles.scrollbar_size_vertical - used - pad
    table.clear()
    for key, (*fixed, free) in zip(keys, rows, strict=True):
        cut = free.copy()
        cut.truncate(max(room, MIN_LAST), overflow="ellipsis")
        table.add_row(*fixed, cut, key=key)
    if rows:
        table.move_cursor(row=min(cursor, len(rows) - 1))


class FlakyScreen(Screen[None]):
    """The flaky list at `flaky_path`, judged against the open runs and the baseline's repeats.

    `suite_runs`: the runs being judged, baseline first (then the candidate): they say which
    cases exist, and baseline vs candidate says which listed cases flipped in this run.
    `repeats`: identical reruns of that baseline (same key): the proposals come from them.
    `cases`: the comparison of the two arms, its `cases` (case and cell), which say which
    listed cases flipped without comparing the arms again (None: they are compared).
    """

    @dataclass
    class Reviewed(Message):
        """The worker's answer: the list's review and proposals, or why there are none."""

        report: CheckReport | None
        proposal: Proposal | None
        problem: str | None

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("flaky")
    TERMS = FLAKY_TERMS
    DEFAULT_CSS = """
    FlakyScreen #flaky-header { height: auto; padding: 0 1; background: $boost; }
    FlakyScreen #flaky-status { height: auto; padding: 0 1; display: none; }
    FlakyScreen #flaky-status.shown { display: block; }
    FlakyScreen #flaky-status.error { color: $error; }
    FlakyScreen .flaky-caption { height: 1; padding: 0 1; text-style: bold; }
    FlakyScreen DataTable { height: 1fr; }
    FlakyScreen #flaky-detail { height: auto; max-height: 6; padding: 0 1;
        border-top: solid $panel-lighten-2; }
    """

    def __init__(
        self,
        flaky_path: Path,
        suite_runs: list[Run],
        repeats: list[Run],
        spec: GateSpec,
        *,
        today: date | None = None,
        cases: pl.DataFrame | None = None,
    ) -> None:
        if not suite_runs:
            raise ValueError("the flaky screen needs the baseline run at least")
        super().__init__()
        self.flaky_path = Path(flaky_path)
        self.suite_runs = list(suite_runs)
        self.repeats = list(repeats)
        self.spec = spec
        self.today = today or date.today()
        self.cases = cases
        self.report: CheckReport | None = None
        self.proposal: Proposal | None = None
        self.problem: str | None = None  # why the list or the proposals could not be computed

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="flaky-header")
        yield ProgressLine()
        yield Static(id="flaky-status")
        yield Static("Listed", id="entries-caption", classes="flaky-caption")
        entries: DataTable[RenderableType] = DataTable(id="flaky-entries", cursor_type="row")
        entries.add_columns("case", "owner", "age", "flags", "reason")
        yield entries
        yield Static("Proposed", id="proposals-caption", classes="flaky-caption")
        proposals: DataTable[RenderableType] = DataTable(id="flaky-proposals", cursor_type="row")
        proposals.add_columns("case", "flips", "evidence")
        yield proposals
        yield Static(id="flaky-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_header()
        self.refresh_list()
        self.query_one("#flaky-entries", DataTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return waiting(self, action)

    def on_resize(self) -> None:
        if self.report is not None:  # the free text cut again to the new width, once laid out
            self.call_after_refresh(self._show)

    # ------------------------------------------------------------------ computing

    @property
    def identical_runs(self) -> list[Run]:
        return [self.suite_runs[0], *self.repeats]

    @work(thread=True, exclusive=True)
    def refresh_list(self) -> None:
        """Read the list from disk again and recompute flags and proposals."""
        progress = Steps(self, 4)
        report, proposal, problem = None, None, None
        try:
            progress("reading the flaky list")
            flaky = load_list(self.flaky_path)
            flipped: frozenset[str] = frozenset()
            if self.cases is not None:
                progress("reading which listed cases flipped")
                flipped = flipped_among(self.cases, flaky)
            elif len(self.suite_runs) >= 2:
                progress("comparing both arms with the list")
                flipped = flipped_in_run(self.suite_runs[0], self.suite_runs[1], self.spec, flaky)
            progress(
                f"reviewing the entries against {plural(len(self.identical_runs), 'baseline run')}"
            )
            report = review(
                flaky,
                self.identical_runs,
                self.spec,
                today=self.today,
                suite=self.suite_runs[1:],
                flipped_in_run=flipped,
            )
            if self.repeats:
                progress("proposing entries from the identical baseline runs")
                proposal = propose(self.identical_runs, self.spec, flaky, None)
        except InputError as exc:
            problem = str(exc)
        post_unless_cancelled(self, self.Reviewed(report, proposal, problem))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(Reviewed)
    def _reviewed(self, message: Reviewed) -> None:
        self.report, self.proposal, self.problem = message.report, message.proposal, message.problem
        self.query_one(ProgressLine).finish()
        self._show()

    # ------------------------------------------------------------------ showing

    def _show_header(self) -> None:
        report = self.report
        header = Text.assemble(("Flaky list  ", "bold"), literal(self.flaky_path))
        if report is not None:
            header.append(
                f"\n{len(report.entries)} listed · cap {report.cap} "
                f"({self.spec.flaky_max_share:.0%} of {report.suite_cases} cases) · "
                f"{report.slots_left} slots left · "
            )
            header.append(f"{report.flaky_digest[:19]}…", style="dim")
        self.query_one("#flaky-header", Static).update(header)

    def _show(self) -> None:
        report, proposal = self.report, self.proposal
        self._show_header()
        if self.problem is not None:
            self._status(self.problem, error=True)

        entries = self.query_one("#flaky-entries", DataTable)
        listed = [
            (
                literal(row.entry.case),
                literal(row.entry.owner),
                Text(f"{row.age_days} d", justify="right", end=""),
                Text(", ".join(row.flags) or "—", style="bold" if row.flags else "dim", end=""),
                literal(row.entry.reason),
            )
            for row in (report.entries if report else ())
        ]
        _fill(entries, listed, [row.entry.case for row in report.entries] if report else [])
        caption = "Listed" if report is None else f"Listed ({len(report.entries)})"
        self.query_one("#entries-caption", Static).update(caption)

        proposed = list(proposal.entries) if proposal else []
        _fill(
            self.query_one("#flaky-proposals", DataTable),
            [
                (
                    literal(entry.case),
                    Text(str(entry.record.flips), justify="right", end=""),
                    literal(entry.evidence),
                )
                for entry in proposed
            ],
            [entry.case for entry in proposed],
        )
        self.query_one("#proposals-caption", Static).update(self._proposals_caption())
        self._show_detail()

    def _proposals_caption(self) -> Text:
        proposal = self.proposal
        if proposal is None:
            why = "no repeats of the baseline given" if not self.repeats else "none"
            return Text(f"Proposed: {why}")
        caption = Text(
            f"Proposed from {plural(len(proposal.runs), 'identical baseline run')} "
            f"({len(proposal.entries)})"
        )
        if proposal.safety_findings:
            cases = ", ".join(r.case for r in proposal.safety_findings)
            caption.append("  safety cases flipped, a finding about the agent: ", style="bold")
            caption.append_text(literal(cases, style="bold"))
        return caption

    def _status(self, message: str, *, error: bool = False) -> None:
        status = self.query_one("#flaky-status", Static)
        status.set_class(error, "error")
        status.add_class("shown")
        status.update(literal(message))

    def _entry_under_cursor(self) -> EntryReview | None:
        table = self.query_one("#flaky-entries", DataTable)
        if self.report is None or not self.report.entries or table.row_count == 0:
            return None
        return self.report.entries[min(table.cursor_row, len(self.report.entries) - 1)]

    def _proposal_under_cursor(self) -> ProposedEntry | None:
        table = self.query_one("#flaky-proposals", DataTable)
        if self.proposal is None or not self.proposal.entries or table.row_count == 0:
            return None
        return self.proposal.entries[min(table.cursor_row, len(self.proposal.entries) - 1)]

    def _show_detail(self) -> None:
        focused = self.focused
        detail = self.query_one("#flaky-detail", Static)
        if focused is not None and focused.id == "flaky-proposals":
            proposed = self._proposal_under_cursor()
            if proposed is None:
                detail.update("")
                return
            detail.update(
                Group(
                    Text.assemble(("proposed  ", "bold"), literal(proposed.case)),
                    literal(proposed.evidence),
                    Text("a: accept (owner and reason required)", style="dim"),
                )
            )
            return
        row = self._entry_under_cursor()
        if row is None:
            if self.problem:
                empty = "The list could not be read."
            else:  # nothing reviewed yet: the progress line says what is under way
                empty = "The list is empty." if self.report is not None else ""
            detail.update(Text(empty, style="dim"))
            return
        entry = row.entry
        lines = [
            Text.assemble(
                ("listed  ", "bold"),
                literal(entry.case),
                f"  added {entry.added.isoformat()} by ",
                literal(entry.owner),
            ),
            Text.assemble(("reason    ", "dim"), literal(entry.reason)),
            Text.assemble(("evidence  ", "dim"), literal(entry.evidence)),
        ]
        if row.record is not None:
            lines.append(Text.assemble(("now       ", "dim"), literal(row.record.evidence())))
        detail.update(Group(*lines))

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        """Enter or a click on a row opens its case."""
        event.stop()
        self.action_open_case()

    def action_open_case(self) -> None:
        entries = self.query_one("#flaky-entries", DataTable)
        if entries.has_focus:
            review = self._entry_under_cursor()
            case = review.entry.case if review is not None else None
        else:
            proposed = self._proposal_under_cursor()
            case = proposed.case if proposed is not None else None
        if case is not None:
            open_case(self.app, case)

    def focused_text(self) -> Focused | None:
        entries = self.query_one("#flaky-entries", DataTable)
        review = self._entry_under_cursor() if entries.has_focus else None
        proposed = None if entries.has_focus else self._proposal_under_cursor()
        case = review.entry.case if review else proposed.case if proposed else None
        return None if case is None else Focused(f"case id {case}", case)

    def shown_table(self) -> Shown:
        """The list in focus: the entries, or the proposals."""
        entries = self.query_one("#flaky-entries", DataTable)
        if entries.has_focus:
            return Shown.of("flaky-list", entries)
        return Shown.of("flaky-proposals", self.query_one("#flaky-proposals", DataTable))

    def on_descendant_focus(self) -> None:
        self._show_detail()

    # ------------------------------------------------------------------ actions

    def action_switch(self) -> None:
        entries = self.query_one("#flaky-entries", DataTable)
        proposals = self.query_one("#flaky-proposals", DataTable)
        (proposals if entries.has_focus else entries).focus()

    def action_back(self) -> None:
        self.dismiss(None)

    def action_accept(self) -> None:
        proposed = self._proposal_under_cursor()
        if proposed is None:
            self._status("No proposal to accept.", error=True)
            return

        def submit(values: dict[str, str]) -> Edit:
            return add(
                self.flaky_path,
                proposed.case,
                values["owner"],
                values["reason"],
                proposed.evidence,
                self.today,
                suite=[*self.suite_runs, *self.repeats],
                spec=self.spec,
            )

        about = Group(
            Text.assemble(("list  ", "bold"), literal(proposed.case)),
            literal(proposed.evidence),
        )
        fields = {"owner": "who repairs it", "reason": "why it flips"}
        self.app.push_screen(FlakyForm("accept proposal", about, fields, submit), self._changed)

    def action_retire(self) -> None:
        row = self._entry_under_cursor()
        if row is None:
            self._status("No entry to retire.", error=True)
            return
        case = row.entry.case

        def submit(values: dict[str, str]) -> Edit:
            return remove(self.flaky_path, case, values["note"], self.today)

        about = Group(
            Text.assemble(("retire  ", "bold"), literal(case), "  (repaired; kept under retired:)"),
            Text.assemble(("reason  ", "dim"), literal(row.entry.reason)),
        )
        fields = {"note": "how it was repaired"}
        self.app.push_screen(FlakyForm("retire entry", about, fields, submit), self._changed)

    def _changed(self, done: str | None) -> None:
        if done is not None:
            self._status(done)
            self.refresh_list()
