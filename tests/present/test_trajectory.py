"""Trajectories: turns read from the run, aligned across the arms, and the fork named."""

from __future__ import annotations

import json
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import NotRequired, TypedDict

import pytest

from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.present import trajectory
from flipgate.present.casefile import case_detail
from flipgate.present.trajectory import (
    WINDOW,
    Ending,
    Turn,
    align,
    kind_opcodes,
    parse_turns,
    readable,
    wobble,
)
from tests.importers.conftest import INSPECT


class Call(TypedDict):
    id: str
    name: str
    arguments: dict[str, object]


class Message(TypedDict):
    """A turn as a run stores it (docs/trajectories.md); a columnar reader's nulls included."""

    role: str
    content: str
    tool_calls: NotRequired[list[Call]]
    tool_call_id: NotRequired[str | None]
    name: NotRequired[str | None]


SYSTEM: Message = {"role": "system", "content": "You are a support agent."}
ASK: Message = {"role": "user", "content": "Please refund order A-1"}
LOOKUP: Message = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": {"order_id": "A-1"}}],
}
FOUND: Message = {"role": "tool", "tool_call_id": "c1", "content": '{"total": 180}'}
CONFIRM: Message = {
    "role": "assistant",
    "content": "I can refund $180 for order A-1. Shall I go ahead?",
}
YES: Message = {"role": "user", "content": "Yes please"}
REFUND: Message = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "c2", "name": "refund_order", "arguments": {"order_id": "A-1", "amount": 180}}
    ],
}
REFUNDED: Message = {"role": "tool", "tool_call_id": "c2", "content": "refunded"}
DONE: Message = {"role": "assistant", "content": "Done."}


def turns(*messages: Message) -> str:
    return json.dumps(list(messages))


def test_a_skipped_confirmation_is_the_first_divergence() -> None:
    baseline = parse_turns(turns(SYSTEM, ASK, LOOKUP, FOUND, CONFIRM, YES, REFUND, REFUNDED, DONE))
    faster: Message = {**SYSTEM, "content": "You are a fast support agent."}
    candidate = parse_turns(turns(faster, ASK, LOOKUP, FOUND, REFUND, REFUNDED, DONE))
    alignment = align(baseline, candidate)
    assert [p.tag for p in alignment.pairs] == [
        "changed", "same", "same", "same", "baseline only", "baseline only", "same", "same", "same",
    ]  # fmt: skip
    # the system prompt differs first, but that is the input: the agent forks at turn 5
    assert alignment.divergence == 4
    assert alignment.summary == (
        'turn 5: the candidate called refund_order(order_id="A-1", amount=180); the baseline '
        "replied “I can refund $180 for order A-1. Shall I go ahead?” · before that, the system "
        "prompt (turn 1) differs"
    )
    # across the gap the candidate's refund pairs with the baseline's, ids aside
    refund = alignment.pairs[6]
    assert refund.baseline and refund.candidate
    assert (refund.baseline.number, refund.candidate.number) == (7, 5)


def test_tool_turns_take_the_name_of_the_call_they_answer() -> None:
    lookup, found = parse_turns(turns(LOOKUP, FOUND))
    assert lookup.text == '→ lookup_order(order_id="A-1")'
    assert (found.tool, found.label) == ("lookup_order", "2 tool lookup_order")


def test_a_changed_tool_argument_is_a_divergence() -> None:
    more: Message = {
        **REFUND,
        "tool_calls": [
            {**REFUND["tool_calls"][0], "arguments": {"order_id": "A-1", "amount": 900}}
        ],
    }
    alignment = align(parse_turns(turns(ASK, REFUND)), parse_turns(turns(ASK, more)))
    assert alignment.divergence == 1
    assert alignment.summary.startswith(
        'turn 2: the candidate called refund_order(order_id="A-1", amount=900)'
    )


def test_identical_and_empty_trajectories() -> None:
    same = parse_turns(turns(SYSTEM, ASK, DONE))
    assert align(same, same).divergence is None
    assert (
        align(same, same).summary == "the agent did the same in both arms: every turn is identical"
    )
    only_input = align(same, parse_turns(turns({**SYSTEM, "content": "other"}, ASK, DONE)))
    assert only_input.divergence is None
    assert "its input differs: the system prompt (turn 1)" in only_input.summary
    assert align((), ()).summary == "no turns stored in either arm"
    stopped = align(same, same[:2])
    assert (
        stopped.summary == "turn 3: the candidate had already stopped; the baseline replied “Done.”"
    )


