"""Every repetition of a case in aligned rows: the rows, what differs from the reference, where
the arms and each arm part."""

from __future__ import annotations

from flipgate.present.repetitions import Repetition, grid
from flipgate.present.trajectory import parse_turns, wobble

from .test_trajectory import (
    ASK,
    CONFIRM,
    CONVERSATION,
    DONE,
    FOUND,
    LOOKUP,
    REFUND,
    REFUNDED,
    SYSTEM,
    THANKS,
    WORDED,
    Message,
    turns,
)

SKIPPED = (SYSTEM, ASK, LOOKUP, FOUND, REFUND, REFUNDED, DONE)  # refunds without asking
REWORDED = (*CONVERSATION[:4], WORDED, *CONVERSATION[5:])


def rep(arm: str, number: int, *messages: Message, passed: bool | None = True) -> Repetition:
    return Repetition(arm, number, passed, "ok", parse_turns(turns(*messages)))


def test_a_candidate_that_skips_a_turn_leaves_a_gap_and_parts_where_the_arms_do() -> None:
    columns = (
        rep("baseline", 0, *CONVERSATION),
        rep("baseline", 1, *CONVERSATION[:8], THANKS),
        rep("candidate", 0, *SKIPPED, passed=False),
        rep("candidate", 1, *SKIPPED, passed=False),
    )
    found = grid(columns)
    assert found.reference == 0
    # the reference's nine turns are the rows; the candidate has none beside the confirmation
    assert found.labels == tuple(str(n) for n in range(1, 10))
    for column in (2, 3):
        held = [turn.number if turn else None for turn in (r[column] for r in found.cells)]
        assert held == [1, 2, 3, 4, None, None, 5, 6, 7]
    # each repetition parts from the reference where it first does something else
    assert found.parts_from_reference == (None, 8, 4, 4)
    # the arms part at turn 5 (row 4), the baseline's own repetitions at turn 9 (row 8)
    assert found.first_rows == {"arms": 4, "baseline": 8, "candidate": None}
    # in turn numbers, as the drill-down says it: the same reading as `trajectory.wobble`
    by_arm = {arm: [c.turns for c in columns if c.arm == arm] for arm in ("baseline", "candidate")}
    assert found.turns == wobble(by_arm["baseline"], by_arm["candidate"])
    assert found.turns.reading == "new_divergence"


def test_the_words_that_differ_are_marked_not_the_whole_turn() -> None:
    found = grid((rep("baseline", 0, *CONVERSATION), rep("baseline", 1, *REWORDED)))
    row = 4  # the confirmation, said another way
    assert found.differs(row, 1) and not found.differs(row, 0) and not found.differs(0, 1)
    turn = found.cells[row][1]
    assert turn is not None
    spans = found.changed_words(row, 1)
    marked = [turn.text[start:end] for start, end in spans]
    assert spans and sum(end - start for start, end in spans) < len(turn.text)
    assert "A-1" not in "".join(marked)  # a word both say is left unmarked
    assert found.changed_words(row, 0) == () and found.changed_words(0, 1) == ()


def test_a_turn_the_reference_lacks_is_an_inserted_row_marked_whole() -> None:
    asks_again: Message = {"role": "assistant", "content": "Which order do you mean?"}
    again = (SYSTEM, ASK, asks_again, ASK, *CONVERSATION[2:])
    found = grid((rep("baseline", 0, *CONVERSATION), rep("candidate", 0, *again)))
    assert "+" in found.labels
    inserted = found.labels.index("+")
    turn = found.cells[inserted][1]
    assert turn is not None and found.cells[inserted][0] is None
    assert found.changed_words(inserted, 1) == ((0, len(turn.text)),)
    assert len(found.cells) == len(again)


def test_a_repetition_without_turns_is_a_column_of_gaps() -> None:
    errored = Repetition("baseline", 0, None, "infra", ())
    found = grid((errored, rep("baseline", 1, *CONVERSATION), rep("candidate", 0, *CONVERSATION)))
    assert found.reference == 1  # the first repetition that stored turns
    assert all(row[0] is None for row in found.cells)
    assert found.parts_from_reference == (None, None, None)
    assert found.turns.reading == "no_divergence"
    nothing = grid((errored,))
    assert nothing.reference is None and nothing.cells == ()


def test_confirm_reworded_in_every_repetition_is_wobble() -> None:
    """Both arms word the confirmation two ways: the arms part no earlier than each arm does."""
    columns = (
        rep("baseline", 0, *CONVERSATION),
        rep("baseline", 1, *REWORDED),
        rep("candidate", 0, *REWORDED[:8], THANKS),
        rep("candidate", 1, *CONVERSATION[:8], THANKS),
    )
    found = grid(columns)
    assert found.turns.reading == "normal_wobble"
    assert found.first_rows == {"arms": 8, "baseline": 4, "candidate": 4}
    assert CONFIRM["content"] != WORDED["content"]
