"""The signed reviewer decision (SPEC §6): what was decided, why, by whom, on which cases.

The file is built, signed and written by `flipgate.core.decision.file` into `WORKSPACE/decisions/`,
then verified at once, and the screen says where it went and what the check found. Digesting the
runs, signing (ssh-keygen is a subprocess) and verifying run in a worker, its progress shown;
when it fails the form keeps everything typed. The cases reviewed are the cases the reviewer
opened in the app (the review log says which), never pre-ticked: the list holds those and every
case the triage named (10,343 of the 100,000 of the benchmark pair), and the reviewer may tick
others, added by hand (the log records each). The log goes into the file, under the signature.
Counted by class, searched, painted only where seen.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from flipgate.core.decision.file import (
    DecisionExistsError,
    VerifyResult,
    verify_decision,
    write_decision,
)
from flipgate.core.decision.record import CasePlacement, InvalidDecision, Reviewer
from flipgate.core.decision.review import build_record
from flipgate.core.decision.review_log import Looked, opened, reviewed_cases
from flipgate.core.decision.signing import SigningError, find_signing_key
from flipgate.core.errors import InputError
from flipgate.core.plural import plural
from flipgate.core.triage.walk import TriageWalk, checklist
from flipgate.core.vocab import REVIEW_DECISIONS, TRIAGE_CLASSES, ReviewEvent, TriageClass
from flipgate.present.glossary import DECISION_TERMS
from flipgate.present.reasons import summary
from flipgate.present.triage import TITLES
from flipgate.present.verify import check_words
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import VERDICT_SYMBOL, count, literal
from flipgate.tui.messages import Progress, Steps
from flipgate.tui.reach import open_case
from flipgate.tui.review import Reviewed, log_of
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine
from flipgate.tui.widgets.reviewed import ADDED, OPENED, CaseList, Listing, listing

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
    key: Path | None  # None: git's user.signingkey
    review_log: tuple[Looked, ...]  # as it was when the reviewer asked to sign


class CasesReviewed(Vertical):
    """The cases opened in the app (`log`) and those the triage named, each with the classes
    whose step named it: those opened, and those ticked (added by hand), go in the file. Counted
    by class, searched by case id, ticked one by one or all listed."""

    DEFAULT_CSS = """
    CasesReviewed { height: auto; width: 1fr; }
    CasesReviewed #cases-search { width: 1fr; }
    CasesReviewed #cases-list { height: auto; max-height: 8; }
    CasesReviewed #cases-list:focus { background: $boost; }
    """

    def __init__(
        self,
        triaged: Mapping[str, Sequence[TriageClass]],
        log: Sequence[Looked] = (),
        *,
        id: str | None = None,
    ):
        super().__init__(id=id)
        self.triaged, self.looked = triaged, log
        self.cases: Listing | None = None  # listed by the worker
        self.search = ""

    def compose(self) -> ComposeResult:
        yield Static("listing the cases opened and those the triage named …", id="cases-count")

    def on_mount(self) -> None:
        self._list()

    @work(thread=True, group="cases-reviewed")
    def _list(self) -> None:
        """A line a case: about 100,000 at a million cases, too long for the event loop."""
        self.post_message(self.Listed(listing(self.triaged, self.looked)))

    @dataclass
    class Listed(Message):
        cases: Listing

    @on(Listed)
    async def _listed(self, message: Listed) -> None:
        self.cases = cases = message.cases
        if cases.ids:
            await self.mount_all(
                [
                    Input(placeholder="search case id", id="cases-search", compact=True),
                    CaseList(cases, id="cases-list"),
                ]
            )
        self._count()

    def case_at(self, index: int) -> str:
        """The case at `index` of the list (the index a `CaseList.Ticked` gives)."""
        assert self.cases is not None  # a tick comes from the list, shown once listed
        return self.cases.ids[index]

    def now_opened(self, cases: Sequence[str]) -> None:
        """Cases opened from the list (and walked to with n/p there): reviewed, and counted so."""
        if self.cases is None:
            return
        case_list = self.query_one(CaseList)
        for case in cases:
            if (index := self.cases.index.get(case)) is not None:
                case_list.mark_opened(index)
        self._count()

    @on(Input.Changed, "#cases-search")
    def _search(self, event: Input.Changed) -> None:
        assert self.cases is not None  # the search is shown once listed
        self.search = event.value.strip()
        lowered = self.cases.lowered
        listed = (
            lowered.str.contains(self.search.lower(), literal=True).arg_true().to_numpy()
            if self.search
            else np.arange(len(lowered))
        ).astype(np.intp)
        self.query_one(CaseList).show(listed)
        self._count()

    @on(CaseList.Ticked)
    def _ticks_changed(self) -> None:
        self._count()

    def _count(self) -> None:
        self.query_one("#cases-count", Static).update(self._count_text())

    def _count_text(self) -> Text:
        cases = self.cases
        if cases is None:
            return Text("listing the cases opened and those the triage named …")
        total = len(cases.ids)
        if not total:
            return Text("no case opened, none named by the triage")
        case_list = self.query_one(CaseList)
        ticked = case_list.ticked
        opened_count = int(case_list.opened.sum())
        text = Text(
            f"{plural(int(ticked.sum()), 'case')} reviewed, for the file: "
            f"{count(opened_count)} opened {OPENED}, "
            f"{count(int(ticked.sum()) - opened_count)} added by hand {ADDED}"
        )
        if cases.named:
            text.append(
                "; of the cases named by the triage: "
                + ", ".join(
                    f"{TITLES[k]} {count(int((ticked & named).sum()))} of {count(int(named.sum()))}"
                    for k, named in cases.named.items()
                ),
                "dim",
            )
        if self.search:
            listed = case_list.listed
            text.append(f"\n{count(len(listed))} of {plural(total, 'case')} match “")
            text.append_text(literal(self.search))
            text.append(f"”, {count(case_list.listed_ticked())} ticked")
        keys = [
            shown_keys(self.app, k, first=True) for k in ("cases-tick", "cases-all", "cases-none")
        ]
        text.append(
            f"\nin the list: {keys[0]} adds or takes off a case not opened, {keys[1]} adds all "
            f"listed, {keys[2]} none",
            "dim",
        )
        return text


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

    @dataclass
    class GitReviewer(Message):
        reviewer: str  # git's `Name <email>`

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("decision")
    TERMS = DECISION_TERMS
    DEFAULT_CSS = """
    DecisionScreen #decision-header { height: auto; padding: 0 1; background: $boost; }
    DecisionScreen #decision-form { height: 1fr; padding: 0 1; }
    DecisionScreen .row { height: auto; margin-top: 1; }
    DecisionScreen .row > Label { width: 16; color: $text-muted; }
    DecisionScreen .row > Select, DecisionScreen .row > Input { width: 1fr; }
    DecisionScreen #reason { height: 7; width: 1fr; background: $boost; }
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
        placed: Sequence[CasePlacement] = (),
        log: Sequence[Looked] = (),
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.walk = walk
        self.workspace = workspace
        self.cases = cases
        self.placed = placed  # each broken case's class and why, as the evidence put it
        # what the reviewer looked at, then each case added or taken off here by hand
        self.review_log = list(log)
        self.written: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="decision-header")
        # not focusable itself: tab goes from the Sign button round to the first field
        with VerticalScroll(id="decision-form", can_focus=False):
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
                # bordered, unlike the one-line fields: a box to write in, seen when empty
                yield TextArea(
                    id="reason",
                    soft_wrap=True,
                    placeholder="required: why this decision, in your words",
                )
            with Horizontal(classes="row"):
                yield Label("Reviewer")
                yield Input(placeholder="Name <email>", id="reviewer", compact=True)
            with Horizontal(classes="row"):
                yield Label("Signing key")
                yield Input(placeholder="blank: git's user.signingkey", id="key", compact=True)
            with Horizontal(classes="row"):
                yield Label("Cases reviewed")
                yield CasesReviewed(self.cases, self.review_log, id="cases")
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
        header.append_text(literal(summary(result)))
        header.append(f"\nwritten to {self.workspace / 'decisions'}; the reason is required")
        if self.app.is_web:  # served: the key is the serving machine's, not the browser's
            header.append("\nserved to a browser: signed with the key of the machine serving it")
        self.query_one("#decision-header", Static).update(header)
        self.query_one("#decision", Select).focus()
        self._ask_git()

    @work(thread=True, group="reviewer")
    def _ask_git(self) -> None:
        """git's user.name and user.email, the default reviewer: `git config` is a subprocess."""
        try:
            reviewer = Reviewer.from_git()
        except InvalidDecision:
            return
        self.post_message(self.GitReviewer(f"{reviewer.name} <{reviewer.email}>"))

    @on(CaseList.Ticked)
    def _added_by_hand(self, message: CaseList.Ticked) -> None:
        """Each case added or taken off by hand goes into the log, here and in the app's."""
        reviewed = self.query_one(CasesReviewed)
        event: ReviewEvent = "case_added" if message.added else "case_removed"
        for index in message.cases:
            looked = Looked(event, case=reviewed.case_at(index))
            self.review_log.append(looked)
            self.post_message(Reviewed(looked))

    @on(CaseList.Opening)
    def _open_case(self, message: CaseList.Opening) -> None:
        """A case opened from the list: what the reviewer looked at in the drill-down joins
        this decision's log, and each case opened there is reviewed."""
        start = len(log_of(self.app))

        def back(_case: str | None) -> None:
            looked = log_of(self.app)[start:]
            self.review_log.extend(looked)
            self.query_one(CasesReviewed).now_opened(opened(looked))

        open_case(self.app, message.case, message.cases, back)

    @on(GitReviewer)
    def _git_reviewer(self, message: GitReviewer) -> None:
        field = self.query_one("#reviewer", Input)
        if not field.value:  # what the user typed meanwhile stays
            field.value = message.reviewer

    def _checklist_text(self) -> Text:
        text = Text("Checklist from the triage walk\n", style="bold")
        for entry in checklist(self.walk):
            text.append(f"  {TITLES[entry.triage_class]:<16}{entry.finding or 'open':<11}")
            text.append_text(literal(entry.note, lines=True))
            text.append("\n")
        if self.placed:  # what the file records of each broken case, beside the checklist
            by_class = Counter(placed.triage_class for placed in self.placed)
            counts = ", ".join(f"{TITLES[k]} {by_class[k]}" for k in TRIAGE_CLASSES if by_class[k])
            text.append(
                f"Broken cases, each recorded with its class and why: {counts}\n", style="bold"
            )
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
            key=Path(key_text).expanduser() if key_text else None,
            review_log=tuple(self.review_log),
        )

    @work(thread=True, exclusive=True, exit_on_error=False, description="sign")
    def _sign(self, form: DecisionForm) -> None:
        progress = Steps(self, 3)
        progress("digesting both runs")
        cases_reviewed, cases_added = reviewed_cases(form.review_log)
        try:
            record = build_record(
                self.comparison,
                workspace=self.workspace,
                decision=form.decision,
                cause=form.cause,
                reason=form.reason,
                reviewer=form.reviewer,
                checklist=checklist(self.walk),
                cases_reviewed=cases_reviewed,
                cases_added=cases_added,
                review_log=form.review_log,
                broken_cases=self.placed,
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
        # a key new to this machine is not yet among the allowed signers: signed and sound, but
        # not yet trusted here, which is a step to take rather than a failure
        untrusted = not verified.ok and all(c.ok for c in verified.checks if c.name != "signer")
        if verified.ok:
            text.append("it verifies", style="bold green")
        elif untrusted:
            text.append(
                "signed; its signer is not yet trusted here (see below)", style="bold yellow"
            )
        else:
            text.append("written, but it does not verify here", style="bold red")
        for check in verified.checks:
            text.append(f"\n  {'✓' if check.ok else '✗'} {check.name}: ")
            text.append_text(literal(check_words(check)))
        self._show(text)

    def _show_error(self, why: str) -> None:
        self._show(literal(f"✗ {why}", style="bold red", lines=True))

    def _show(self, text: Text) -> None:
        outcome = self.query_one("#outcome", Static)
        outcome.update(text)
        self.query_one("#decision-form", VerticalScroll).scroll_to_widget(outcome)

    def action_back(self) -> None:
        self.dismiss(self.written)


def _said(error: Exception) -> str:
    if isinstance(error, InvalidDecision):
        return f"{error.field}: {error.message}"
    if isinstance(error, DecisionExistsError):
        return f"{error.filename} exists; a decision file is never overwritten"
    # the command line's option is this form's field here
    return str(error).replace("--key PATH", "a key path").replace("--key", "a Signing key path")
