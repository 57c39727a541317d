"""The `messages` field of a repetition: the trajectory, the turns of the conversation in order.

    {"role": "system" | "user" | "assistant" | "tool",
     "content": "text of the turn",                       # optional, default ""
     "tool_calls": [{"name": "refund_order",              # assistant turns that use tools
                     "arguments": {"order_id": "A-1"},    # optional, a JSON object
                     "id": "call_1"}],                    # optional, what the result names
     "tool_call_id": "call_1",                            # tool turns: the call this answers
     "name": "refund_order",                              # tool turns: the tool, optional
     "error": "order not found"}                          # tool turns: the call failed

One function says what is wrong with a trajectory, as the field path and a sentence, so that both
readers of a run name the same field: the line reader calls it on each line, the columnar readers
call it on the first line their vectorised check flags.
"""

from __future__ import annotations

from typing import Any

import polars as pl

ROLES = ("system", "user", "assistant", "tool")
_TEXT_FIELDS = ("content", "tool_call_id", "name", "error")
_CALL_TEXT_FIELDS = ("name", "id")


def messages_problem(value: Any) -> tuple[str, str] | None:
    """(field, message) for the first thing SPEC §2's trajectory shape does not allow, else None."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "messages", "must be a list of turns"
    for i, turn in enumerate(value):
        where = f"messages[{i}]"
        if not isinstance(turn, dict):
            return where, "a turn must be an object with a `role`"
        role = turn.get("role")
        if role not in ROLES:
            return f"{where}.role", f"must be one of {', '.join(ROLES)}, not {role!r}"
        for name in _TEXT_FIELDS:
            if turn.get(name) is not None and not isinstance(turn[name], str):
                return f"{where}.{name}", "must be a string"
        calls = turn.get("tool_calls")
        if calls is None:
            continue
        if not isinstance(calls, list):
            return f"{where}.tool_calls", "must be a list of calls"
        for j, call in enumerate(calls):
            at = f"{where}.tool_calls[{j}]"
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                return f"{at}.name", "a tool call needs the tool's `name`, a string"
            if call.get("id") is not None and not isinstance(call["id"], str):
                return f"{at}.id", "must be a string"
            if call.get("arguments") is not None and not isinstance(call["arguments"], dict):
                return f"{at}.arguments", "must be an object of argument -> value"
    return None


def messages_flagged(column: str = "messages") -> pl.Expr:
    """Rows whose trajectory, read as a list of structs, breaks a rule the types cannot show (a
    role outside ROLES, a call without a name): vectorised, so only flagged rows are looked at."""
    turns = pl.col(column)
    role = pl.element().struct.field("role")
    bad_role = turns.list.eval(role.is_null() | ~role.is_in(ROLES)).list.any()
    return turns.is_not_null() & bad_role.fill_null(True)


def calls_flagged(column: str = "messages") -> pl.Expr:
    """Rows holding a tool call without a name (only when the turns carry `tool_calls`)."""
    names = (
        pl.col(column)
        .list.eval(
            pl.element()
            .struct.field("tool_calls")
            .list.eval(pl.element().struct.field("name").is_null())
            .list.any()
        )
        .list.any()
    )
    return names.fill_null(False)
