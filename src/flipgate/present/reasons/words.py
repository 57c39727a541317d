"""What every reason's words are made with: `sentence`, which words a reason's code and payload (each
domain's module registers its own), and the pieces several of them say alike: cases named and
counted, a run by its file, a time, a list in a sentence, a relative limit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import singledispatch

from flipgate.present.numbers import written_percent

NAMED_IN_REASON = 10  # cases named in one reason; the JSON report lists them all


def named(items: Sequence[str], separator: str = ", ") -> str:
    """The items a reason names, cut after NAMED_IN_REASON and counted."""
    shown = separator.join(items[:NAMED_IN_REASON])
    more = len(items) - NAMED_IN_REASON
    return shown + (f" and {more} more" if more > 0 else "")


@singledispatch
def sentence(reason: object) -> str:
    """A reason with a code, in words."""
    raise TypeError(f"no sentence for {type(reason).__name__}")


def when(moment: datetime) -> str:
    """A time as the reports say it: `2026-12-01T09:00:00Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_name(run_id: str, source: str) -> str:
    """`killed.eval (run NSphdkpQ...)`: a run by its file or folder, and its id where that differs."""
    return source if source == run_id else f"{source} (run {run_id})"


def series(items: Sequence[str], last: str = "or") -> str:
    """`a`, `a or b`, `a, b or c`."""
    return (
        f" {last} ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} {last} {items[-1]}"
    )


def signed_percent(share: float) -> str:
    """A relative limit as written: `+6.5%`, `-5%`."""
    return written_percent(share) if share < 0 else f"+{written_percent(share)}"
