"""Typed messages the app's thread workers post back to the app thread."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump
from textual.worker import get_current_worker

from flipgate.session import Comparison, Ranking


@dataclass
class Progress(Message, bubble=False):
    """One step of a worker's job begun: `step` of `steps` done so far, the next in words.

    It goes to the app or the screen whose worker posted it, and no further.
    """

    step: int
    steps: int
    description: str


# cases: past this a screen's work over every case (the case lists, a case's rows, a search)
# runs in a worker, the screen saying so: at a million cases each takes a tenth of a second or more
BIG_COMPARISON = 20_000


class Steps:
    """Called with each step's description from inside a worker: posts `Progress` to `target`."""

    def __init__(self, target: MessagePump, steps: int) -> None:
        self.target, self.steps, self.done = target, steps, 0

    def __call__(self, description: str) -> None:
        self.target.post_message(Progress(self.done, self.steps, description))
        self.done = min(self.done + 1, self.steps)


def post_unless_cancelled(target: MessagePump, message: Message) -> None:
    """Post a worker's result, unless a newer run of the same job replaced the worker meanwhile.

    A thread worker cannot be stopped; an exclusive one that was replaced still runs to its end.
    """
    if not get_current_worker().is_cancelled:
        target.post_message(message)


@dataclass
class Loaded(Message):
    """Both runs read and compared: the overview can be drawn."""

    comparison: Comparison


@dataclass
class LoadFailed(Message):
    """Loading stopped on bad input (or on an unexpected error, shown as such)."""

    error: Exception


@dataclass
class RegateRequested(Message):
    """Apply the gate again: with the flaky list as it now is, or (`reruns`) with the reruns."""

    comparison: Comparison
    reruns: bool = False


@dataclass
class RegateFailed(Message):
    """Applying the gate again failed (a bad rerun file, say): the overview stays as it was."""

    error: Exception


@dataclass
class Ranked(Message):
    """Every candidate of a campaign compared with the incumbent and ranked."""

    ranking: Ranking


@dataclass
class CandidateCompared(Message):
    """The candidate chosen on the candidates screen, compared with the incumbent."""

    name: str
    comparison: Comparison
