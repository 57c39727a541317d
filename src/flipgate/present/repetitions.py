"""Every repetition of both arms, turn by turn: one column per repetition (the baseline's, then
the candidate's), one row per turn, the columns aligned on the first repetition that stored turns
(the reference: the baseline's first, as a rule).

    row          a turn of the reference, or a turn some repetition took that the reference did not
                 (inserted where its own alignment with the reference puts it)
    differs      a cell whose turn is not the reference's turn in that row; the words that differ
                 (`word_diff`) are what the view marks, never the whole cell
    parting      where two repetitions' paths fork (`trajectory.align`'s divergence), as a row: the
                 arms part where every baseline repetition has parted from every candidate one;
                 an arm wobbles where two of its own repetitions part (`trajectory.partings`)

Pure: the alignment of every pair of repetitions is linear in their turns, so a 200-turn case of
ten repetitions an arm is 190 alignments; a front end builds it off its event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

from flipgate.core.vocab import ARMS
from flipgate.present.casefile import CaseDetail
from flipgate.present.trajectory import Alignment, Turn, Wobble, align, parse_turns, partings
from flipgate.present.word_diff import Span, word_diff

ROLE_SHORT = {"system": "sys", "user": "user", "assistant": "asst", "tool": "tool"}


@dataclass(frozen=True)
class Repetition:
    """One column: an arm's repetition, its verdict and its turns."""

    arm: str
    rep: int
    passed: bool | None  # None: infra, or the repetition never ran
    status: str  # ok | infra | missing
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Words:
    """Where a cell's turn and the reference's differ: the spans of each the other lacks."""

    adds: tuple[Span, ...]  # of the cell's turn
    lacks: tuple[Span, ...]  # of the reference's turn


@dataclass(frozen=True)
class Grid:
    """The repetitions' turns in aligned rows, and where they part."""

    columns: tuple[Repetition, ...]
    cells: tuple[tuple[Turn | None, ...], ...]  # row -> one per column (None: no turn here)
    labels: tuple[str, ...]  # row -> the reference's turn number, `+` for an inserted row
    reference: int | None  # the column the others are aligned on (None: no column has turns)
    parts_from_reference: tuple[int | None, ...]  # column -> the row where it parts from it
    rows: Wobble  # where the arms and each arm's repetitions part, in rows
    turns: Wobble  # the same in turn numbers, as the drill-down says it
    words: dict[tuple[int, int], Words]  # (row, column) -> where a cell differs, word by word

    @cached_property
    def first_rows(self) -> dict[str, int | None]:
        """The row each mark names: `arms` (where the arms part), and each arm's own parting."""
        return {"arms": self.rows.between, **self.rows.own}

    def differs(self, row: int, column: int) -> bool:
        """The cell's turn is not the reference's in its row (a turn the reference lacks is)."""
        return (row, column) in self.words

    def changed_words(self, row: int, column: int) -> tuple[Span, ...]:
        """The spans of the cell's `text` that the reference's turn in its row lacks; the whole
        text where the reference has no turn there."""
        found = self.words.get((row, column))
        return found.adds if found else ()

    def lacked_words(self, row: int, column: int) -> tuple[Span, ...]:
        """The spans of the reference's turn in the cell's row that the cell's turn lacks."""
        found = self.words.get((row, column))
        return found.lacks if found else ()

    def heading(self, column: int) -> str:
        """`baseline rep 2`."""
        rep = self.columns[column]
        return f"{rep.arm} rep {rep.rep}"


def flat(turn: Turn) -> str:
    """A turn's text on one line, for a cell: each newline a space (the same length, so that the
    spans found on `text` fall on the same characters)."""
    return turn.text.replace("\n", " ")


def repetitions(detail: CaseDetail) -> tuple[Repetition, ...]:
    """The case's repetitions, the baseline's then the candidate's, their turns parsed."""
    columns = []
    for arm in ARMS:
        for number, slot in zip(detail.reps, detail.arms[arm], strict=True):
            if slot is None:
                columns.append(Repetition(arm, number, None, "missing", ()))
                continue
            turns = parse_turns(slot.messages)
            columns.append(Repetition(arm, number, slot.passed, slot.status, turns))
    return tuple(columns)