def test_null_fields_are_absent_ones() -> None:
    """A columnar reader gives every turn and call the fields any of them has, as nulls."""
    (turn,) = parse_turns(
        turns(
            {
                **LOOKUP,
                "tool_call_id": None,
                "name": None,
                "tool_calls": [
                    {**LOOKUP["tool_calls"][0], "arguments": {"order_id": "A-1", "amount": None}}
                ],
            }
        )
    )
    assert turn.text == '→ lookup_order(order_id="A-1")'


def test_json_outputs_are_indented_in_their_key_order() -> None:
    assert readable('{"b": 1, "a": [1, 2]}') == '{\n  "b": 1,\n  "a": [\n    1,\n    2\n  ]\n}'
    assert readable("Verdict: approve") == "Verdict: approve"
    assert readable("{not json") == "{not json"
    assert readable(None) is None


# --------------------------------------------------------------------------- divergence against wobble

CONVERSATION = (SYSTEM, ASK, LOOKUP, FOUND, CONFIRM, YES, REFUND, REFUNDED, DONE)
WORDED: Message = {**CONFIRM, "content": "Order A-1 is $180. Refund it?"}  # turn 5, reworded
THANKS: Message = {**DONE, "content": "Done, thank you."}  # turn 9, said another way


def parsed(*conversations: tuple[Message, ...]) -> list[tuple[Turn, ...]]:
    return [parse_turns(turns(*c)) for c in conversations]


def test_arms_that_part_only_as_each_arm_parts_from_itself_are_normal_wobble() -> None:
    """The baseline's own repetitions word the confirmation two ways (they part at turn 5); the
    candidate's do too: the arms parting at turn 5 is the agent's usual variation."""
    reworded = (*CONVERSATION[:4], WORDED, *CONVERSATION[5:])
    baseline = parsed(CONVERSATION, reworded, CONVERSATION)
    candidate = parsed(reworded, reworded, CONVERSATION)
    found = wobble(baseline, candidate)
    # a candidate repetition equal to a baseline one: the arms do not part at all
    assert found.reading == "no_divergence"
    # every candidate repetition thanks the customer at the end (turn 9): they part from every
    # baseline repetition, by turn 9 at the latest, but each arm already parts at turn 5
    baseline = parsed(CONVERSATION, reworded)
    candidate = parsed((*reworded[:8], THANKS), (*CONVERSATION[:8], THANKS))
    found = wobble(baseline, candidate)
    assert (found.between, found.own) == (9, {"baseline": 5, "candidate": 5})
    assert found.reading == "normal_wobble"
    assert found.said() == (
        "normal wobble: the arms part by turn 9, and the baseline's own repetitions part at "
        "turn 5 and the candidate's own repetitions part at turn 5"
    )


def test_arms_that_part_earlier_than_either_arm_parts_from_itself_are_a_new_divergence() -> None:
    """Every candidate repetition skips the confirmation (turn 5 refunds at once); the baseline's
    repetitions part only in their last words (turn 9), the candidate's never."""
    skipped = (SYSTEM, ASK, LOOKUP, FOUND, REFUND, REFUNDED, DONE)
    baseline = parsed(CONVERSATION, (*CONVERSATION[:8], THANKS))
    candidate = parsed(skipped, skipped, skipped)
    found = wobble(baseline, candidate)
    assert (found.between, found.own) == (5, {"baseline": 9, "candidate": None})
    assert found.reading == "new_divergence"
    assert found.said() == (
        "new divergence at turn 5: earlier than the baseline's own repetitions part at turn 9 "
        "and the candidate's own repetitions never part"
    )


def test_one_repetition_cannot_show_an_arm_s_wobble() -> None:
    skipped = (SYSTEM, ASK, LOOKUP, FOUND, REFUND, REFUNDED, DONE)
    found = wobble(parsed(CONVERSATION), parsed(skipped, skipped))
    assert found.reading == "unknown" and "fewer than two repetitions" in found.said()
    assert wobble([], parsed(skipped)).said() == (
        "the baseline stored no turns: where the arms part is unknown"
    )


# --------------------------------------------------------------------------- linear in turns


def _kinds(n: int, every: int) -> tuple[list[str], list[str]]:
    """Two arms of `n` turns, the candidate's every `every`-th turn another kind."""
    base = [("assistant", "tool")[i % 2] + str(i % 5) for i in range(n)]
    return base, [kind if i % every else "other" for i, kind in enumerate(base)]


