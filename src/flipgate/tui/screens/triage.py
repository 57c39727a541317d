"""The triage walk (SPEC §5) as a checklist: infra, flaky, grader, stale baseline, regression.

Each step shows the evidence `flipgate.core.triage.walk` computed (in a worker: on a large run it
takes seconds) and records the reviewer's finding and note; the walk is saved when a finding is
chosen or a note committed (enter, or leaving the field), and resumed when the screen opens again.
A finding is recorded only by its own key (or a click), never by enter, which moves on; each can
be undone, and each recorded or undone goes into the review log. The last line leads to the
signed decision. Rerunning until green is not offered here, on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from flipgate.core.decision.record import CasePlacement
from flipgate.core.decision.review_log import Looked
from flipgate.core.errors import InputError
from flipgate.core.runs.model import Run
from flipgate.core.triage.evidence import TriageStep, named_cases
from flipgate.core.triage.walk import TriageWalk, load_walk, save_walk, start_walk
from flipgate.core.vocab import FINDINGS, Finding, TriageClass
from flipgate.present.export import frame_of
from flipgate.present.glossary import TRIAGE_TERMS
from flipgate.present.reasons import summary
from flipgate.present.triage import TITLES, fact_line, placements, summary_of
from flipgate.session import Comparison, triage
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.format import VERDICT_SYMBOL, Unparted, literal
from flipgate.tui.messages import Progress, Steps, post_unless_cancelled
from flipgate.tui.reach import Shown
from flipgate.tui.review import Reviewed, log_of
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.progress_line import ProgressLine, waiting

FINDING_MARK: dict[Finding | None, str] = {
    "ruled_out": "✓ ruled out",
    "cause": "● cause",
    "unclear": "? unclear",
    None: "· open",
}
DECISION_LINE = "→ Record the signed decision"
NARROW = 100  # below this many columns the step list shows each finding under its class
# Cases and facts shown per step: on a large run a step names thousands, and laying them all out
# stalls the screen for seconds (8 s for the flaky step of 100,000 cases); the rest are counted.
SHOWN = 100
# Facts shown per step: each is a row of a table wrapped and measured on the event loop at each
# drawing (a hundred took 38 ms a drawing at the infra step of a million cases, drawn three times
# as the step opens: a stall of a tenth of a second); the rest are counted.
FACTS_SHOWN = 30


class TriageScreen(Screen[None]):
    """Walk the five classes in order for `comparison`, saving the walk to `walk_path`."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("triage")
    TERMS = TRIAGE_TERMS
    DEFAULT_CSS = """
    TriageScreen #triage-header { height: auto; padding: 0 1; background: $boost; }
    TriageScreen #triage-main { height: 1fr; }
    TriageScreen.-gathering #triage-main { display: none; }
    TriageScreen #steps { width: 34; height: 100%; border: none; border-right: solid $panel; }
    TriageScreen.-narrow #steps { width: 24; }
    TriageScreen #step-pane { width: 1fr; height: 100%; }
    TriageScreen #step-body { height: 1fr; padding: 0 1; }
    TriageScreen #finding-area { height: auto; padding: 0 1; border-top: solid $panel; }
    TriageScreen #step-title { text-style: bold; }
    TriageScreen #step-summary { margin-bottom: 1; }
    TriageScreen #step-facts { margin-bottom: 1; }
    TriageScreen #cases-title { color: $text-muted; }
    TriageScreen #step-cases { height: 1fr; min-height: 6; border: none; }
    TriageScreen #finding-row { height: auto; }
    TriageScreen #finding-row Button { margin-right: 2; }
    TriageScreen #finding-row Button.-chosen { text-style: bold reverse; }
    TriageScreen #save-state { color: $text-muted; }
    """

    @dataclass
    class Gathered(Message):
        """The worker's answer: each class's evidence, the walk to resume, what went wrong."""

        steps: list[TriageStep]
        walk: TriageWalk
        problems: list[str]
        # what the decision screen lists and records: a case at a time, about 100,000 at a
        # million cases, so here rather than on the event loop when `d` is pressed
        named: dict[str, tuple[TriageClass, ...]]
        placed: tuple[CasePlacement, ...]

    def __init__(
        self,
        comparison: Comparison,
        walk_path: Path,
        baseline_repeats: Sequence[Run] = (),
        *,
        workspace: Path | None = None,
    ) -> None:
        super().__init__(classes="-gathering")
        self.comparison = comparison
        self.walk_path = walk_path
        self.baseline_repeats = tuple(baseline_repeats)
        # The walk lives in WORKSPACE/.flipgate/triage.yaml; decisions go to WORKSPACE/decisions.
        self.workspace = workspace or (
            walk_path.parent.parent if walk_path.parent.name == ".flipgate" else walk_path.parent
        )
        self.problems: list[str] = []
        self.steps: list[TriageStep] = []
        self.walk: TriageWalk | None = None  # None until the worker has gathered the evidence
        self.named: dict[str, tuple[TriageClass, ...]] = {}  # the cases the steps name
        self.placed: tuple[CasePlacement, ...] = ()  # each broken case's class and why
        self.current = 0
        self.saved = ""
        self.undo: list[
            tuple[TriageClass, Finding | None]
        ] = []  # each finding and what it replaced

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="triage-header")
        yield ProgressLine()
        with Horizontal(id="triage-main"):
            yield OptionList(id="steps")
            with Vertical(id="step-pane"):
                with VerticalScroll(id="step-body"):
                    yield Static(id="step-title")
                    yield Static(id="step-summary")
                    yield Static(id="step-facts")
                    yield Static(id="cases-title")
                    # Below the facts, the list takes the rest of the pane (it scrolls on its
                    # own only when its cases do not fit there).
                    yield OptionList(id="step-cases")
                # The finding stays in view while the evidence scrolls above it.
                with Vertical(id="finding-area"):
                    with Horizontal(id="finding-row"):
                        for finding in FINDINGS:
                            key = self._key(f"triage-{finding.replace('_', '-')}")
                            label = f"{finding.replace('_', ' ')} ({key})"
                            button = Button(label, id=finding, compact=True)
                            button.can_focus = False  # enter never records a finding
                            yield button
                    yield Input(
                        placeholder=f"note on this class ({self._key('triage-note')})",
                        id="note",
                        compact=True,
                    )
                    yield Static(id="save-state")
        yield KeyBar()

    def on_mount(self) -> None:
        self._show_header()
        self._gather()

    @work(thread=True, exclusive=True)
    def _gather(self) -> None:
        """The evidence of each class and the saved walk (both digest the runs): off the UI."""
        progress = Steps(self, 2)
        problems: list[str] = []
        repeats = self.baseline_repeats
        progress(
            "gathering the evidence for each class"
            + (f", with {len(repeats)} identical baseline runs" if repeats else "")
        )
        found = triage(self.comparison, repeats)
        steps = found.steps
        if found.refused is not None:
            problems.append(f"baseline repeats not used: {found.refused}")
        progress("reading the saved walk")
        try:
            walk = load_walk(self.walk_path, self.comparison)
        except InputError as damaged:
            problems.append(f"the saved walk could not be read, starting afresh: {damaged}")
            walk = start_walk(self.comparison)
        named, placed = named_cases(steps), placements(self.comparison, steps)
        post_unless_cancelled(self, self.Gathered(steps, walk, problems, named, placed))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(Gathered)
    def _gathered(self, message: Gathered) -> None:
        self.steps, self.walk, self.problems = message.steps, message.walk, message.problems
        self.named, self.placed = message.named, message.placed
        self.current = next(
            (i for i, s in enumerate(self.steps) if message.walk.findings[s.klass].finding is None),
            0,
        )
        steps = self.query_one("#steps", OptionList)
        steps.set_options(self._step_options())
        steps.highlighted = self.current
        self.remove_class("-gathering")
        self.query_one(ProgressLine).finish()
        self._show_header()
        self._show_step()
        steps.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return waiting(self, action)

    @property
    def gathered_walk(self) -> TriageWalk:
        """The walk, read once the evidence is in: the steps that show it and record into it
        arrive with it (`_gathered`); until then there is no step, and the keys wait."""
        assert self.walk is not None, "the walk is read before the evidence arrived"
        return self.walk

    def _step_options(self) -> list[Option]:
        options = [Option(self._step_prompt(i), id=s.klass) for i, s in enumerate(self.steps)]
        return [*options, Option(Text(DECISION_LINE, style="bold"), id="decision")]

    def _step_prompt(self, index: int) -> Text:
        step = self.steps[index]
        finding = self.gathered_walk.findings[step.klass].finding
        prompt = Text(f"{index + 1} ")
        prompt.append("⚑ " if step.suggests_cause else "  ", style="bold yellow")
        prompt.append(TITLES[step.klass] if self.narrow else f"{TITLES[step.klass]:<15}")
        mark = FINDING_MARK[finding]
        # Narrow: the finding on a line of its own, in words as wide, never a bare symbol.
        prompt.append("\n    " if self.narrow else "")
        prompt.append(mark, style="bold" if finding else "dim")
        return prompt

    def _key(self, binding_id: str) -> str:
        return shown_keys(self.app, binding_id, first=True)

    @property
    def narrow(self) -> bool:
        return self.size.width < NARROW

    def on_resize(self) -> None:
        narrow = self.narrow
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            if self.walk is None:
                return  # drawn when the evidence arrives
            self.query_one("#steps", OptionList).set_options(self._step_options())
            self.query_one("#steps", OptionList).highlighted = self.current
            self._show_step()

    def _show_header(self) -> None:
        result = self.comparison.result
        header = Text()
        header.append(f"Triage  {VERDICT_SYMBOL[result.verdict]} ", style="bold")
        header.append_text(literal(summary(result)))
        header.append("\nWalk the classes in order; ⚑ marks evidence that points at a cause.")
        for problem in self.problems:
            header.append("\n")
            header.append_text(literal(problem, style="bold red"))
        self.query_one("#triage-header", Static).update(header)

    def _show_step(self) -> None:
        title = self.query_one("#step-title", Static)
        finding_area = self.query_one("#finding-area")
        cases = self.query_one("#step-cases", OptionList)
        if self.current == len(self.steps):
            title.update(Text(DECISION_LINE))
            self.query_one("#step-summary", Static).update(self._walk_summary())
            self.query_one("#step-facts", Static).update("")
            self.query_one("#cases-title", Static).update(
                Text(f"Press enter (or {self._key('triage-decide')}) to open the decision screen.")
            )
            cases.display = False
            finding_area.display = False
            return
        step = self.steps[self.current]
        found = self.gathered_walk.findings[step.klass]
        title.update(
            Text(f"{self.current + 1} of {len(self.steps)}  {TITLES[step.klass]}")
            + Text("   ⚑ evidence points here" if step.suggests_cause else "", style="yellow")
        )
        self.query_one("#step-summary", Static).update(literal(summary_of(step)))
        self.query_one("#step-facts", Static).update(_facts_table(step, narrow=self.narrow))
        self.query_one("#cases-title", Static).update(
            Text(
                f"cases named ({len(step.cases)}): enter opens one"
                if step.cases
                else "no case named"
            )
        )
        cases.display = bool(step.cases)
        options = [
            Option(
                literal(case)
                + (Text("  ← this class explains it", style="dim") if case in step.explains else "")
            )
            for case in step.cases[:SHOWN]
        ]
        if len(step.cases) > SHOWN:
            more = (
                f"… {len(step.cases) - SHOWN} more: the red-case table "
                f"({self._key('red-cases')} on the overview) lists every case"
            )
            options.append(Option(Text(more, style="dim"), disabled=True))
        cases.set_options(options)
        cases.highlighted = 0 if step.cases else None
        finding_area.display = True
        for name in FINDINGS:
            self.query_one(f"#{name}", Button).set_class(found.finding == name, "-chosen")
        note = self.query_one("#note", Input)
        with note.prevent(Input.Changed):
            note.value = found.note
        self._show_save_state()

    def _show_save_state(self) -> None:
        state = literal(self.saved)
        if self._uncommitted_note() is not None:
            state = Text("note not saved yet: enter saves it", style="italic")
        self.query_one("#save-state", Static).update(state)

    def _walk_summary(self) -> Text:
        lines = Text()
        for step in self.steps:
            found = self.gathered_walk.findings[step.klass]
            lines.append(f"{TITLES[step.klass]:<16}{FINDING_MARK[found.finding]:<13}")
            lines.append_text(literal(found.note, lines=True))
            lines.append("\n")
        cause = self.gathered_walk.cause
        lines.append(
            f"Class found: {cause}" if cause else "No class marked as the cause yet.",
            style="bold",
        )
        return lines

    # ------------------------------------------------------------------ events

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "steps" and event.option_index != self.current:
            self._commit_note()
            self.current = event.option_index
            self._show_step()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == "steps":
            if event.option_index == len(self.steps):
                self.action_decide()
            elif self.steps[self.current].cases:
                self.query_one("#step-cases").focus()
            else:  # nothing to open here: on to the next step, no finding recorded
                self.action_step(1)
        elif event.option_list.id == "step-cases":
            self._open_case(self.steps[self.current].cases[event.option_index])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in FINDINGS:
            self.action_find(event.button.id)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "note":
            self._show_save_state()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._commit_note()
        self.query_one("#steps", OptionList).focus()

    def on_input_blurred(self, event: Input.Blurred) -> None:
        self._commit_note()  # leaving the field commits the note, as enter does

    # ------------------------------------------------------------------ actions

    def action_find(self, finding: Finding) -> None:
        if self.current < len(self.steps):
            klass = self.steps[self.current].klass
            self.undo.append((klass, self.gathered_walk.findings[klass].finding))
            self._record(finding=finding)
            self.post_message(
                Reviewed(Looked("finding_recorded", triage_class=klass, finding=finding))
            )

    def action_undo(self) -> None:
        """Take back the last finding recorded on this screen: its class's finding is again the
        one it replaced, and the step is shown."""
        if self.walk is None or not self.undo:
            self.notify("no finding to undo", timeout=2)
            return
        klass, was = self.undo.pop()
        undone = self.gathered_walk.findings[klass].finding
        index = next(i for i, step in enumerate(self.steps) if step.klass == klass)
        if index != self.current:
            self._commit_note()
            self.current = index
            self.query_one("#steps", OptionList).highlighted = index
            self._show_step()
        self._record(finding=was, undo=True)
        self.post_message(Reviewed(Looked("finding_undone", triage_class=klass, finding=undone)))

    def action_note(self) -> None:
        if self.current < len(self.steps):
            self.query_one("#note", Input).focus()

    def action_step(self, delta: int) -> None:
        steps = self.query_one("#steps", OptionList)
        # from the step highlighted, which keys pressed quickly run ahead of `current`
        here = self.current if steps.highlighted is None else steps.highlighted
        steps.highlighted = max(0, min(len(self.steps), here + delta))

    def action_decide(self) -> None:
        from flipgate.tui.screens.decision import DecisionScreen

        if self.walk is None:
            return
        self._commit_note()
        self.app.push_screen(
            DecisionScreen(
                self.comparison,
                self.walk,
                self.workspace,
                cases=self.named,
                placed=self.placed,
                log=log_of(self.app),
            )
        )

    def action_back(self) -> None:
        self._commit_note()
        self.dismiss(None)

    def _open_case(self, case: str) -> None:
        # Imported here: the drill-down is its own screen module, loaded when first used.
        from flipgate.tui.screens.case import push_case

        cases = self.steps[self.current].cases
        push_case(self.app, self.comparison, case, cases, self._back_from_case)

    def _back_from_case(self, case: str | None) -> None:
        cases = self.steps[self.current].cases if self.current < len(self.steps) else ()
        if case in cases[:SHOWN]:
            self.query_one("#step-cases", OptionList).highlighted = cases.index(case)

    def shown_table(self) -> Shown | None:
        """The step's cases, every one (the list shows the first `SHOWN`), and whether this
        class explains each."""
        if self.current >= len(self.steps):
            return None
        step = self.steps[self.current]
        explained = set(step.explains)
        rows = ((case, "yes" if case in explained else "") for case in step.cases)
        header = ("case", f"explained by {TITLES[step.klass].lower()}")
        return Shown(f"triage-{step.klass.replace('_', '-')}", frame_of(header, rows))

    def _uncommitted_note(self) -> str | None:
        """The note typed for the current class, when it differs from the one in the walk."""
        if self.walk is None or self.current >= len(self.steps):
            return None
        typed = self.query_one("#note", Input).value
        return None if typed == self.walk.findings[self.steps[self.current].klass].note else typed

    def _commit_note(self) -> None:
        note = self._uncommitted_note()
        if note is not None:
            self._record(note=note)

    def _record(
        self, *, finding: Finding | None = None, note: str | None = None, undo: bool = False
    ) -> None:
        """Record in the current step a finding (or, `undo`, the finding it had before, None
        included) and a note."""
        step = self.steps[self.current]
        kept: Finding | Literal[False] | None = finding if undo else finding or False
        walk = self.gathered_walk.record(step.klass, finding=kept, note=note)
        self.walk = self._save(walk)
        steps = self.query_one("#steps", OptionList)
        steps.replace_option_prompt_at_index(self.current, self._step_prompt(self.current))
        if finding is not None or undo:
            for name in FINDINGS:
                self.query_one(f"#{name}", Button).set_class(finding == name, "-chosen")
        self._show_save_state()

    def _save(self, walk: TriageWalk) -> TriageWalk:
        try:
            stamped = save_walk(self.walk_path, walk)
        except (InputError, OSError) as failed:
            message = f"not saved: {failed}"
            if message != self.saved:
                self.notify(str(failed), title="The walk was not saved", severity="error")
            self.saved = message
            return walk
        self.saved = f"saved to {self.walk_path}"
        return stamped


def _facts_table(step: TriageStep, *, narrow: bool) -> Table:
    """The step's facts as two columns, values wrapping beside their label. The labels' column
    is as wide as their longest word (a rule's name such as `recalled_products`), within
    bounds, so that a name is broken mid-word only past the bound."""
    lines = [fact_line(fact) for fact in step.facts[:FACTS_SHOWN]]
    longest = max((len(word) for label, _ in lines for word in label.split()), default=0)
    least, most = (14, 22) if narrow else (24, 32)
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", max_width=min(max(longest, least), most), overflow="fold")
    table.add_column(ratio=1, overflow="fold")
    for label, value in lines:
        table.add_row(literal(label), Unparted(literal(value)))
    if len(step.facts) > FACTS_SHOWN:
        more = len(step.facts) - FACTS_SHOWN
        table.add_row("…", Text(f"{more} more like these", style="dim"))
    return table
