"""A signed decision's review log walked again (`flipgate replay`), read-only.

The steps are listed with their times; enter (or `]`, `[`: the next or previous step) shows one:
a case step opens the drill-down where the reviewer was (the case, the repetition, the outputs'
view, the turn unfolded or diffed), and escape comes back to the list; a finding step is said on
the list. The app records nothing while replaying, and nothing here writes a file.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import polars as pl
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from flipgate.core.decision.record import DecisionRecord
from flipgate.core.decision.review_log import Looked, opened, reviewed_cases
from flipgate.core.plural import plural
from flipgate.present.decision import looked_words, rule_words
from flipgate.present.reasons.words import when
from flipgate.present.triage import TITLES
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal
from flipgate.tui.widgets.key_bar import KeyBar


class ReplayScreen(Screen[None]):
    """The review log of `record` (the decision at `path`), over the runs it was made on."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("replay")
    DEFAULT_CSS = """
    ReplayScreen #replay-header { height: auto; padding: 0 1; background: $boost; }
    ReplayScreen #replay-steps { height: 1fr; border: none; }
    """

    def __init__(self, comparison: Comparison, record: DecisionRecord, path: Path) -> None:
        super().__init__()
        self.comparison = comparison
        self.record = record
        self.path = path
        self.steps: tuple[Looked, ...] = record.review_log or ()
        logged = opened(self.steps)
        known = set(comparison.cases.filter(pl.col("case").is_in(logged))["case"].to_list())
        self.cases = tuple(case for case in logged if case in known)  # n and p walk these
        self.shown: int | None = None  # the step shown last

    def compose(self) -> ComposeResult:
        yield Static(self._header(), id="replay-header")
        yield OptionList(*self._options(), id="replay-steps")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _header(self) -> Text:
        record = self.record
        reviewed, added = reviewed_cases(self.steps)
        text = Text("Replay, read-only: ", style="bold")
        text.append_text(literal(self.path))
        text.append("\n")
        text.append_text(
            literal(
                f"{record.decision} (class found: {TITLES[record.cause]}) by "
                f"{record.reviewer.name} <{record.reviewer.email}> at {when(record.created)}; "
                f"gate said {record.gate.verdict}"
            )
        )
        text.append("\n")
        text.append_text(literal(rule_words(record.registration)))
        text.append(
            f"\n{plural(len(self.steps), 'step')}; {plural(len(reviewed), 'case')} reviewed, "
            f"{len(added)} of them added by hand. enter shows a step: a case opens where the "
            "reviewer was, escape comes back",
            style="dim",
        )
        if self.comparison.result.spec_digest != record.gate.spec_digest:
            text.append(
                "\nthe gate spec is not the one the decision was made under: the drill-down "
                "shows each case's decisions under today's",
                style="bold yellow",
            )
        return text

    def _options(self) -> list[Option]:
        width = len(str(len(self.steps)))
        return [
            Option(
                Text.assemble(
                    (f"{i:>{width}}  {step.at.strftime('%H:%M:%S')}  ", "dim"),
                    literal(looked_words(step)),
                )
            )
            for i, step in enumerate(self.steps, 1)
        ]

    # ------------------------------------------------------------------ walking it

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.show_step(event.option_index)

    def action_step(self, delta: int) -> None:
        """The step after (or before) the one shown last; the first, when none was."""
        if not self.steps:
            return
        target = 0 if self.shown is None else self.shown + delta
        self.query_one(OptionList).highlighted = target = max(0, min(len(self.steps) - 1, target))
        self.show_step(target)

    def show_step(self, index: int) -> None:
        """A case step opens the drill-down as the reviewer saw it; any other is said here."""
        from flipgate.tui.screens.case import push_case

        self.shown, step = index, self.steps[index]
        if step.case is None or step.event in ("case_added", "case_removed"):
            self.notify(looked_words(step), title=f"step {index + 1}", markup=False, timeout=3)
            return
        if step.case not in self.cases:
            self.notify(f"case {step.case} is in neither run now", markup=False, timeout=3)
            return
        push_case(self.app, self.comparison, step.case, self.cases, replaying=step)
