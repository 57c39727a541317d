"""The signed reviewer decision (SPEC §6): what was decided, why, by whom, on which cases.

The file is built, signed and written by `flipgate.core.decision.record` into `WORKSPACE/decisions/`,
then verified at once, and the screen says where it went and what the check found. Digesting the
runs, signing (ssh-keygen is a subprocess) and verifying run in a worker, its progress shown;
when it fails the form keeps everything typed. The cases reviewed are every case the triage
named (10,343 of the 100,000 of the benchmark pair): counted by class, searched, painted only
where seen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import polars as pl
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from flipgate.core.decision.record import (
    DecisionExistsError,
    InvalidDecision,
    Reviewer,
    VerifyResult,
    verify_decision,
    write_decision,
)
from flipgate.core.decision.review import build_record
from flipgate.core.decision.signing import SigningError, find_signing_key
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison
from flipgate.core.plural import plural
from flipgate.core.triage.evidence import TITLES
from flipgate.core.triage.walk import TriageWalk, checklist
from flipgate.core.vocab import REVIEW_DECISIONS, TRIAGE_CLASSES, TriageClass
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import VERDICT_SYMBOL, count, literal, safe
from flipgate.tui.messages import Progress, Steps
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.lines import LinesView
from flipgate.tui.widgets.progress_line import ProgressLine

DECISION_WORDS = {
    "accept": "accept: merge the change",
    "reject": "reject: the change does not merge",
    "rerun": "rerun: measure again (not until green)",
    "rebaseline": "rebaseline: rebuild the baseline first",
}


@dataclass(frozen=True)
class DecisionForm:
    """What the reviewer chose and typed, checked for what can be checked before signing."""

    decision: str
    cause: str
    reason: str
    reviewer: Reviewer
    cases_reviewed: tuple[str, ...]
    key: Path | None  # None: git's user.signingkey


class CasesReviewed(Vertical):
    """The cases reviewed, each with the classes whose step named it: their count, a search by
    case id, and a list that paints only the lines on screen."""

    DEFAULT_CSS = """
    CasesReviewed { height: auto; width: 1fr; }
    CasesReviewed #cases-search { width: 1fr; }
    CasesReviewed #cases-list { height: auto; max-height: 8; }
    CasesReviewed #cases-list:focus { background: $boost; }
    """

    def __init__(self, cases: Mapping[str, Sequence[TriageClass]], *, id: str | None = None):
        super().__init__(id=id)
        self.cases = cases
        self.by_class = Counter(k for classes in cases.values() for k in classes)
        ids = [safe(case) for case in cases]
        width = max(map(len, ids), default=0)
        self.rows = [
            f"{case:<{width}}  {', '.join(TITLES[k] for k in classes)}"
            for case, classes in zip(ids, cases.values(), strict=True)
        ]
        self.lowered = pl.Series(list(cases), dtype=pl.String).str.to_lowercase()

    def compose(self) -> ComposeResult:
        yield Static(self._count(len(self.cases), ""), id="cases-count")
        if self.cases:
            yield Input(placeholder="search case id", id="cases-search", compact=True)
            with VerticalScroll(id="cases-list"):
                yield LinesView()

    def on_mount(self) -> None:
        if self.cases:
            self.query_one(LinesView).show([(row,) for row in self.rows])

    @on(Input.Changed, "#cases-search")
    def _search(self, event: Input.Changed) -> None:
        search = event.value.strip()
        shown = (
            self.lowered.str.contains(search.lower(), literal=True).arg_true().to_list()
            if search
            else range(len(self.rows))
        )
        self.query_one(LinesView).show([(self.rows[i],) for i in shown])
        self.query_one("#cases-list", VerticalScroll).scroll_home(animate=False)
        self.query_one("#cases-count", Static).update(self._count(len(shown), search))

    def _count(self, shown: int, search: str) -> Text:
        total = len(self.cases)
        if not total:
            return Text("no case named by the triage")
        if search:
            text = Text(f"{count(shown)} of {plural(total, 'case')} match “")
            text.append_text(literal(search))
            return text.append("”")
        text = Text(f"{plural(total, 'case')} named by the triage, all go in the file: ")
        return text.append(
            ", ".join(
                f"{TITLES[k]} {count(self.by_class[k])}"
                for k in TRIAGE_CLASSES
                if k in self.by_class
            ),
            "dim",
        )


class DecisionScreen(Screen[Path | None]):
    """Sign and write a decision on `comparison` about `cases` (each with the classes whose step
    named it, `named_cases`); dismisses with the file written."""

    @dataclass
    class Signed(Message):
        path: Path
        verified: VerifyResult

    @dataclass
    class NotSigned(Message):
        why: str  # nothing was written

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("decision")
    DEFAULT_CSS = """
    DecisionScreen #decision-header { height: auto; padding: 0 1; background: $boost; }
    DecisionScreen #decision-form { height: 1fr; padding: 0 1; }
    DecisionScreen .row { height: auto; margin-top: 1; }
    DecisionScreen .row > Label { width: 16; color: $text-muted; }
    DecisionScreen .row > Select, DecisionScreen .row > Input { width: 1fr; }
    DecisionScreen #reason { height: 5; width: 1fr; background: $boost; }
    DecisionScreen #checklist { margin-top: 1; }
    DecisionScreen #sign { margin-top: 1; }
    DecisionScreen #outcome { margin-top: 1; margin-bottom: 1; }
    """

    def __init__(
        self,
        comparison: Comparison,
        walk: TriageWalk,
        workspace: Path,
        *,
        cases: Mapping[str, Sequence[TriageClass]],
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.walk = walk
        self.workspace = workspace
        self.cases = cases
        self.written: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="decision-header")
        with VerticalScroll(id="decision-form"):
            with Horizontal(classes="row"):
                yield Label("Decision")
                yield Select(
                    [(DECISION_WORDS[d], d) for d in REVIEW_DECISIONS],
                    prompt="choose",
                    id="decision",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label("Class found")
                yield Select(
                    [(TITLES[k], k) for k in TRIAGE_CLASSES],
                    prompt="choose",
                    value=self.walk.cause or Select.NULL,
                    id="cause",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label("Reason")
                yield TextArea(id="reason", soft_wrap=True, compact=True)
            with Horizontal(classes="row"):
                yield Label("Reviewer")
                yield Input(
                    value=_git_reviewer(), placeholder="Name <email>", id="reviewer", compact=True
                )
            with Horizontal(classes="row"):
                yield Label("Signing key")
                yield Input(placeholder="blank: git's user.signingkey", id="key", compact=True)
            with Horizontal(classes="row"):
                yield Label("Cases reviewed")
                yield CasesReviewed(self.cases, id="cases")
            yield Static(self._checklist_text(), id="checklist")
            key = shown_keys(self.app, "decision-sign", first=True)
            yield Button(f"Sign and write ({key})", variant="primary", id="sign", compact=True)
            yield ProgressLine()
            yield Static(id="outcome")
        yield KeyBar()

    def on_mount(self) -> None:
        result = self.comparison.result
        header = Text()
        header.append(f"Signed decision  {VERDICT_SYMBOL[result.verdict]} ", style="bold")
        header.append_text(literal(result.summary))
        header.append(f"\nwritten to {self.workspace / 'decisions'}; the reason is required")
        self.query_one("#decision-header", Static).update(header)
        self.query_one("#decision", Select).focus()

    def _checklist_text(self) -> Text:
        text = Text("Checklist from the triage walk\n", style="bold")
        for entry in checklist(self.walk):
            text.append(f"  {TITLES[entry.triage_class]:<16}{entry.finding or 'open':<11}")
            text.append_text(literal(entry.note, lines=True))
            text.append("\n")
        return text

    # ------------------------------------------------------------------ signing

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "sign":
            self.action_sign()

    def action_sign(self) -> None:
        if self.written is not None or self.query_one(ProgressLine).busy:
            return
        try:
            form = self._form()
        except InvalidDecision as problem:
            self._show_error(_said(problem))
            return
        self.query_one("#sign", Button).disabled = True
        self._show(Text(""))
        self._sign(form)

    def _form(self) -> DecisionForm:
        decision = self.query_one("#decision", Select).value
        cause = self.query_one("#cause", Select).value
        if decision is Select.NULL:
            raise InvalidDecision("decision", "choose accept, reject, rerun or rebaseline")
        if cause is Select.NULL:
            raise InvalidDecision("cause", "choose the triage class found")
        reviewer_text = self.query_one("#reviewer", Input).value
        if not reviewer_text.strip():
            raise InvalidDecision("reviewer", "who decides? give 'Name <email>'")
        key_text = self.query_one("#key", Input).value.strip()
        return DecisionForm(
            decision=str(decision),
            cause=str(cause),
            reason=self.query_one("#reason", TextArea).text,
            reviewer=Reviewer.parse(reviewer_text),
            cases_reviewed=tuple(self.cases),
            key=Path(key_text).expanduser() if key_text else None,
        )

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _sign(self, form: DecisionForm) -> None:
        progress = Steps(self, 3)
        progress("digesting both runs")
        try:
            record = build_record(
                self.comparison,
                workspace=self.workspace,
                decision=form.decision,
                cause=form.cause,
                reason=form.reason,
                reviewer=form.reviewer,
                checklist=checklist(self.walk),
                cases_reviewed=form.cases_reviewed,
            )
        except (InvalidDecision, InputError) as problem:
            self.post_message(self.NotSigned(_said(problem)))
            return
        progress("signing with ssh-keygen")
        try:
            key = find_signing_key(form.key)
            path = write_decision(record, key, self.workspace / "decisions")
        except (SigningError, DecisionExistsError, InvalidDecision, OSError) as failed:
            self.post_message(self.NotSigned(f"not signed, nothing written: {_said(failed)}"))
            return
        progress("verifying the file written")
        self.post_message(self.Signed(path, verify_decision(path)))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(NotSigned)
    def _not_signed(self, message: NotSigned) -> None:
        self.query_one(ProgressLine).finish()
        self.query_one("#sign", Button).disabled = False
        self._show_error(message.why)

    @on(Signed)
    def _signed(self, message: Signed) -> None:
        self.query_one(ProgressLine).finish()
        path, verified = message.path, message.verified
        self.written = path
        self.query_one("#sign", Button).label = "Written"
        text = Text("Decision written to ", style="bold")
        text.append_text(literal(path, style="bold"))
        text.append("\n")
        text.append(
            "it verifies" if verified.ok else "written, but it does not verify here",
            style="bold green" if verified.ok else "bold red",
        )
        for check in verified.checks:
            text.append(f"\n  {'✓' if check.ok else '✗'} {check.name}: ")
            text.append_text(literal(check.why))
        self._show(text)

    def _show_error(self, why: str) -> None:
        self._show(literal(f"✗ {why}", style="bold red"))

    def _show(self, text: Text) -> None:
        outcome = self.query_one("#outcome", Static)
        outcome.update(text)
        self.query_one("#decision-form", VerticalScroll).scroll_to_widget(outcome)

    def action_back(self) -> None:
        self.dismiss(self.written)


def _git_reviewer() -> str:
    try:
        reviewer = Reviewer.from_git()
    except InvalidDecision:
        return ""
    return f"{reviewer.name} <{reviewer.email}>"


def _said(error: Exception) -> str:
    if isinstance(error, InvalidDecision):
        return f"{error.field}: {error.message}"
    if isinstance(error, DecisionExistsError):
        return f"{error.filename} exists; a decision file is never overwritten"
    return str(error)
