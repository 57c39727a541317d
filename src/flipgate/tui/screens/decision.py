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
import polars as pl
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Click
from textual.geometry import Region
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
from flipgate.core.decision.review_log import Looked, added_by_hand, opened, reviewed_cases
from flipgate.core.decision.signing import SigningError, find_signing_key
from flipgate.core.errors import InputError
from flipgate.core.plural import plural
from flipgate.core.triage.walk import TriageWalk, checklist
from flipgate.core.vocab import REVIEW_DECISIONS, TRIAGE_CLASSES, ReviewEvent, TriageClass
from flipgate.present.reasons import summary
from flipgate.present.triage import TITLES
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import VERDICT_SYMBOL, count, literal, safe
from flipgate.tui.messages import Progress, Steps
from flipgate.tui.review import Reviewed
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
    key: Path | None  # None: git's user.signingkey
    review_log: tuple[Looked, ...]  # as it was when the reviewer asked to sign


# ASCII: a mark reads the same in every terminal and theme
OPENED, ADDED, NOT_REVIEWED = "[o]", "[+]", "[ ]"


class CaseList(VerticalScroll, can_focus=True):
    """The cases, one line each with its mark (opened, added by hand, not reviewed), a cursor on
    one; only the lines on screen are painted. `listed` are the cases shown (a search's), as
    indices into `rows`. A case opened is reviewed, and stays so; the others are ticked by hand."""

    @dataclass
    class Ticked(Message):
        """Cases (indices into `rows`) added by hand to the cases reviewed, or taken off."""

        cases: Sequence[int]
        added: bool

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("cases-reviewed")

    def __init__(
        self,
        rows: Sequence[str],
        opened: np.ndarray,
        added: np.ndarray,
        *,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.rows = rows
        self.opened = opened
        self.ticked = opened | added  # reviewed: opened in the app, or added by hand
        self.listed: Sequence[int] = range(len(rows))
        self.cursor = 0

    def compose(self) -> ComposeResult:
        yield LinesView()

    def on_mount(self) -> None:
        self.show(self.listed)

    def _row(self, case: int) -> tuple[str]:
        mark = OPENED if self.opened[case] else ADDED if self.ticked[case] else NOT_REVIEWED
        return (f"{mark} {self.rows[case]}",)

    def show(self, listed: Sequence[int]) -> None:
        self.listed, self.cursor = listed, 0
        self._paint()
        self.scroll_home(animate=False)

    def _paint(self) -> None:
        cursor = self.cursor if self.listed else None
        self.query_one(LinesView).show([self._row(i) for i in self.listed], cursor=cursor)

    def listed_ticked(self) -> int:
        return int(self.ticked[np.asarray(self.listed, dtype=np.intp)].sum())

    def on_click(self, event: Click) -> None:
        """A click puts the cursor on the case clicked."""
        lines = self.query_one(LinesView)
        offset = event.get_content_offset(lines)
        if offset is not None and offset.y < lines.size.height:
            self.action_move_to(lines.row_at(offset.y))

    def action_tick(self) -> None:
        if not self.listed:
            return
        case = self.listed[self.cursor]
        if self.opened[case]:
            self.notify("opened in the app: the review log shows it reviewed", timeout=3)
            return
        self.ticked[case] = not self.ticked[case]
        self.query_one(LinesView).replace_row(self.cursor, self._row(case))
        self.post_message(self.Ticked([case], bool(self.ticked[case])))

    def action_tick_listed(self, ticked: bool) -> None:
        listed = np.asarray(self.listed, dtype=np.intp)
        changing = listed[~self.opened[listed] & (self.ticked[listed] != ticked)]
        self.ticked[changing] = ticked
        self._paint()
        self.post_message(self.Ticked(changing.tolist(), ticked))

    def action_move(self, step: int) -> None:
        self.action_move_to(self.cursor + step)

    def action_page(self, step: int) -> None:
        self.action_move(step * max(1, self.scrollable_content_region.height - 1))

    def action_move_to(self, row: int) -> None:
        if not self.listed:
            return
        self.cursor = max(0, min(len(self.listed) - 1, row % len(self.listed) if row < 0 else row))
        lines = self.query_one(LinesView)
        lines.move_cursor(self.cursor)
        top, height = lines.row_top(self.cursor), lines.row_height(self.cursor)
        self.scroll_to_region(Region(0, top, 1, height), animate=False, immediate=True)


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
        seen = set(opened(log))
        cases = {**triaged, **{case: triaged.get(case, ()) for case in opened(log)}}
        self.cases = cases
        self.case_ids = list(cases)
        self.opened = np.fromiter((case in seen for case in cases), bool, len(cases))
        by_hand = set(added_by_hand(log))
        self.added = np.fromiter((case in by_hand for case in cases), bool, len(cases))
        ids = [safe(case) for case in cases]
        width = max(map(len, ids), default=0)
        self.rows = [
            f"{case:<{width}}  {', '.join(TITLES[k] for k in classes)}"
            for case, classes in zip(ids, cases.values(), strict=True)
        ]
        # per class, which cases its step named: the ticked count by class is one `&` away
        self.named = {
            k: named
            for k in TRIAGE_CLASSES
            if (named := np.fromiter((k in c for c in cases.values()), bool, len(cases))).any()
        }
        self.lowered = pl.Series(list(cases), dtype=pl.String).str.to_lowercase()
        self.search = ""

    def compose(self) -> ComposeResult:
        yield Static(id="cases-count")
        if self.cases:
            yield Input(placeholder="search case id", id="cases-search", compact=True)
            yield CaseList(self.rows, self.opened, self.added, id="cases-list")

    def on_mount(self) -> None:
        self._count()

    def case_at(self, index: int) -> str:
        """The case at `index` of the list (the index a `CaseList.Ticked` gives)."""
        return self.case_ids[index]

    @on(Input.Changed, "#cases-search")
    def _search(self, event: Input.Changed) -> None:
        self.search = event.value.strip()
        listed = (
            self.lowered.str.contains(self.search.lower(), literal=True).arg_true().to_list()
            if self.search
            else range(len(self.rows))
        )
        self.query_one(CaseList).show(listed)
        self._count()

    @on(CaseList.Ticked)
    def _ticks_changed(self) -> None:
        self._count()

    def _count(self) -> None:
        self.query_one("#cases-count", Static).update(self._count_text())

    def _count_text(self) -> Text:
        total = len(self.cases)
        if not total:
            return Text("no case opened, none named by the triage")
        case_list = self.query_one(CaseList)
        ticked = case_list.ticked
        opened_count = int(self.opened.sum())
        text = Text(
            f"{plural(int(ticked.sum()), 'case')} reviewed, for the file: "
            f"{count(opened_count)} opened {OPENED}, "
            f"{count(int(ticked.sum()) - opened_count)} added by hand {ADDED}"
        )
        if self.named:
            text.append(
                "; of the cases named by the triage: "
                + ", ".join(
                    f"{TITLES[k]} {count(int((ticked & named).sum()))} of {count(int(named.sum()))}"
                    for k, named in self.named.items()
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
                yield TextArea(id="reason", soft_wrap=True, compact=True)
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

    @work(thread=True, exclusive=True, exit_on_error=False)
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


def _said(error: Exception) -> str:
    if isinstance(error, InvalidDecision):
        return f"{error.field}: {error.message}"
    if isinstance(error, DecisionExistsError):
        return f"{error.filename} exists; a decision file is never overwritten"
    return str(error)
