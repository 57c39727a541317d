"""Trajectories: turns read from the run, aligned across the arms, and the fork named."""

from __future__ import annotations

import json
from typing import NotRequired, TypedDict

from flipgate.present.trajectory import align, parse_turns, readable


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
