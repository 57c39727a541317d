"""The trajectory side by side: baseline turns beside candidate turns, aligned, for one repetition.

The first divergent turn is marked (the case screen's cause says, in a sentence, what differs
there).
Tool calls read as `name(args)`; a long turn is folded to its first lines until unfolded; the
turn-by-turn diff marks, inside each changed turn, the lines only one arm has (`-` baseline,
`+` candidate) and, in a line both arms changed, only the words that differ. Turns are model and
tool text: untrusted, shown through `literal`.

A long trajectory (past `BIG_TRAJECTORY` characters, or `BIG_ALIGNMENT` pairs once aligned) is
parsed, aligned, built into rows and counted (`draw`) in a worker thread while the screen says how
far it is: 50,000 turns an arm take seconds, and the event loop must never wait on them.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message

from flipgate.present.casefile import MINUS
from flipgate.present.diff import side_by_side
from flipgate.present.trajectory import Alignment, Turn, TurnPair
from flipgate.present.word_diff import word_diff
from flipgate.tui.collector import building
from flipgate.tui.messages import post_unless_cancelled
from flipgate.tui.widgets.case_format import Palette
from flipgate.tui.widgets.lines import LinesView, Measured, Row, measure
from flipgate.tui.widgets.outputs import marked, shown

FOLD_LINES = 6  # a turn longer than this many lines, or FOLD_CHARS characters, starts folded
FOLD_CHARS = 480
DIVERGENCE_MARK = "◆"
BIG_TRAJECTORY = 200_000  # characters of both arms' turns: past this, aligned in a worker
BIG_ALIGNMENT = 2_000  # pairs of turns: past this, their rows are built in a worker
PAIR_MARK = {"same": " ", "changed": "≠", "baseline only": MINUS, "candidate only": "+"}


def turn_header(turn: Turn, mark: str, palette: Palette) -> Text:
    header = Text(f"{mark} ", style=palette.warn if mark != " " else "")
    header.append_text(shown(turn.label, "bold"))
    return header


def folded(text: str) -> tuple[str, str | None]:
    """The part of a turn shown while it is folded, and the note on what is hidden (None: the
    turn is short enough to show whole)."""
    lines = text.splitlines()
    if len(lines) <= FOLD_LINES and len(text) <= FOLD_CHARS:
        return text, None
    kept = "\n".join(text[:FOLD_CHARS].splitlines()[:FOLD_LINES])
    return kept, f"… {len(lines):,} lines, {len(text):,} characters in all · enter unfolds"


def turn_text(turn: Turn, *, unfolded: bool, palette: Palette) -> Text:
    body, note = (turn.text, None) if unfolded else folded(turn.text)
    out = shown(body) if body else Text("(no text)", style=palette.muted)
    if note:
        out.append("\n")
        out.append(note, palette.muted)
    return out


def diffed_texts(baseline: Turn, candidate: Turn, palette: Palette) -> tuple[Text, Text]:
    """Both turns line by line, the lines one arm alone has marked and, in a line both have
    changed, the words that changed; a gap keeps them level."""
    left: list[Text] = []
    right: list[Text] = []
    for row in side_by_side(baseline.text, candidate.text):
        if row.tag == "replace" and row.left is not None and row.right is not None:
            removed, added = word_diff(row.left, row.right)
            left.append(marked("- ", row.left, removed, palette.removed, palette.removed_words))
            right.append(marked("+ ", row.right, added, palette.added, palette.added_words))
            continue
        for side, line, marker, style in (
            (left, row.left, "- ", palette.removed),
            (right, row.right, "+ ", palette.added),
        ):
            if line is None:
                side.append(Text(""))
            elif row.tag == "equal":
                side.append(shown(f"  {line}", palette.muted))
            else:
                side.append(shown(f"{marker}{line}", style))
    return Text("\n").join(left), Text("\n").join(right)


def pair_row(
    pair: TurnPair, *, divergent: bool, unfolded: bool, diff: bool, palette: Palette
) -> Row:
    mark = DIVERGENCE_MARK if divergent else PAIR_MARK[pair.tag]
    cells: list[Text | None] = []
    bodies: tuple[Text, Text] | None = None
    if diff and pair.tag == "changed" and pair.baseline and pair.candidate:
        bodies = diffed_texts(pair.baseline, pair.candidate, palette)
    for i, turn in enumerate((pair.baseline, pair.candidate)):
        if turn is None:
            other = "candidate" if i == 0 else "baseline"
            cells.append(
                Text(f"{mark} no turn here: only the {other} has it\n", style=palette.muted)
            )
            continue
        cell = turn_header(turn, mark, palette)
        cell.append("\n")
        cell.append_text(
            bodies[i] if bodies else turn_text(turn, unfolded=unfolded, palette=palette)
        )
        cells.append(cell)
    return tuple(cells)


def can_fold(pair: TurnPair) -> bool:
    return any(t is not None and folded(t.text)[1] for t in (pair.baseline, pair.candidate))


def turn_row(
    alignment: Alignment, index: int, *, unfolded: set[int], diff: bool, palette: Palette
) -> Row:
    """The row of pair `index` of `alignment`."""
    return pair_row(
        alignment.pairs[index],
        divergent=index == alignment.divergence,
        unfolded=index in unfolded,
        diff=diff,
        palette=palette,
    )


@dataclass(frozen=True)
class Drawn:
    """An alignment's rows, built and counted for a view `measured.width` cells wide."""

    alignment: Alignment
    rows: list[Row]
    measured: tuple[Measured, ...]  # at each width given; none: the view counts them itself


