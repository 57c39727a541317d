"""A new gate of a change judged with the ones before it (issue 24 item 3): which attempt and look
it is, and which earlier verdicts a PASS may not follow.

- **Looks.** Every attempt on a change is a further look at it: its first comparison is the look
  after the last one taken (an attempt that applied the escalation's reruns took two). The looks
  share alpha (SPEC §9): the boundary of each is the gate spec's, by its number. Gating the very
  same runs again is the same look again, not a new one.
- **Rerunning until green.** A PASS may not follow a BLOCK or INCONCLUSIVE of the same change
  unless a new change was declared since (the candidate measured another system: its cache key
  or declared change differs), or this attempt is the escalation seed 001 prescribes for that
  INCONCLUSIVE: the full set after a smoke run, or the rerun of the flipped cases (the same runs
  with the reruns applied). A later BLOCK or INCONCLUSIVE is never refused: it fails closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flipgate.core.attempts.entry import Attempt, RunSeen
from flipgate.core.attempts.ledger import Ledger
from flipgate.core.gate.attempts import Earlier
from flipgate.core.vocab import Verdict

REFUSED_AFTER: tuple[Verdict, ...] = ("BLOCK", "INCONCLUSIVE")  # what a PASS may not follow


@dataclass(frozen=True)
class ThisAttempt:
    """What is known of a gate before it is judged: its change, suite, runs and reruns."""

    change_id: str
    suite: str
    baseline: RunSeen
    candidate: RunSeen
    declared_change: tuple[str, ...]
    reruns: bool  # the escalation's rerun results are applied in this attempt


def earlier(history: Sequence[Attempt], this: ThisAttempt) -> Earlier:
    """What `history` (the ledger's attempts, oldest first) says of `this` attempt."""
    before = sorted((a for a in history if a.change_id == this.change_id), key=lambda a: a.attempt)
    runs = (this.baseline.run_id, this.candidate.run_id)
    same_runs = [a for a in before if a.runs() == runs]
    # the same measurement gated again is the same look; anything else, the next one
    look = same_runs[-1].look if same_runs else 1 + max((a.last_look for a in before), default=0)
    return Earlier(
        change_id=this.change_id,
        attempt=len(before) + 1,
        look=look,
        verdicts=tuple(a.verdict for a in before),
        refusing=tuple(a.verdict for a in before if _refuses_pass(a, this)),
    )


def _refuses_pass(before: Attempt, this: ThisAttempt) -> bool:
    if before.verdict not in REFUSED_AFTER:
        return False
    if new_change(before, this):
        return False
    return not escalates(before, this)


def new_change(before: Attempt, this: ThisAttempt) -> bool:
    """Has a new change been declared since `before`: another system measured, or another
    change declared?"""
    return dict(before.candidate.key) != dict(
        this.candidate.key
    ) or before.declared_change != tuple(sorted(set(this.declared_change)))


def escalates(before: Attempt, this: ThisAttempt) -> bool:
    """Is `this` the escalation seed 001 prescribes after `before`'s INCONCLUSIVE: the full set
    after the smoke set, or the flipped cases rerun on the same runs?"""
    if before.verdict != "INCONCLUSIVE":
        return False
    if before.escalation == "run_full_set":
        return this.suite == "full"
    if before.escalation == "rerun_flipped":
        return this.reruns and before.runs() == (this.baseline.run_id, this.candidate.run_id)
    return False


@dataclass(frozen=True)
class Recorded:
    """The ledger a gate is recorded in, every attempt it held when read, and this gate."""

    ledger: Ledger
    history: tuple[Attempt, ...]
    this: ThisAttempt

    @property
    def earlier(self) -> Earlier:
        return earlier(self.history, self.this)

    @property
    def seen(self) -> tuple[str, ...]:
        """The ids of the change's attempts this gate is judged with, in their order."""
        change = (a for a in self.history if a.change_id == self.this.change_id)
        return tuple(a.id for a in sorted(change, key=lambda a: a.attempt))
