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
readers of a run name the same field: the line reader calls it on each line (through `checks`'
table of fields), the columnar readers check the column's type (`turns_type_ok`) and call it on
the first line their vectorised check (`turns_flagged`) flags.
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


_TEXT = (pl.String, pl.Null)


def turns_type_ok(dtype: pl.DataType) -> bool:
    """A trajectory column as Arrow or Parquet types it: a list of turn structs whose text fields
    are strings and whose calls are structs with a string name; the values are checked after."""
    if isinstance(dtype, pl.Null):
        return True
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return False
    fields = {f.name: f.dtype for f in dtype.inner.fields}
    if not isinstance(fields.get("role"), pl.String):
        return False
    if any(not isinstance(fields[n], _TEXT) for n in _TEXT_FIELDS if n in fields):
        return False
    calls = fields.get("tool_calls", pl.Null())
    if isinstance(calls, pl.Null):
        return True
    if not isinstance(calls, pl.List) or not isinstance(calls.inner, pl.Struct):
        return False
    call = {f.name: f.dtype for f in calls.inner.fields}
    return (
        isinstance(call.get("name"), pl.String)
        and isinstance(call.get("id", pl.Null()), _TEXT)
        and isinstance(call.get("arguments", pl.Null()), pl.Struct | pl.Null)
    )


def turns_flagged(dtype: pl.DataType, column: str = "messages") -> pl.Expr:
    """The rows of a trajectory column of type `dtype` (one `turns_type_ok` accepts) that break a
    rule its type cannot show: a role outside ROLES, a call without a name. Vectorised, so that
    only a flagged row is looked at in Python."""
    turns = pl.col(column)
    role = pl.element().struct.field("role")
    flagged = turns.list.eval(role.is_null() | ~role.is_in(ROLES)).list.any().fill_null(True)
    inner = dtype.inner  # type: ignore[attr-defined]
    if any(f.name == "tool_calls" and not isinstance(f.dtype, pl.Null) for f in inner.fields):
        unnamed = (
            pl.element()
            .struct.field("tool_calls")
            .list.eval(pl.element().struct.field("name").is_null())
        )
        flagged = flagged | turns.list.eval(unnamed.list.any()).list.any().fill_null(False)
    return turns.is_not_null() & flagged
