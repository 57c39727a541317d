"""The triage evidence of a comparison, gathered one way for the app's checklist and for
`flipgate decide`, so that a decision signed from either holds the same broken cases.

Both read the runs whole (`read` without `lean`): the identical baseline runs, which only the
triage reads, are what tells a flaky case from a regression.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison
from flipgate.core.runs.model import Run
from flipgate.core.triage.evidence import TriageStep, evidence


@dataclass(frozen=True)
class Triage:
    """Each class's evidence in walk order; `refused`: why the identical baseline runs were not
    used (their key differs from the baseline's), None when they were or there are none."""

    steps: list[TriageStep]
    refused: InputError | None = None


def triage(comparison: Comparison, repeats: Sequence[Run] = ()) -> Triage:
    """The evidence with the identical baseline runs read beside the comparison; without them
    (and saying why) when they are not the baseline's system."""
    try:
        return Triage(evidence(comparison, repeats))
    except InputError as refused:
        return Triage(evidence(comparison), refused)
