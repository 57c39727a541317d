"""What the reviewer looked at before deciding (issue 24 item 4): the review log a signed decision
carries, so that `flipgate replay` can walk it again.

The app appends a `Looked` for each case and repetition opened, each view of the outputs and of a
trajectory's turns, each triage finding recorded or undone, and each case added to (or taken off)
the cases reviewed by hand, with the time. The decision's cases reviewed are the cases opened,
then those added by hand (`reviewed_cases`): never a case the reviewer did not open or name.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flipgate.core.decision.fields import InvalidDecision, now_utc, one_line, one_of
from flipgate.core.vocab import FINDINGS, REVIEW_EVENTS, TRIAGE_CLASSES, ReviewEvent

# What each event names besides its time: the fields it must have, and those it may have.
NEEDS: dict[ReviewEvent, tuple[str, ...]] = {
    "case_opened": ("case",),
    "rep_viewed": ("case", "rep"),
    "outputs_viewed": ("case", "rep", "view"),
    "turn_viewed": ("case", "rep", "turn", "view"),
    "finding_recorded": ("class", "finding"),
    "finding_undone": ("class",),
    "case_added": ("case",),
    "case_removed": ("case",),
}
MAY: dict[ReviewEvent, tuple[str, ...]] = {
    "case_opened": ("rep", "view"),
    "finding_undone": ("finding",),
}
FIELDS = ("case", "rep", "view", "turn", "class", "finding")


@dataclass(frozen=True)
class Looked:
    """One thing the reviewer did, at a time (UTC, to the second); `event` says which fields it
    has (`NEEDS`, `MAY`): the case and repetition opened, the view (an outputs mode such as
    `diff`; a turn `unfold`ed, `diff`ed or reached as the first `divergence`), the turn, the
    triage class and finding."""

    event: ReviewEvent
    at: datetime = field(default_factory=now_utc)
    case: str | None = None
    rep: int | None = None
    view: str | None = None
    turn: int | None = None
    triage_class: str | None = None
    finding: str | None = None

    def __post_init__(self) -> None:
        one_of("review_log.event", self.event, REVIEW_EVENTS)
        if self.at.utcoffset() is None:
            raise InvalidDecision("review_log.at", "the time needs a time zone (use UTC)")
        given = {name for name, value in self.fields().items() if value is not None}
        needs, may = set(NEEDS[self.event]), set(MAY.get(self.event, ()))
        if missing := sorted(needs - given):
            raise InvalidDecision(f"review_log.{missing[0]}", f"a {self.event} names it")
        if extra := sorted(given - needs - may):
            raise InvalidDecision(f"review_log.{extra[0]}", f"a {self.event} does not name it")
        for name in ("case", "view"):
            if (value := getattr(self, name)) is not None:
                one_line(f"review_log.{name}", value)
        for name in ("rep", "turn"):
            count = getattr(self, name)
            if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
                raise InvalidDecision(f"review_log.{name}", f"{count!r} is not a whole number")
        if self.triage_class is not None:
            one_of("review_log.class", self.triage_class, TRIAGE_CLASSES)
        if self.finding is not None:
            one_of("review_log.finding", self.finding, FINDINGS)

    def fields(self) -> dict[str, Any]:
        """The event's fields by their names in the file, None where it has none."""
        return {
            "case": self.case,
            "rep": self.rep,
            "view": self.view,
            "turn": self.turn,
            "class": self.triage_class,
            "finding": self.finding,
        }


def opened(log: Iterable[Looked]) -> tuple[str, ...]:
    """The cases the reviewer opened, in the order first opened."""
    return tuple(dict.fromkeys(e.case for e in log if e.event == "case_opened" and e.case))


def added_by_hand(log: Iterable[Looked]) -> tuple[str, ...]:
    """The cases added to the cases reviewed by hand and not taken off again, in order added."""
    added: dict[str, None] = {}
    for e in log:
        if e.case is None:
            continue
        if e.event == "case_added":
            added[e.case] = None
        elif e.event == "case_removed":
            added.pop(e.case, None)
    return tuple(added)


def reviewed_cases(log: Sequence[Looked]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The cases reviewed as the decision records them (those opened, then those added by hand
    and never opened), and of them the ones added by hand."""
    seen = opened(log)
    added = tuple(case for case in added_by_hand(log) if case not in seen)
    return (*seen, *added), added