def _work(monkeypatch: pytest.MonkeyPatch, n: int) -> int:
    """Elements difflib compares, window by window (the cells of each window's grid)."""
    cells = [0]

    class Counted(SequenceMatcher):  # type: ignore[type-arg]
        def __init__(self, *, a: Sequence[object], b: Sequence[object], autojunk: bool) -> None:
            cells[0] += len(a) * len(b)
            super().__init__(a=a, b=b, autojunk=autojunk)

    monkeypatch.setattr(trajectory, "SequenceMatcher", Counted)
    a, b = _kinds(n, 7)
    opcodes = list(kind_opcodes(a, b))
    # the opcodes tile both arms, in order, as difflib's do
    assert [op[1] for op in opcodes[1:]] == [op[2] for op in opcodes[:-1]]
    assert [op[3] for op in opcodes[1:]] == [op[4] for op in opcodes[:-1]]
    assert (opcodes[0][1], opcodes[0][3], opcodes[-1][2], opcodes[-1][4]) == (0, 0, n, n)
    return cells[0]


def test_alignment_is_linear_in_the_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28 item 12: difflib over whole conversations took 163 s for 53,000 turns. Ten times
    the turns is ten times difflib's work (four times the window's grid per half window), never
    a hundred."""
    small, large = _work(monkeypatch, 5_000), _work(monkeypatch, 50_000)
    assert large <= 11 * small
    assert large <= 4 * WINDOW * 50_000


def test_within_a_window_the_alignment_is_difflib_s() -> None:
    a, b = _kinds(WINDOW // 2, 3)
    expected = SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    assert [op for op in kind_opcodes(a, b) if op[0] != "equal"] == [
        op for op in expected if op[0] != "equal"
    ]


# --------------------------------------------------------------------------- how an arm ended


def test_an_arm_that_errored_or_hit_a_limit_is_named_as_such() -> None:
    """Where an arm's turns end at the fork, the sentence says how its repetition ended rather
    than that it "had already stopped"; one stopped after the fork is said after the fork."""
    base = parse_turns(json.dumps([SYSTEM, ASK, LOOKUP, FOUND, CONFIRM]))
    cand = parse_turns(json.dumps([SYSTEM, ASK, LOOKUP]))
    timed_out = {"candidate": Ending(2, errored="timeout")}
    assert align(base, cand, timed_out).summary.startswith(
        "turn 4: the candidate's repetition 2 errored (timeout); the baseline got "
    )
    assert "the candidate had already stopped" in align(base, cand).summary
    limited = {"candidate": Ending(0, limit=("message", 12.0))}
    assert align(base, cand, limited).summary.startswith(
        "turn 4: the candidate's repetition 0 was stopped by the message limit (12); "
    )
    longer = parse_turns(json.dumps([SYSTEM, ASK, LOOKUP, FOUND, REFUND]))
    assert align(base, longer, limited).summary.endswith(
        " · the candidate's repetition 0 was stopped by the message limit (12)"
    )
    never = {"candidate": Ending(1, never_ran=True)}
    assert align(base, (), never).summary == (
        "the candidate's repetition 1 never ran; the baseline took 5 turns"
    )


def test_the_real_logs_name_their_errors_limits_and_missing_repetitions() -> None:
    """Inspect's fixtures: a time limit (infra, `timeout`), a message limit (a fail with its limit
    on the record), an error, and a repetition the errored run never reached."""
    baseline = load_run(INSPECT / "baseline.eval")
    limits = compare(baseline, load_run(INSPECT / "limits.eval"), default_spec())
    assert (
        case_detail(limits, "9")
        .trajectory(0)
        .summary.startswith(
            "turn 4: the candidate's repetition 0 errored (timeout); the baseline got lookup's result"
        )
    )
    assert (
        case_detail(limits, "4")
        .trajectory(2)
        .summary.endswith(" · the candidate's repetition 2 was stopped by the message limit (12)")
    )
    errored = compare(baseline, load_run(INSPECT / "error.eval"), default_spec())
    assert (
        case_detail(errored, "3")
        .trajectory(0)
        .summary.startswith(
            "turn 4: the candidate's repetition 0 errored (RuntimeError('help desk returned HTTP "
        )
    )
    assert case_detail(errored, "1").trajectory(1).summary == (
        "the candidate's repetition 1 never ran; the baseline took 5 turns"
    )
