"""The drill-down of one red case: its decisions rule by rule with their reasons, what the agent
did in the repetition in focus (both trajectories side by side, opened on the first turn where they
diverge), the outputs (or their diff), second metrics and extra fields; next/previous red case
without going back. Long trajectories are aligned in a worker, the progress shown under the header.

The screen dismisses with the case it shows last, so the red-case table can put its cursor there.
It says what the reviewer looked at (`Reviewed`): each case opened, repetition shown, outputs view
and turn unfolded or diffed, for the review log a decision signs; `replaying` opens it where a
logged step left it (`flipgate replay`), and then it records nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from flipgate.core.decision.review_log import Looked
from flipgate.core.vocab import ARMS, ReviewEvent
from flipgate.present.casefile import REP_SYMBOLS, CaseDetail, case_detail
from flipgate.present.decision import looked_words
from flipgate.present.trajectory import Alignment, Ending, Wobble, align, parse_turns
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for
from flipgate.tui.collector import building
from flipgate.tui.format import literal, passed_word
from flipgate.tui.messages import Progress, Steps, post_unless_cancelled
from flipgate.tui.review import Reviewed
from flipgate.tui.widgets.case_format import Palette, rep_pattern
from flipgate.tui.widgets.decisions import DecisionsView
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.outputs import MODES, Mode, OutputsView, RepFacts
from flipgate.tui.widgets.progress_line import ProgressLine
from flipgate.tui.widgets.trajectory import (
    BIG_TRAJECTORY,
    DIVERGENCE_MARK,
    Drawn,
    TrajectoryView,
    draw,
)

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

    @dataclass
    class Aligned(Message, bubble=False):
        """A long trajectory aligned and laid out in a worker, for repetition `rep` of `case`."""

        case: str
        rep: int
        drawn: Drawn

    @dataclass
    class Wobbled(Message, bubble=False):
        """A long trajectory's repetitions compared (after `Aligned`), for `case`."""

        case: str
        wobble: Wobble

    def __init__(
        self,
        comparison: Comparison,
        case: str,
        cases: Sequence[str] = (),
        *,
        replaying: Looked | None = None,
    ) -> None:
        super().__init__()
        self.comparison = comparison
        self.cases: tuple[str, ...] = tuple(cases) or (case,)
        self.detail: CaseDetail = case_detail(comparison, case)
        self.focus_rep = self._first_interesting_rep()
        self.mode: Mode = "outputs"
        self.alignment: Alignment | None = None  # the trajectories of the repetition in focus
        self.wobble: Wobble | None = None  # where the arms part, beside each arm's own parting
        self.scroll_pending = False  # turns aligned in a worker, not yet laid out to scroll to
        self.replaying = replaying
        if replaying is not None:
            self._replay_position(replaying)

    def compose(self) -> ComposeResult:
        yield Static(id="case-header")
        yield ProgressLine()
        with VerticalScroll(id="case-body"):
            yield DecisionsView(id="decisions", classes="section")
            yield TrajectoryView(id="trajectory", classes="section")
            yield OutputsView(id="outputs", classes="section")
            yield RepFacts(id="facts", classes="section")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#facts").border_title = "second metrics and extra fields"
        body = self.query_one("#case-body", VerticalScroll)
        self.watch(body, "virtual_size", lambda _size: self._body_grown(), init=False)
        self._show()
        self._opened()
        if self.replaying is not None:
            self.call_after_refresh(self._replay_view, self.replaying)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    # --------------------------------------------------------------------- the review log

    @property
    def rep_no(self) -> int | None:
        return self.detail.reps[self.focus_rep] if self.detail.reps else None

    def _looked(
        self,
        event: ReviewEvent,
        *,
        rep: int | None = None,
        view: str | None = None,
        turn: int | None = None,
    ) -> None:
        """Say what the reviewer looked at in the case in focus (nothing while replaying)."""
        if self.replaying is None:
            looked = Looked(event, case=self.detail.case, rep=rep, view=view, turn=turn)
            self.post_message(Reviewed(looked))

    def _opened(self) -> None:
        self._looked("case_opened", rep=self.rep_no)

    def _turn_looked(self, trajectory: TrajectoryView, view: str) -> None:
        self._looked("turn_viewed", rep=self.rep_no, turn=trajectory.cursor + 1, view=view)

    def _replay_position(self, step: Looked) -> None:
        """The repetition and outputs view a logged step shows."""
        if step.rep is not None and step.rep in self.detail.reps:
            self.focus_rep = self.detail.reps.index(step.rep)
        if step.event == "outputs_viewed" and step.view in MODES:
            self.mode = step.view

    def _replay_view(self, step: Looked) -> None:
        """What a logged step looked at brought on screen: the outputs in its view, or its turn
        unfolded or diffed as it was."""
        trajectory = self.query_one(TrajectoryView)
        if step.turn is None or self.alignment is None:
            if step.event == "outputs_viewed":
                body = self.query_one("#case-body", VerticalScroll)
                outputs = self.query_one(OutputsView)
                body.scroll_to_widget(outputs, animate=False, top=True, immediate=True)
            return
        trajectory.move(step.turn - 1 - trajectory.cursor)
        if step.view == "unfold":
            trajectory.toggle_fold()
        elif step.view == "diff":
            trajectory.toggle_diff()
        self._scroll_to_turn()

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
        """The case's facts, each part set off by a dot so that no two run together; under them
        the sentence that says where the trajectories fork."""
        detail, palette = self.detail, Palette.of(self.app)
        dot = Text(" · ", style=palette.muted)
        first = [
            literal(detail.case, "bold"),
            Text(detail.direction, palette.direction(detail.kind)),
        ]
        if detail.safety:
            first.append(Text("safety case", palette.warn))
        if detail.listed:
            first.append(Text("flaky listed", palette.warn))
        if detail.template:
            first.append(Text.assemble(("template ", palette.muted), literal(detail.template)))
        position = self.cases.index(detail.case) + 1 if detail.case in self.cases else 0
        first.append(Text(f"case {position} of {len(self.cases)}", palette.muted))
        if detail.reps:
            rep_no, count = detail.reps[self.focus_rep], len(detail.reps)
            first.append(
                Text(f"showing rep {rep_no} ({self.focus_rep + 1} of {count})", palette.muted)
            )
        second = []
        for arm in ARMS:
            pattern = "".join(REP_SYMBOLS[r.passed] if r else " " for r in detail.arms[arm])
            part = Text.assemble((f"{arm}: reps ", palette.muted), rep_pattern(pattern, palette))
            part.append(f" → case {passed_word(detail.collapsed[arm])}")
            second.append(part)
        out = Text("case ", style=palette.muted)
        out.append_text(dot.join(first))
        out.append("\n")
        out.append_text(dot.join(second))
        if detail.unpaired:
            out.append(f"\nunpaired: {detail.unpaired} (not counted in the flips)", palette.warn)
        if self.replaying is not None:
            out.append("\nreplaying, read-only: ", palette.warn)
            out.append_text(literal(looked_words(self.replaying)))
        if self.alignment is not None:
            marked = self.alignment.divergence is not None
            out.append(f"\n{DIVERGENCE_MARK if marked else '='} ", palette.warn)
            out.append_text(literal(self.alignment.summary))
        if self.wobble is not None:
            out.append("\n  ", palette.muted)
            out.append_text(literal(self.wobble.said(), palette.muted))
        return out

    def _show(self) -> None:
        """A new case or repetition: its trajectories open on the first divergent turn (aligned
        in a worker when they are long)."""
        self.workers.cancel_group(self, "align")
        self.query_one(ProgressLine).finish()
        has_turns = bool(self.detail.reps) and self.detail.has_trajectories
        trajectory = self.query_one(TrajectoryView)
        trajectory.display = has_turns
        self.alignment = None
        self.wobble = None
        if has_turns:
            keys = "j k turn, enter unfold, D diff, g first divergence"
            rep_no = self.detail.reps[self.focus_rep]
            trajectory.border_title = f"trajectories of rep {rep_no}  ({keys})"
            messages = self.detail.messages(self.focus_rep)
            size = sum(len(m or "") for m in messages)
            if size <= BIG_TRAJECTORY:
                self.alignment = self.detail.trajectory(self.focus_rep)
                self.wobble = self.detail.wobble()
                trajectory.show(self.alignment)
                self.call_after_refresh(self._scroll_to_turn)
            else:
                trajectory.wait(f"aligning {size / 1e6:,.1f} MB of turns …")
                # started once the view is laid out: the rows are counted at its width
                self.call_after_refresh(self._start_aligning, messages)
        self._draw()

    def _start_aligning(self, messages: tuple[str | None, str | None]) -> None:
        trajectory = self.query_one(TrajectoryView)
        # The rows are counted at each width the turns may take: the layout tries them without
        # the body's scrollbar, then, as they overflow it, with it (counting them again on the
        # event loop is what stalls it)
        body = self.query_one("#case-body", VerticalScroll)
        width = trajectory.turns.size.width
        bar = body.styles.scrollbar_size_vertical
        widths = (width, width - bar) if not body.show_vertical_scrollbar else (width, width + bar)
        self._align_in_worker(
            self.detail.case,
            self.focus_rep,
            messages,
            self.detail.endings(self.focus_rep),
            Palette.of(self.app),
            trajectory.diff,
            widths,
            self.detail.wobble,
        )

    @work(thread=True, exclusive=True, group="align")
    def _align_in_worker(
        self,
        case: str,
        rep: int,
        messages: tuple[str | None, str | None],
        endings: dict[str, Ending],
        palette: Palette,
        diff: bool,
        widths: tuple[int, int],
        compare_reps: Callable[[], Wobble],
    ) -> None:
        """Parse, align, build and count the rows of both trajectories: seconds for 50,000 turns
        an arm, every step of them off the event loop."""
        step = Steps(self, 4)
        with building():
            step("reading the turns of both arms")
            base, cand = (parse_turns(m) for m in messages)
            step(f"aligning {len(base):,} baseline and {len(cand):,} candidate turns")
            alignment = align(base, cand, endings)
            step(f"laying out {len(alignment.pairs):,} pairs of turns")
            drawn = draw(alignment, unfolded=set(), diff=diff, palette=palette, widths=widths)
        post_unless_cancelled(self, self.Aligned(case, rep, drawn))
        step("comparing where the arms part with where each arm's own repetitions part")
        with building():
            wobbled = compare_reps()
        post_unless_cancelled(self, self.Wobbled(case, wobbled))

    def on_progress(self, message: Progress) -> None:
        self.query_one(ProgressLine).show(message)

    @on(Aligned)
    def _aligned(self, message: Aligned) -> None:
        if (message.case, message.rep) != (self.detail.case, self.focus_rep):
            return  # another case or repetition is shown now
        self.query_one(ProgressLine).finish()
        self.alignment = message.drawn.alignment
        self.query_one(TrajectoryView).show_drawn(message.drawn)
        self.query_one("#case-header", Static).update(self._header())
        self.scroll_pending = True  # once the body has grown to hold the turns: `_body_grown`

    @on(Wobbled)
    def _wobbled(self, message: Wobbled) -> None:
        if message.case != self.detail.case:
            return
        self.query_one(ProgressLine).finish()
        self.wobble = message.wobble
        self.query_one("#case-header", Static).update(self._header())

    def _body_grown(self) -> None:
        if self.scroll_pending:
            self.scroll_pending = False
            self.call_after_refresh(self._scroll_to_turn)

    def _draw(self) -> None:
        """What is coloured from the theme, for the repetition in focus (again when it changes)."""
        self.query_one("#case-header", Static).update(self._header())
        if not self.detail.reps:
            return
        self.query_one(DecisionsView).show(self.detail, self.focus_rep)
        self._show_outputs()
        self.query_one(RepFacts).show(self.detail, self.focus_rep)

    def _restyle(self) -> None:
        """Another theme: everything drawn again in its colours, the turn and the fold kept."""
        self._draw()
        if self.alignment is not None:
            self.query_one(TrajectoryView).redraw()

    def _show_outputs(self) -> None:
        outputs = self.query_one(OutputsView)
        outputs.border_title = (
            f"outputs of rep {self.detail.reps[self.focus_rep]}  ([ ] rep, d diff)"
        )
        outputs.show(self.detail, self.focus_rep, self.mode)

    def _scroll_to_turn(self) -> None:
        """Bring the turn under the cursor to the top of the body, the trajectory's title above it
        when both fit."""
        body = self.query_one("#case-body", VerticalScroll)
        trajectory = self.query_one(TrajectoryView)
        top, height = trajectory.cursor_offset()
        turns = trajectory.turns.region
        inside = body.scroll_offset - body.content_region.offset
        row = Region(turns.x, turns.y + top, turns.width, height).translate(inside)
        title = trajectory.region.translate(inside)
        if row.bottom - title.y <= body.content_region.height:
            row = row.union(title)
        body.scroll_to_region(row, animate=False, top=True, immediate=True)

    # --------------------------------------------------------------------- actions

    def action_back(self) -> None:
        self.dismiss(self.detail.case)

    def action_next_rep(self) -> None:
        self._move_rep(1)

    def action_previous_rep(self) -> None:
        self._move_rep(-1)

    def _move_rep(self, step: int) -> None:
        if len(self.detail.reps) > 1:  # one repetition: nothing else to show, nor to log
            self.focus_rep = (self.focus_rep + step) % len(self.detail.reps)
            self._show()
            self._looked("rep_viewed", rep=self.rep_no)

    def _trajectory(self) -> TrajectoryView | None:
        trajectory = self.query_one(TrajectoryView)
        if not trajectory.display:
            self.notify("no trajectory stored for this case", timeout=2)
            return None
        return trajectory

    def action_move_turn(self, step: int) -> None:
        if trajectory := self._trajectory():
            trajectory.move(step)
            self._scroll_to_turn()

    def action_first_divergence(self) -> None:
        if trajectory := self._trajectory():
            trajectory.go_to_divergence()
            self._scroll_to_turn()
            self._turn_looked(trajectory, "divergence")

    def action_unfold_turn(self) -> None:
        if not (trajectory := self._trajectory()):
            return
        if not trajectory.toggle_fold():
            self.notify("this turn is shown whole", timeout=2)
        elif trajectory.cursor in trajectory.unfolded:
            self._turn_looked(trajectory, "unfold")

    def action_turn_diff(self) -> None:
        if trajectory := self._trajectory():
            trajectory.toggle_diff()
            if trajectory.diff:
                self._turn_looked(trajectory, "diff")

    def action_cycle_diff(self) -> None:
        """The outputs' next view, brought on screen; the trajectories keep their state."""
        if not self.detail.reps:
            return
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        self._show_outputs()
        outputs = self.query_one(OutputsView)
        self.call_after_refresh(outputs.scroll_visible, animate=False, top=True)
        self._looked("outputs_viewed", rep=self.rep_no, view=self.mode)

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
        self._opened()
