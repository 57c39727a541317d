"""Retired cases: archived from the suite with a date and a reason, never deleted.

A retired case may still be in a run; like a flaky one it is shown, but left out of `b` and `c`.
The suite manifest (`flipgate.core.suite.manifest`) says which cases are retired; the gate only
needs this much of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class RetiredCase:
    case: str
    retired: date
    reason: str


def retired_cases(retired: tuple[RetiredCase, ...]) -> frozenset[str]:
    return frozenset(r.case for r in retired)
