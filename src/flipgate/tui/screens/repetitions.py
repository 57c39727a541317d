"""Every repetition of one case, both arms, turn by turn (issue 23 item 3): the grid of turns
(`widgets.repetitions`), and under it the turn under the cursor whole, the words it does not share
with the reference's turn marked. Opened from the case drill-down; `escape` goes back to it.

The turns of every repetition are parsed and every pair of repetitions aligned in a worker: a
200-turn case of ten repetitions an arm is 190 alignments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from flipgate.present.casefile import CaseDetail
from flipgate.present.glossary import CASE_TERMS
from flipgate.present.repetitions import Grid, grid, repetitions
from flipgate.present.word_diff import Span
from flipgate.tui.bindings import bindings_for
from flipgate.tui.collector import building
from flipgate.tui.format import literal
from flipgate.tui.messages import post_unless_cancelled
from flipgate.tui.reach import Focused
from flipgate.tui.widgets.case_format import Palette
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.outputs import shown
from flipgate.tui.widgets.repetitions import ARMS_PART, OWN_PART, PARTS_HERE, RepetitionGrid


def marked_whole(text: str, spans: tuple[Span, ...], style: Style) -> Text:
    """A turn whole, literal, the spans given marked."""
    out = shown(text)
    for start, end in spans:
        out.stylize(style, start, end)
    return out


class RepetitionsScreen(Screen[None]):
    """Every repetition of `detail`'s case, a column each, aligned by turn."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for("repetitions")
    TERMS = CASE_TERMS
    DEFAULT_CSS = """
    RepetitionsScreen #reps-header { height: auto; padding: 0 1; background: $boost; }
    RepetitionsScreen #turn-whole { height: 1fr; border-top: solid $panel;
        border-title-color: $text-muted; padding: 0 1; }
    """

    @dataclass
    class Built(Message, bubble=False):
        grid: Grid

    def __init__(self, detail: CaseDetail) -> None:
        super().__init__()
        self.detail = detail
        self.grid: Grid | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="reps-header")
        yield RepetitionGrid()
        with VerticalScroll(id="turn-whole"):
            yield Static(id="turn-text")
        yield KeyBar()

    def on_mount(self) -> None:
        count = sum(slot is not None for slots in self.detail.arms.values() for slot in slots)
        self._header(Text(f"aligning the turns of {count} repetitions …"))
        self._build(self.detail)
        self.query_one(RepetitionGrid).focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    @work(thread=True, exclusive=True, description="build")
    def _build(self, detail: CaseDetail) -> None:
        with building():
            built = grid(repetitions(detail))
        post_unless_cancelled(self, self.Built(built))

    @on(Built)
    def _built(self, message: Built) -> None:
        self.grid = message.grid
        self.query_one(RepetitionGrid).show(message.grid)
        self._restyle()

    def _restyle(self) -> None:
        if self.grid is not None:
            self._header(self._summary(self.grid))
            self._show_turn()
            self.query_one(RepetitionGrid).restyle()

    def _header(self, said: Text) -> None:
        out = Text("every repetition of ", style=Palette.of(self.app).muted)
        out.append_text(literal(self.detail.case, "bold"))
        out.append("\n")
        out.append_text(said)
        self.query_one("#reps-header", Static).update(out)

    def _summary(self, built: Grid) -> Text:
        """What the arms' parting means, and what the marks say."""
        palette = Palette.of(self.app)
        if built.reference is None:
            return Text("no repetition of this case stored its turns", palette.muted)
        out = Text(built.turns.said())
        out.append(
            f"\ncells dim: the same turn as {built.heading(built.reference)}; marked: the words "
            f"that differ · {ARMS_PART} the arms part · {OWN_PART} an arm's own repetitions part"
            f" · {PARTS_HERE} this repetition parts from the reference",
            palette.muted,
        )
        return out

    @on(RepetitionGrid.Moved)
    def _show_turn(self) -> None:
        """The turn under the cursor whole, where it stands against the reference's."""
        view = self.query_one(RepetitionGrid)
        built, palette = self.grid, Palette.of(self.app)
        if built is None or not built.cells:
            return
        row, column = view.row, view.column
        turn = built.cells[row][column]
        whole = self.query_one("#turn-whole", VerticalScroll)
        where = "inserted row" if built.labels[row] == "+" else f"turn {built.labels[row]}"
        whole.border_title = f"{built.heading(column)} · {where}"
        text = self.query_one("#turn-text", Static)
        if turn is None:
            text.update(Text("no turn here in this repetition", palette.muted))
            return
        assert built.reference is not None
        reference = built.heading(built.reference)
        ref = built.cells[row][built.reference]
        if column == built.reference:
            against = "the reference"
        elif built.differs(row, column):
            against = f"differs from {reference}: the words {reference} lacks marked"
        else:
            against = f"the same as {reference}"
        out = Text(f"turn {turn.number} of this repetition, {turn.label.split(' ', 1)[1]} · ")
        out.stylize(palette.muted)
        out.append(against, palette.muted)
        out.append("\n")
        out.append_text(
            marked_whole(turn.text, built.changed_words(row, column), palette.added_words)
        )
        if ref is not None and built.differs(row, column):
            out.append(f"\n\n{reference}, the words this repetition lacks marked:\n", palette.muted)
            lacks = built.lacked_words(row, column)
            out.append_text(marked_whole(ref.text, lacks, palette.removed_words))
        text.update(out)
        whole.scroll_home(animate=False)

    # --------------------------------------------------------------------- actions

    def action_back(self) -> None:
        self.dismiss()

    def action_move(self, rows: int, columns: int) -> None:
        self.query_one(RepetitionGrid).move(rows, columns)

    def action_page(self, pages: int) -> None:
        view = self.query_one(RepetitionGrid)
        view.move(pages * view.page, 0)

    def action_edge(self, end: bool) -> None:
        view = self.query_one(RepetitionGrid)
        if self.grid is not None:
            view.move_to(row=len(self.grid.cells) - 1 if end else 0)

    def action_arms_part(self) -> None:
        """The cursor on the row where the arms part."""
        if self.grid is None:
            return
        row = self.grid.first_rows["arms"]
        if row is None:
            self.notify("the arms do not part: some repetitions of each do the same", timeout=3)
            return
        self.query_one(RepetitionGrid).move_to(row=row)

    def focused_text(self) -> Focused | None:
        """What `y` copies and `o` opens: the turn under the cursor, whole."""
        view = self.query_one(RepetitionGrid)
        if self.grid is None or not self.grid.cells:
            return None
        turn = self.grid.cells[view.row][view.column]
        if turn is None:
            return None
        what = f"turn {turn.number} of {self.grid.heading(view.column)} ({self.detail.case})"
        return Focused(what, turn.text)