def draw(
    alignment: Alignment,
    *,
    unfolded: set[int],
    diff: bool,
    palette: Palette,
    widths: tuple[int, ...] = (),
) -> Drawn:
    """The rows of every pair of turns, and their screen lines at each of `widths`: pure, for a
    worker."""
    rows = [
        turn_row(alignment, i, unfolded=unfolded, diff=diff, palette=palette)
        for i in range(len(alignment.pairs))
    ]
    counted = tuple(measure(rows, w, columns=2, cursor=True) for w in widths if w > 0)
    return Drawn(alignment, rows, counted)


class TrajectoryView(Vertical):
    """The aligned turns of the repetition in focus, with a cursor on one pair of turns."""

    DEFAULT_CSS = """
    TrajectoryView { height: auto; }
    TrajectoryView #arms { padding: 0 1; text-style: bold; }
    TrajectoryView #turns { padding: 0 1; }
    """

    @dataclass
    class Redrawn(Message, bubble=False):
        """The rows of a long alignment built again in a worker (another theme, the diff)."""

        drawn: Drawn

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.alignment = Alignment((), None, "")
        self.cursor = 0
        self.unfolded: set[int] = set()
        self.diff = False

    def compose(self) -> ComposeResult:
        yield LinesView(id="arms")
        yield LinesView(id="turns", can_focus=True)

    def show(self, alignment: Alignment) -> None:
        """A new repetition or case: the cursor goes to the first divergent turn."""
        self.alignment = alignment
        self.cursor = alignment.divergence or 0
        self.unfolded = set()
        self.redraw()

    def show_drawn(self, drawn: Drawn) -> None:
        """`show`, with the rows built (and counted) in a worker already."""
        self.alignment = drawn.alignment
        self.cursor = drawn.alignment.divergence or 0
        self.unfolded = set()
        self._paint(drawn, Palette.of(self.app))

    def wait(self, what: str) -> None:
        """Until a worker has aligned the turns: what it is doing, and no turn to move along."""
        self.workers.cancel_group(self, "redraw")
        self.alignment = Alignment((), None, "")
        waiting: list[Row] = [(Text(what, style=Palette.of(self.app).muted), None)]
        self._paint(Drawn(self.alignment, waiting, ()), Palette.of(self.app))

    def redraw(self) -> None:
        """The turns in the theme's colours, the cursor and the unfolded turns where they are; a
        long alignment's rows are built in a worker, the old ones shown meanwhile."""
        self.workers.cancel_group(self, "redraw")
        palette = Palette.of(self.app)
        if len(self.alignment.pairs) <= BIG_ALIGNMENT:
            drawn = draw(self.alignment, unfolded=self.unfolded, diff=self.diff, palette=palette)
            self._paint(drawn, palette)
            return
        self._redraw_in_worker(
            self.alignment, set(self.unfolded), self.diff, palette, (self.turns.size.width,)
        )

    @work(thread=True, exclusive=True, group="redraw", description="redraw")
    def _redraw_in_worker(
        self,
        alignment: Alignment,
        unfolded: set[int],
        diff: bool,
        palette: Palette,
        widths: tuple[int, ...],
    ) -> None:
        with building():
            drawn = draw(alignment, unfolded=unfolded, diff=diff, palette=palette, widths=widths)
        post_unless_cancelled(self, self.Redrawn(drawn))

    def on_trajectory_view_redrawn(self, message: Redrawn) -> None:
        if message.drawn.alignment is self.alignment:
            self._paint(message.drawn, Palette.of(self.app))

    def _paint(self, drawn: Drawn, palette: Palette) -> None:
        # a cursor on no row: the arms' names keep the margin of the turns' cursor bar
        arms = [(Text("baseline"), Text("candidate"))]
        self.query_one("#arms", LinesView).show(arms, columns=2, cursor=-1)
        self.turns.show(
            drawn.rows,
            columns=2,
            cursor=self.cursor,
            cursor_style=palette.cursor,
            bar_style=palette.warn,
            measured=drawn.measured,
        )

    @property
    def turns(self) -> LinesView:
        return self.query_one("#turns", LinesView)

    def move(self, step: int) -> None:
        if self.alignment.pairs:
            self.cursor = max(0, min(len(self.alignment.pairs) - 1, self.cursor + step))
            self.turns.move_cursor(self.cursor)

    def go_to_divergence(self) -> None:
        self.cursor = self.alignment.divergence or 0
        self.turns.move_cursor(self.cursor)

    def toggle_fold(self) -> bool:
        """Unfold the turns under the cursor, or fold them again; False when they are short."""
        if not self.alignment.pairs or not can_fold(self.alignment.pairs[self.cursor]):
            return False
        self.unfolded ^= {self.cursor}
        row = turn_row(
            self.alignment,
            self.cursor,
            unfolded=self.unfolded,
            diff=self.diff,
            palette=Palette.of(self.app),
        )
        self.turns.replace_row(self.cursor, row)
        return True

    def toggle_diff(self) -> None:
        self.diff = not self.diff
        self.redraw()

    def turn_text(self) -> str:
        """The pair of turns under the cursor as plain text, each under its arm's name."""
        if not self.alignment.pairs:
            return ""
        pair = self.alignment.pairs[self.cursor]
        return "\n\n".join(
            f"{arm}, turn {turn.number} ({turn.role}):\n{turn.text}"
            for arm, turn in (("baseline", pair.baseline), ("candidate", pair.candidate))
            if turn is not None
        )

    def cursor_offset(self) -> tuple[int, int]:
        """Where the pair under the cursor sits within the turns view: (first line, height)."""
        return self.turns.row_top(self.cursor), self.turns.row_height(self.cursor)
