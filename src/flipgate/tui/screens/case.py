"""The drill-down of one red case: its decisions rule by rule, the outputs of the repetition in
focus (or their diff), second metrics and extra fields; next/previous red case without going back.

The screen dismisses with the case it shows last, so the red-case table can put its cursor there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from flipgate.core.gate.compare import Comparison
from flipgate.core.vocab import ARMS
from flipgate.present.casefile import REP_SYMBOLS, CaseDetail, case_detail
from flipgate.tui.bindings import bindings_for
from flipgate.tui.format import literal, passed_word
from flipgate.tui.widgets.case_format import Palette, rep_pattern
from flipgate.tui.widgets.decisions import DecisionsView
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.outputs import MODES, Mode, OutputsView, RepFacts

NARROW = 100  # below this many columns the two outputs stack


class CaseScreen(Screen[str]):
    """One case of the comparison; `cases` is the ordered list that n/p walk through."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("case")
    DEFAULT_CSS = """
    CaseScreen #case-header { height: auto; padding: 0 1; background: $boost; }
    CaseScreen #case-body { height: 1fr; }
    CaseScreen .section {
        height: auto; border-top: solid $panel; border-title-color: $text-muted; margin-top: 1;
    }
    """

    def __init__(self, comparison: Comparison, case: str, cases: Sequence[str] = ()) -> None:
        super().__init__()
        self.comparison = comparison
        self.cases: tuple[str, ...] = tuple(cases) or (case,)
        self.detail: CaseDetail = case_detail(comparison, case)
        self.focus_rep = self._first_interesting_rep()
        self.mode: Mode = "outputs"

    def compose(self) -> ComposeResult:
        yield Static(id="case-header")
        with VerticalScroll(id="case-body"):
            yield DecisionsView(id="decisions", classes="section")
            yield OutputsView(id="outputs", classes="section")
            yield RepFacts(id="facts", classes="section")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#decisions").border_title = "decisions and checks"
        self.query_one("#facts").border_title = "second metrics and extra fields"
        self._show()

    def on_resize(self, event: events.Resize) -> None:
        self.query_one(OutputsView).set_class(event.size.width < NARROW, "narrow")

    # --------------------------------------------------------------------- drawing

    def _first_interesting_rep(self) -> int:
        """Open on the first repetition where the arms disagree, else the first."""
        for i in range(len(self.detail.reps)):
            base, cand = (self.detail.rep(arm, i) for arm in ARMS)
            if (base.passed if base else None) != (cand.passed if cand else None):
                return i
        return 0

    def _header(self) -> Text:
        detail, palette = self.detail, Palette.of(self.app)
        out = Text()
        out.append("case ", palette.muted)
        out.append_text(literal(detail.case, "bold"))
        out.append("  ")
        out.append(detail.direction, palette.direction(detail.direction))
        if detail.safety:
            out.append("  safety", palette.warn)
        if detail.listed:
            out.append("  flaky listed", palette.warn)
        if detail.template:
            out.append("  template ", palette.muted)
            out.append_text(literal(detail.template))
        position = self.cases.index(detail.case) + 1 if detail.case in self.cases else 0
        out.append(f"   case {position} of {len(self.cases)}", palette.muted)
        out.append("\n")
        for arm in ARMS:
            pattern = "".join(REP_SYMBOLS[r.passed] if r else " " for r in detail.arms[arm])
            out.append(f"{arm} ", palette.muted)
            out.append_text(rep_pattern(pattern, palette))
            out.append(f" = {passed_word(detail.collapsed[arm])}   ")
        rep_no = detail.reps[self.focus_rep] if detail.reps else 0
        out.append(f"rep {rep_no} ({self.focus_rep + 1} of {len(detail.reps)})", palette.muted)
        if detail.unpaired:
            out.append(f"\nunpaired: {detail.unpaired} (not counted in the flips)", palette.warn)
        return out

    def _show(self) -> None:
        self.query_one("#case-header", Static).update(self._header())
        if not self.detail.reps:
            return
        self.query_one(DecisionsView).show(self.detail, self.focus_rep)
        outputs = self.query_one(OutputsView)
        outputs.border_title = (
            f"outputs of rep {self.detail.reps[self.focus_rep]}  ([ ] rep, d diff)"
        )
        outputs.show(self.detail, self.focus_rep, self.mode)
        self.query_one(RepFacts).show(self.detail, self.focus_rep)

    # --------------------------------------------------------------------- actions

    def action_back(self) -> None:
        self.dismiss(self.detail.case)

    def action_next_rep(self) -> None:
        self._move_rep(1)

    def action_previous_rep(self) -> None:
        self._move_rep(-1)

    def _move_rep(self, step: int) -> None:
        if self.detail.reps:
            self.focus_rep = (self.focus_rep + step) % len(self.detail.reps)
            self._show()

    def action_cycle_diff(self) -> None:
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self._show()

    def action_next_case(self) -> None:
        self._move_case(1)

    def action_previous_case(self) -> None:
        self._move_case(-1)

    def _move_case(self, step: int) -> None:
        here = self.cases.index(self.detail.case) if self.detail.case in self.cases else -1
        target = here + step
        if not 0 <= target < len(self.cases):
            self.notify("no more red cases this way", timeout=2)
            return
        self.detail = case_detail(self.comparison, self.cases[target])
        self.focus_rep = self._first_interesting_rep()
        self.query_one("#case-body", VerticalScroll).scroll_home(animate=False)
        self._show()
