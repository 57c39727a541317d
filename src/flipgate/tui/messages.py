"""Typed messages the loading worker posts back to the app thread."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from flipgate.core.gate.compare import Comparison
from flipgate.core.rank.ranking import Ranking


@dataclass
class LoadProgress(Message):
    """One step of loading done or begun: `step` of `steps`, described in words."""

    step: int
    steps: int
    description: str


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
class Ranked(Message):
    """Every candidate of a campaign compared with the incumbent and ranked."""

    ranking: Ranking