def grid(columns: Sequence[Repetition]) -> Grid:
    """Every repetition's turns in rows aligned on the reference, and where each pair parts."""
    columns = tuple(columns)
    reference = next((i for i, c in enumerate(columns) if c.turns), None)
    if reference is None:
        empty = partings({arm: [] for arm in ARMS}, [], dict.fromkeys(ARMS, 0))
        return Grid(columns, (), (), None, (None,) * len(columns), empty, empty, {})
    ref_turns = columns[reference].turns
    # Each column against the reference: the turns it has beside each of the reference's, and
    # the turns it took in each gap before one of them (the last gap: after them all)
    beside: list[list[Turn | None]] = []
    inserted: list[list[list[Turn]]] = []
    to_reference: list[Alignment | None] = []
    for i, column in enumerate(columns):
        at: list[Turn | None] = [None] * len(ref_turns) if i != reference else [*ref_turns]
        gaps: list[list[Turn]] = [[] for _ in range(len(ref_turns) + 1)]
        alignment = align(ref_turns, column.turns) if i != reference and column.turns else None
        if alignment is not None:
            seen = 0
            for pair in alignment.pairs:
                if pair.baseline is None:
                    assert pair.candidate is not None
                    gaps[seen].append(pair.candidate)
                    continue
                at[seen] = pair.candidate
                seen += 1
        beside.append(at)
        inserted.append(gaps)
        to_reference.append(alignment)
    cells: list[tuple[Turn | None, ...]] = []
    labels: list[str] = []
    for gap in range(len(ref_turns) + 1):
        extra = max(len(gaps[gap]) for gaps in inserted)
        for k in range(extra):
            cells.append(tuple(g[gap][k] if k < len(g[gap]) else None for g in inserted))
            labels.append("+")
        if gap < len(ref_turns):
            cells.append(tuple(at[gap] for at in beside))
            labels.append(str(ref_turns[gap].number))
    row_of = _rows_of(columns, cells)
    parts = tuple(
        _parted_row(a, reference, i, row_of) if a is not None else None
        for i, a in enumerate(to_reference)
    )
    turns, rows = _wobbles(columns, row_of)
    words = _words(cells, reference)
    return Grid(columns, tuple(cells), tuple(labels), reference, parts, rows, turns, words)


def _words(cells: list[tuple[Turn | None, ...]], reference: int) -> dict[tuple[int, int], Words]:
    """Every cell whose turn is not the reference's in its row, and the words that differ: all
    of them at once, so that drawing a screenful diffs nothing (a 12-line tool result takes a
    millisecond or more)."""
    words: dict[tuple[int, int], Words] = {}
    for r, row in enumerate(cells):
        ref = row[reference]
        for c, turn in enumerate(row):
            if turn is None or c == reference or (ref is not None and ref.same_as(turn)):
                continue
            if ref is None:
                words[r, c] = Words(((0, len(turn.text)),) if turn.text else (), ())
            else:
                lacks, adds = word_diff(ref.text, turn.text)
                words[r, c] = Words(adds, lacks)
    return words


def _rows_of(
    columns: tuple[Repetition, ...], cells: list[tuple[Turn | None, ...]]
) -> list[list[int]]:
    """Per column, the row each of its turns sits in, by its index in the column."""
    rows: list[list[int]] = [[] for _ in columns]
    for r, row in enumerate(cells):
        for c, turn in enumerate(row):
            if turn is not None:
                rows[c].append(r)
    return rows


def _parted_row(alignment: Alignment, a: int, b: int, row_of: list[list[int]]) -> int | None:
    """The row where `alignment` of columns `a` and `b` (in that order) parts (None: never)."""
    if alignment.divergence is None:
        return None
    pair = alignment.pairs[alignment.divergence]
    if pair.baseline is not None:
        return row_of[a][pair.baseline.number - 1]
    assert pair.candidate is not None
    return row_of[b][pair.candidate.number - 1]


def _wobbles(columns: tuple[Repetition, ...], row_of: list[list[int]]) -> tuple[Wobble, Wobble]:
    """Where the arms part and each arm parts from itself, over every pair of repetitions that
    stored turns: in turn numbers (as `trajectory.wobble` says it) and in rows."""
    arms = {arm: [i for i, c in enumerate(columns) if c.arm == arm and c.turns] for arm in ARMS}
    found: dict[tuple[int, int], tuple[int | None, int | None]] = {}

    def parted(a: int, b: int) -> tuple[int | None, int | None]:
        alignment = align(columns[a].turns, columns[b].turns)
        if alignment.divergence is None:
            return None, None
        pair = alignment.pairs[alignment.divergence]
        turn = next(t.number for t in (pair.baseline, pair.candidate) if t is not None)
        return turn, _parted_row(alignment, a, b, row_of)

    for arm in ARMS:
        for a, b in combinations(arms[arm], 2):
            found[a, b] = parted(a, b)
    crossed = [(b, c) for b in arms["baseline"] for c in arms["candidate"]]
    for b, c in crossed:
        found[b, c] = parted(b, c)
    counts: dict[str, int] = {arm: len(reps) for arm, reps in arms.items()}
    by = [
        partings(
            {arm: [found[p][k] for p in combinations(arms[arm], 2)] for arm in ARMS},
            [found[p][k] for p in crossed],
            counts,
        )
        for k in (0, 1)
    ]
    return by[0], by[1]


__all__ = ["ROLE_SHORT", "Grid", "Repetition", "Words", "flat", "grid", "repetitions"]
