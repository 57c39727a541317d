"""A change gated before (issue 24): which attempt and which look this gate is, and the PASS
refused after an earlier BLOCK or INCONCLUSIVE of the same change.

Seed 001 forbids rerunning until green: "a case that truly passes half the time goes green at
least once in three tries 87.5 percent of the time". A ledger of attempts (`core/attempts/`)
remembers every gate of a change and says, before this one is judged, what came before
(`Earlier`): the looks already taken, which share alpha with this one (SPEC §9), and the earlier
verdicts a PASS may not follow (those of the same measured change that no new change declared
since and that this attempt is not the prescribed escalation of). The gate finds the refusal
only where it would otherwise PASS: a BLOCK after a BLOCK is no rerun until green.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from flipgate.core.vocab import InvalidCode, Verdict


@dataclass(frozen=True)
class Earlier:
    """What the ledger knew of this change before this gate."""

    change_id: str
    attempt: int  # this attempt's number on the change, from 1
    look: int  # the look this attempt's first comparison is, from 1
    verdicts: tuple[Verdict, ...]  # every earlier attempt's verdict, oldest first
    refusing: tuple[Verdict, ...]  # the earlier verdicts a PASS may not follow, oldest first

    @property
    def first(self) -> bool:
        return self.attempt == 1


@dataclass(frozen=True)
class RerunUntilGreen:
    """A PASS after a BLOCK or INCONCLUSIVE of the same change, with no new change declared and
    not by the prescribed escalation."""

    code: ClassVar[InvalidCode] = "rerun_until_green"
    change_id: str
    attempt: int
    earlier: tuple[Verdict, ...]  # the verdicts it follows


def rerun_until_green(earlier: Earlier | None) -> RerunUntilGreen | None:
    """The refusal of a PASS that `earlier` holds, if any."""
    if earlier is None or not earlier.refusing:
        return None
    return RerunUntilGreen(earlier.change_id, earlier.attempt, earlier.refusing)
