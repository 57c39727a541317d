"""The drill-down of one case, leading with the cause: under the case's facts, pinned, the rule
that failed in the repetition in focus with its check and the grader's reason (and where the
trajectories fork); then the input the model judged, every decision and check rule by rule (the
failing rules first), the outputs (or their diff), both trajectories side by side, second metrics
and extra fields. Long text is folded until `enter` expands it; `o` opens it in the pager. In a
big comparison the case is looked up in a worker, and long trajectories are aligned in one, the
progress shown under the header.

The screen dismisses with the case it shows last, so the case list can put its cursor there.
It says what the reviewer looked at (`Reviewed`): each case opened, repetition shown, outputs view
and turn unfolded or diffed, for the review log a decision signs; `replaying` opens it where a
logged step left it (`flipgate replay`), and then it records nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from flipgate.core.decision.review_log import Looked
from flipgate.core.errors import InputError
from flipgate.core.vocab import ARMS, ReviewEvent
from flipgate.present.casefile import REP_SYMBOLS, CaseDetail, case_detail
from flipgate.present.cause import Folded, cause, fold, fold_note, judged_input
from flipgate.present.decision import looked_words
from flipgate.present.glossary import CASE_TERMS
from flipgate.present.trajectory import Alignment, Ending, Wobble, align, parse_turns
from flipgate.session import Comparison
from flipgate.tui.bindings import bindings_for, shown_keys
from flipgate.tui.collector import building
from flipgate.tui.format import literal, passed_word
from flipgate.tui.messages import BIG_COMPARISON, Progress, Steps, post_unless_cancelled
from flipgate.tui.reach import Focused
from flipgate.tui.review import Reviewed
from flipgate.tui.screens.repetitions import RepetitionsScreen
from flipgate.tui.widgets.case_format import Palette, rep_pattern
from flipgate.tui.widgets.decisions import DecisionsView, verdict_cell
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.lines import LinesView
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
REASON_FOLD = (3, 320)  # lines, characters of the pinned reason before it folds
INPUT_FOLD = (8, 800)


class Part(Static, can_focus=True):
    """A part of the case that `y` copies, `o` opens and `enter` expands when folded."""


def push_case(
    app: App[Any],
    comparison: Comparison,
    case: str,
    cases: Sequence[str] = (),
    back: Callable[[str | None], None] | None = None,
    *,
    replaying: Looked | None = None,
) -> None:
    """The drill-down of `case`; a message instead where its texts cannot be read (a run's file
    changed on disk since it was read: never another run's texts)."""
    try:
        screen = CaseScreen(comparison, case, cases, replaying=replaying)
    except InputError as error:
        app.notify(str(error), title="case", severity="error", markup=False)
        return
    app.push_screen(screen, back)


class CaseScreen(Screen[str]):
    """One case of the comparison; `cases` is the ordered list that n/p walk through."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("case")
    TERMS = CASE_TERMS
    DEFAULT_CSS = """
    CaseScreen #case-header { height: auto; padding: 0 1; background: $boost; }
    CaseScreen #cause { height: auto; max-height: 50%; padding: 0 1; background: $boost;
        border-bottom: solid $panel; }
    CaseScreen #case-body { height: 1fr; }
    CaseScreen .section {
        height: auto; border-top: solid $panel; border-title-color: $text-muted; margin-top: 1;
    }
    CaseScreen #input { padding: 0 1; }
    CaseScreen Part:focus, CaseScreen LinesView:focus { background: $boost; }
    """

    @dataclass
    class LookedUp(Message, bubble=False):
        """A case of a big comparison looked up in a worker; `opening`: the screen's first."""

        detail: CaseDetail
        opening: bool

    @dataclass
    class Refused(Message, bubble=False):
        """A case of a big comparison that could not be looked up: the error, said."""

        error: str

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
        self.case = case  # the case shown, or being looked up
        self._detail: CaseDetail | None = None
        self.focus_rep = 0
        self.mode: Mode = "outputs"
        self.alignment: Alignment | None = None  # the trajectories of the repetition in focus
        self.expanded: set[str] = set()  # the folded parts shown whole: cause, input, an arm
        self.wobble: Wobble | None = None  # where the arms part, beside each arm's own parting
        self.scroll_pending = False  # a replayed turn aligned in a worker, not yet laid out
        self.replaying = replaying
        # a case's rows found in every frame of both arms: 110 ms at a million cases, at rest
        if comparison.cases.height <= BIG_COMPARISON:
            self.detail = case_detail(comparison, case)

    @property
    def detail(self) -> CaseDetail:
        """The case shown; an action waits until it is looked up (`check_action`)."""
        assert self._detail is not None, "the case is drawn once it is looked up"
        return self._detail

    @detail.setter
    def detail(self, detail: CaseDetail) -> None:
        """A case to show, its repetition in focus the first where the arms disagree."""
        self._detail, self.case = detail, detail.case
        self.focus_rep = self._first_interesting_rep()

    def compose(self) -> ComposeResult:
        yield Static(id="case-header")
        yield ProgressLine()
        yield Part(id="cause")
        with VerticalScroll(id="case-body"):
            yield Part(id="input", classes="section")
            yield DecisionsView(id="decisions", classes="section")
            yield OutputsView(id="outputs", classes="section")
            yield TrajectoryView(id="trajectory", classes="section")
            yield RepFacts(id="facts", classes="section")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#facts").border_title = "second metrics and extra fields"
        body = self.query_one("#case-body", VerticalScroll)
        self.watch(body, "virtual_size", lambda _size: self._body_grown(), init=False)
        self.query_one("#cause").focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        if self._detail is None:
            self._look_up(self.case, opening=True)
        else:
            self._shown(opening=True)

    def _shown(self, *, opening: bool) -> None:
        """The case drawn once it is at hand, and said to be opened; the screen's first where a
        replayed step left it."""
        replayed = self.replaying if opening else None
        if replayed is not None:
            self._replay_position(replayed)
        self._show()
        self._opened()
        if replayed is not None:
            self.call_after_refresh(self._replay_view, replayed)

    def _look_up(self, case: str, *, opening: bool) -> None:
        """Draw `case` once a worker has found its rows; meanwhile the header names it and the
        body is hidden, the old case's if any."""
        self._detail = None
        self.case = case
        self.workers.cancel_group(self, "align")
        self.query_one("#case-header", Static).update(
            Text.assemble(("case ", Palette.of(self.app).muted), literal(case, "bold"))
        )
        self.query_one("#cause", Part).update("")
        self.query_one("#case-body").display = False
        self._detail_in_worker(case, opening)

    @work(thread=True, exclusive=True, group="look-up", description="look up")
    def _detail_in_worker(self, case: str, opening: bool) -> None:
        Steps(self, 1)(f"finding the rows of {case} among {self.comparison.cases.height:,} cases")
        try:
            detail = case_detail(self.comparison, case)
        except InputError as error:  # as `push_case`
            post_unless_cancelled(self, self.Refused(str(error)))
            return
        post_unless_cancelled(self, self.LookedUp(detail, opening))

    @on(Refused)
    def _refused(self, message: Refused) -> None:
        """A case whose texts cannot be read (its run's file changed): said, and the screen left,
        its body already hidden."""
        self.notify(message.error, title="case", severity="error", markup=False)
        self.dismiss(self.case)

    @on(LookedUp)
    def _looked_up(self, message: LookedUp) -> None:
        if message.detail.case != self.case:
            return  # another case was asked for since
        self.query_one(ProgressLine).finish()
        self.query_one("#case-body").display = True
        self.detail = message.detail
        self._shown(opening=message.opening)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Until the case is looked up its keys (but back) are shown dimmed and wait."""
        return None if self._detail is None and action != "back" else True

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
        """The case's facts, each part set off by a dot so that no two run together."""
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
        return out

    def _folded(self, part: str, text: str, size: tuple[int, int]) -> Folded:
        lines, chars = size
        return Folded(text, 0) if part in self.expanded else fold(text, lines=lines, chars=chars)

    def _note(self, folded: Folded, palette: Palette) -> Text:
        expand = shown_keys(self.app, "turn-unfold", first=True)
        pager = shown_keys(self.app, "open-text", first=True)
        return Text(fold_note(folded.hidden, expand, pager), palette.muted)

    def _cause(self) -> Text:
        """The failing rule of the repetition in focus, its check, the grader's reason, and
        where the trajectories fork."""
        detail, palette = self.detail, Palette.of(self.app)
        out = Text()
        found = cause(detail, self.focus_rep) if detail.reps else None
        if found is None:
            rep = f"rep {detail.reps[self.focus_rep]}" if detail.reps else "any repetition"
            out.append(f"nothing wrong in {rep}", palette.muted)
            others = [i for i in range(len(detail.reps)) if cause(detail, i) is not None]
            if others:
                keys = shown_keys(self.app, "rep-next", first=True)
                out.append(
                    f" · wrong in rep {detail.reps[others[0]]} ({keys} moves)", palette.muted
                )
        else:
            line = found.line
            out.append_text(verdict_cell(found.verdict, False, palette))
            out.append("  ")
            out.append_text(literal(line.rule, "bold"))
            out.append(f"  {line.kind}", palette.muted)
            expected = "pass" if line.kind == "check" else line.expected
            out.append(f" · expected {expected} · {found.arm} rep {found.rep}", palette.muted)
            out.append(f" · {found.other_arm}: ", palette.muted)
            out.append_text(verdict_cell(found.other, False, palette))
            reason = found.verdict.reason or ""
            out.append("\nreason  ", palette.muted)
            if not reason:
                out.append("none given", palette.muted)
            else:
                folded = self._folded("cause", reason, REASON_FOLD)
                out.append_text(literal(folded.kept, lines=True))
                if not folded.whole:
                    out.append("\n")
                    out.append_text(self._note(folded, palette))
        if self.alignment is not None:
            marked = self.alignment.divergence is not None
            out.append(f"\n{DIVERGENCE_MARK if marked else '='} ", palette.warn)
            out.append_text(literal(self.alignment.summary))
        if self.wobble is not None:
            out.append("\n  ", palette.muted)
            out.append_text(literal(self.wobble.said(), palette.muted))
        return out

    def _input(self) -> Text | None:
        found = judged_input(self.detail, self.focus_rep) if self.detail.reps else None
        if found is None:
            return None
        name, text = found
        palette = Palette.of(self.app)
        folded = self._folded("input", text, INPUT_FOLD)
        out = literal(folded.kept, lines=True)
        if not folded.whole:
            out.append("\n")
            out.append_text(self._note(folded, palette))
        self.query_one("#input").border_title = f"the input the model judged ({name})"
        return out

    def _show(self) -> None:
        """A new case or repetition: its trajectories' cursor on the first divergent turn (aligned
        in a worker when they are long), the body at its top (the cause and the input lead; `g`
        goes to the divergence)."""
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

    @work(thread=True, exclusive=True, group="align", description="align")
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
        self.query_one("#cause", Part).update(self._cause())  # where the trajectories fork
        # a replayed turn is brought on screen once the body has grown to hold the turns
        self.scroll_pending = self.replaying is not None

    @on(Wobbled)
    def _wobbled(self, message: Wobbled) -> None:
        if message.case != self.detail.case:
            return
        self.query_one(ProgressLine).finish()
        self.wobble = message.wobble
        self.query_one("#cause", Part).update(self._cause())

    def _body_grown(self) -> None:
        if self.scroll_pending and self.replaying is not None:
            self.scroll_pending = False
            self.call_after_refresh(self._replay_view, self.replaying)

    def _draw(self) -> None:
        """What is coloured from the theme, for the repetition in focus (again when it changes)."""
        self.query_one("#case-header", Static).update(self._header())
        self.query_one("#cause", Part).update(self._cause())
        judged = self._input()
        part = self.query_one("#input", Part)
        part.display = judged is not None
        part.update(judged or "")
        if not self.detail.reps:
            return
        self.query_one(DecisionsView).show(self.detail, self.focus_rep)
        self._show_outputs()
        self.query_one(RepFacts).show(self.detail, self.focus_rep)

    def _restyle(self) -> None:
        """Another theme: everything drawn again in its colours, the turn and the fold kept."""
        if self._detail is None:
            return  # drawn in the theme's colours once looked up
        self._draw()
        if self.alignment is not None:
            self.query_one(TrajectoryView).redraw()

    def _show_outputs(self) -> None:
        outputs = self.query_one(OutputsView)
        outputs.border_title = (
            f"outputs of rep {self.detail.reps[self.focus_rep]}  ([ ] rep, d diff)"
        )
        expand = shown_keys(self.app, "turn-unfold", first=True)
        pager = shown_keys(self.app, "open-text", first=True)
        outputs.show(
            self.detail,
            self.focus_rep,
            self.mode,
            expanded=self.expanded,
            note=lambda hidden: fold_note(hidden, expand, pager),
        )

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
        self.dismiss(self.case)

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
            trajectory.turns.focus(scroll_visible=False)  # enter unfolds, y copies this turn
            self._scroll_to_turn()

    def action_first_divergence(self) -> None:
        if trajectory := self._trajectory():
            trajectory.go_to_divergence()
            trajectory.turns.focus(scroll_visible=False)
            self._scroll_to_turn()
            self._turn_looked(trajectory, "divergence")

    def action_unfold(self) -> None:
        """Expand the folded text in focus (fold it again), or unfold the turn under the cursor."""
        part = self._part_in_focus()
        if part is not None:
            self.expanded ^= {part}
            self._draw()
            return
        if not (trajectory := self._trajectory()):
            return
        if not trajectory.toggle_fold():
            self.notify("this turn is shown whole", timeout=2)
        elif trajectory.cursor in trajectory.unfolded:
            self._turn_looked(trajectory, "unfold")

    def _part_in_focus(self) -> str | None:
        """The foldable part in focus: `cause`, `input`, or an arm's output."""
        focused = self.focused
        if isinstance(focused, Part) and focused.id:
            return focused.id
        if isinstance(focused, LinesView) and focused.id and focused.id.startswith("out-"):
            return focused.id
        return None

    def focused_text(self) -> Focused:
        """What `y` copies and `o` opens: the part in focus whole, else the case id."""
        if self._detail is None:
            return Focused(f"case id {self.case}", self.case)
        detail, case = self.detail, self.detail.case
        focused: Widget | None = self.focused
        rep = detail.reps[self.focus_rep] if detail.reps else None
        if focused is not None and focused.id == "cause" and detail.reps:
            found = cause(detail, self.focus_rep)
            if found is not None and found.verdict.reason:
                what = f"reason for {found.line.rule} in the {found.arm}'s rep {found.rep} ({case})"
                return Focused(what, found.verdict.reason)
        if focused is not None and focused.id == "input" and detail.reps:
            judged = judged_input(detail, self.focus_rep)
            if judged is not None:
                return Focused(f"input the model judged ({case})", judged[1])
        if focused is not None and focused.id in ("out-baseline", "out-candidate"):
            arm = focused.id.removeprefix("out-")
            slot = detail.rep(arm, self.focus_rep)
            if slot is not None and slot.output is not None:
                return Focused(f"{arm} output of rep {rep} ({case})", slot.output)
        if focused is not None and focused.id == "turns":
            trajectory = self.query_one(TrajectoryView)
            turn = trajectory.cursor + 1
            return Focused(f"turn {turn} of rep {rep} ({case})", trajectory.turn_text())
        if focused is not None and focused.id == "diff":
            text = self.query_one(OutputsView).diff_text()
            return Focused(f"diff of rep {rep} ({case})", text)
        return Focused(f"case id {case}", case)

    def action_every_repetition(self) -> None:
        """Every repetition of both arms, a column each, aligned by turn."""
        if self._trajectory():
            self.app.push_screen(RepetitionsScreen(self.detail))

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
        here = self.cases.index(self.case) if self.case in self.cases else -1
        target = here + step
        if not 0 <= target < len(self.cases):
            self.notify("no more cases this way in the list", timeout=2)
            return
        self.expanded = set()
        self.query_one("#case-body", VerticalScroll).scroll_home(animate=False)
        if self.comparison.cases.height > BIG_COMPARISON:
            self._look_up(self.cases[target], opening=False)
            return
        try:
            self.detail = case_detail(self.comparison, self.cases[target])
        except InputError as error:  # as `push_case`: the case shown stays
            self.notify(str(error), title="case", severity="error", markup=False)
            return
        self._shown(opening=False)
