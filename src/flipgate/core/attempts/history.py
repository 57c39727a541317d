"""What the ledger says across gates (`flipgate history`): a change's attempts, a case's verdicts
over the recent gates, and the cases that flip in many unrelated changes.

A case that flips in the gates of several different changes is not telling each change
something about itself: most likely it flips on its own, as seed 001's flaky cases do between
identical baseline runs. It is named a flaky candidate, for a person to confirm with identical
baseline runs (`flipgate flaky propose`) before it goes on the list: the ledger proposes, it
never lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flipgate.core.attempts.entry import Attempt
from flipgate.core.vocab import Direction

RECENT = 50  # the gates a case's history and the flaky candidates look back over
FLAKY_AFTER = 3  # flips in this many different changes make a case a flaky candidate


@dataclass(frozen=True)
class CaseAt:
    """A case in one gate: the direction it flipped, or None (it did not flip, or was not
    counted: paired and equal, listed as flaky, retired, or not in the suite then)."""

    attempt: Attempt
    flipped: Direction | None


@dataclass(frozen=True)
class FlakyCandidate:
    """A case that flipped in the gates of `changes` different changes."""

    case: str
    changes: int
    broke: int  # gates where it flipped pass -> fail
    fixed: int  # and fail -> pass


@dataclass(frozen=True)
class CaseHistory:
    case: str
    gates: tuple[CaseAt, ...]  # the recent gates, oldest first
    candidate: FlakyCandidate | None  # named a flaky candidate over them


def recent(attempts: Sequence[Attempt], count: int = RECENT) -> tuple[Attempt, ...]:
    """The last `count` attempts of the ledger, oldest first."""
    return tuple(attempts[-count:]) if count else ()


def of_change(attempts: Sequence[Attempt], change_id: str) -> tuple[Attempt, ...]:
    """A change's attempts, in their order."""
    return tuple(sorted((a for a in attempts if a.change_id == change_id), key=lambda a: a.attempt))


def changes(attempts: Sequence[Attempt]) -> tuple[tuple[str, tuple[Attempt, ...]], ...]:
    """Each change with its attempts, the change gated last coming last."""
    last: dict[str, int] = {}
    for index, attempt in enumerate(attempts):
        last[attempt.change_id] = index
    return tuple(
        (change_id, of_change(attempts, change_id))
        for change_id in sorted(last, key=last.__getitem__)
    )


def case_history(
    attempts: Sequence[Attempt], case: str, *, count: int = RECENT, at_least: int = FLAKY_AFTER
) -> CaseHistory:
    """`case` in each of the last `count` gates, and whether that makes it a flaky candidate."""
    gates = tuple(CaseAt(a, dict(a.flipped).get(case)) for a in recent(attempts, count))
    found = [
        c for c in flaky_candidates(attempts, count=count, at_least=at_least) if c.case == case
    ]
    return CaseHistory(case, gates, found[0] if found else None)


def flaky_candidates(
    attempts: Sequence[Attempt], *, count: int = RECENT, at_least: int = FLAKY_AFTER
) -> tuple[FlakyCandidate, ...]:
    """The cases that flipped in at least `at_least` different changes over the last `count`
    gates, the most widely flipping first (then by case id). A change gated several times
    counts once: its attempts measure one change."""
    changed: dict[str, set[str]] = {}
    broke: dict[str, int] = {}
    fixed: dict[str, int] = {}
    for attempt in recent(attempts, count):
        for case, direction in attempt.flipped:
            changed.setdefault(case, set()).add(attempt.change_id)
            tally = broke if direction == "pass_to_fail" else fixed
            tally[case] = tally.get(case, 0) + 1
    found = [
        FlakyCandidate(case, len(ids), broke.get(case, 0), fixed.get(case, 0))
        for case, ids in changed.items()
        if len(ids) >= at_least
    ]
    return tuple(sorted(found, key=lambda c: (-c.changes, c.case)))
