"""A frozen anchor, re-run on every suite version (seed 002).

"Keeping a frozen snapshot of a small open-weights model ... as a permanent bottom-of-the-range
reference covers the rest, since it can be re-run against anything forever and gives every
version of the suite a fixed low anchor." The manifest names the anchor's system (`anchor:`, a
runs' `key.model`); each suite version the runs were made on (`key.eval_set`) should hold a run
of it. A version without one has no fixed point to read its other scores against, and it cannot
be backfilled once the version is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from flipgate.core.exact import ratio
from flipgate.core.runs.model import Run
from flipgate.core.suite.workspace import HistoryRun, system_of, version_of


@dataclass(frozen=True)
class AnchorRun:
    """The anchor's newest run on one suite version, or None where it has none."""

    version: str
    first_run: date | None  # the first run of any system on this version
    run_id: str | None
    passed: int
    cases: int

    @property
    def score(self) -> float | None:
        return float(ratio(self.passed, self.cases)) if self.run_id is not None else None


@dataclass(frozen=True)
class Anchor:
    system: str
    versions: tuple[AnchorRun, ...]  # every suite version of the runs, oldest first

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(v.version for v in self.versions if v.run_id is None)


def anchor(system: str, history: tuple[HistoryRun, ...], today: Run | None) -> Anchor:
    """The anchor `system` on each suite version that `history` and `today` were run on."""
    runs: list[tuple[Run, pl.DataFrame | None]] = [(h.run, h.verdicts) for h in history]
    if today is not None and all(run is not today for run, _ in runs):
        runs.append((today, None))
    by_version: dict[str, AnchorRun] = {}
    for run, verdicts in runs:  # oldest first
        version = version_of(run)
        if version is None:
            continue
        day = run.created.date() if run.created else None
        entry = by_version.setdefault(version, AnchorRun(version, day, None, 0, 0))
        if system_of(run) == system and verdicts is not None:
            entry = AnchorRun(
                version, entry.first_run, run.run_id, int(verdicts["passed"].sum()), verdicts.height
            )
        by_version[version] = entry
    return Anchor(system, tuple(by_version.values()))
