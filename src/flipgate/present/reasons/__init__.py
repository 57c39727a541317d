"""The gate's reasons in words: one sentence per code, made here and nowhere else.

The core finds reasons as payloads with a stable code (`core/vocab.py`: `InvalidCode`,
`LimitCode`, `BudgetCode`, `WarningCode`, `UnpairedState` (the case ledger's), `ChangeCode`,
`EditCode`, `LooseningCode`) and never words them. `sentence` words any of them, each domain's
in its module (`invalid`, `limits`, `warnings`, `ledger`; `words` the pieces they share, and
`sentence` itself); `summary` is the verdict's line (`verdict`); `reason_json` is a reason as the
JSON report gives it, `{code, message, ...its values}`. Importing this package registers every
domain's words, so `sentence` from here words them all.
The text, Markdown, JUnit and JSON reports and the app all take their words from here.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Any

# the domains' modules, imported for the words they register on `sentence`
from flipgate.present.reasons import invalid, ledger, limits, warnings  # noqa: F401
from flipgate.present.reasons.verdict import gate_words, summary, verdict_line
from flipgate.present.reasons.words import sentence


def reason_json(reason: Any) -> dict[str, Any]:
    """A reason as the JSON report gives it: its code, its sentence and its values; a reason
    inside another (an edit, a loosened setting) is given the same way."""
    return {"code": reason.code, "message": sentence(reason), **_values(reason)}


def _values(reason: Any) -> dict[str, Any]:
    return {f.name: _json(getattr(reason, f.name)) for f in dataclasses.fields(reason)}


def _json(value: Any) -> Any:
    if hasattr(value, "code") and dataclasses.is_dataclass(value):
        return reason_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _values(value)
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


__all__ = ["gate_words", "reason_json", "sentence", "summary", "verdict_line"]
