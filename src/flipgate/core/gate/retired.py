"""Retired cases: archived from the suite with a date and a reason, never deleted.

A retired case may still be in a run; like a flaky one it is shown, but left out of `b` and `c`.
The suite manifest (`flipgate.core.suite.manifest`) says which cases are retired; the gate needs
only this much of it, and, given the manifest where the change is going, which retirements the
change under test adds: those make the comparison INVALID, as an added flaky entry does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from flipgate.core.order import natural_sorted
from flipgate.core.vocab import BaseFile


@dataclass(frozen=True)
class RetiredCase:
    case: str
    retired: date
    reason: str


@dataclass(frozen=True)
class Retirements:
    cases: tuple[RetiredCase, ...] = ()
    base: frozenset[str] | None = None  # retired where the change is going; None: no base given
    digest: str | None = None  # of the manifest's bytes; None: no manifest read
    # the manifest as git names it at the base revision, when it is in use here and not there
    base_not_found: tuple[tuple[BaseFile, str], ...] = ()

    @property
    def names(self) -> frozenset[str]:
        return frozenset(r.case for r in self.cases)

    @property
    def added(self) -> tuple[str, ...]:
        """Retirements the change under test makes (none known without a base)."""
        if self.base is None:
            return ()
        return tuple(natural_sorted(self.names - self.base))


NO_RETIREMENTS = Retirements()
