"""What the reviewer looked at, recorded as the app is used (issue 24 item 4).

A screen says what was looked at by posting `Reviewed`; it bubbles to the app, and a
`FlipgateApp` that records (`review_log` is a list) appends it. The decision screen reads the log
(`log_of`) for the cases reviewed and signs it into the decision; an app replaying a decision has
no log, so walking it again records nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import App
from textual.message import Message

from flipgate.core.decision.review_log import Looked


@dataclass
class Reviewed(Message):
    """The reviewer looked at something, or recorded or undid a finding."""

    looked: Looked


def log_of(app: App[object]) -> tuple[Looked, ...]:
    """What the reviewer looked at in `app` so far; nothing when it records no log."""
    log: list[Looked] | None = getattr(app, "review_log", None)
    return tuple(log or ())
