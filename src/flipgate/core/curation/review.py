"""Checking the flaky list (SPEC §7): each entry flagged against identical baseline runs.

check    entries for cases that no longer exist, safety cases listed, entries quiet for the
         last N runs (ready to release), and listed cases that flipped in the run at hand
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl

from flipgate.core.curation.entries import read_curated
from flipgate.core.curation.flips import FlipRecord, flip_records, identical_runs
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run
from flipgate.core.vocab import FLIPS

READY_WINDOW = 3  # quiet for this many identical runs: ready to release


@dataclass(frozen=True)
class EntryReview:
    entry: FlakyEntry
    age_days: int
    gone: bool  # the case is in none of the runs
    safety: bool  # a safety case: it must not be listed at all
    ready: bool  # quiet in the last N identical runs: ready to release
    record: FlipRecord | None
    flipped_in_run: bool = False  # flipped between the baseline and the candidate being judged

    @property
    def flags(self) -> tuple[str, ...]:
        named = (
            ("gone", self.gone),
            ("safety case", self.safety),
            ("ready to release", self.ready),
            ("flipped in this run", self.flipped_in_run),
        )
        return tuple(name for name, on in named if on)


@dataclass(frozen=True)
class CheckReport:
    entries: tuple[EntryReview, ...]
    runs: tuple[str, ...]
    window: int
    suite_cases: int
    cap: int
    flaky_digest: str

    @property
    def over_cap(self) -> bool:
        return len(self.entries) > self.cap

    @property
    def slots_left(self) -> int:
        return max(self.cap - len(self.entries), 0)

    @property
    def problems(self) -> tuple[str, ...]:
        """What makes the list dishonest; `ready to release` is advice, not a problem."""
        found = [f"{r.entry.case}: gone from the suite" for r in self.entries if r.gone]
        found += [f"{r.entry.case}: a safety case is listed" for r in self.entries if r.safety]
        if self.over_cap:
            found.append(f"{len(self.entries)} entries, above the cap of {self.cap}")
        return tuple(found)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": list(self.runs),
            "window": self.window,
            "suite_cases": self.suite_cases,
            "cap": self.cap,
            "listed": len(self.entries),
            "slots_left": self.slots_left,
            "flaky_digest": self.flaky_digest,
            "problems": list(self.problems),
            "entries": [
                {
                    "case": r.entry.case,
                    "owner": r.entry.owner,
                    "added": r.entry.added.isoformat(),
                    "age_days": r.age_days,
                    "flags": list(r.flags),
                    "flips": r.record.flips if r.record else None,
                    "evidence": r.record.evidence() if r.record else None,
                }
                for r in self.entries
            ],
        }


def review(
    flaky: FlakyList,
    runs: Sequence[Run],
    spec: GateSpec,
    *,
    today: date,
    window: int = READY_WINDOW,
    suite: Sequence[Run] = (),
    flipped_in_run: frozenset[str] = frozenset(),
) -> CheckReport:
    """Flag each entry against identical baseline `runs` (plus `suite`: other runs of the suite)."""
    ordered = identical_runs(runs, at_least=1)
    listed = [e.case for e in flaky.entries]
    records = {r.case: r for r in flip_records(ordered, spec, listed)}
    # Counted in polars, and only the listed cases as Python: the suite may hold a million.
    everything = pl.concat([run.reps.select("case", "safety") for run in [*ordered, *suite]])
    suite_size = everything["case"].n_unique()
    found = everything.filter(pl.col("case").is_in(listed))
    known = set(found["case"].to_list())
    safety = set(found.filter(pl.col("safety"))["case"].to_list())
    recent = {run.run_id for run in ordered[-window:]} if len(ordered) >= window else set()

    def ready(record: FlipRecord | None) -> bool:
        if record is None or not recent:
            return False
        last = [passed for run, passed in record.verdicts if run in recent]
        return None not in last and len(set(last)) == 1

    reviews = tuple(
        EntryReview(
            entry=e,
            age_days=(today - e.added).days,
            gone=e.case not in known,
            safety=e.case in safety,
            ready=ready(records.get(e.case)),
            record=records.get(e.case),
            flipped_in_run=e.case in flipped_in_run,
        )
        for e in flaky.entries
    )
    return CheckReport(
        entries=reviews,
        runs=tuple(run.run_id for run in ordered),
        window=window,
        suite_cases=suite_size,
        cap=spec.flaky_cap(suite_size),
        flaky_digest=flaky.digest,
    )


def flipped_in_run(
    baseline: Run, candidate: Run, spec: GateSpec, flaky: FlakyList
) -> frozenset[str]:
    """Listed cases that flipped between the two arms being judged (the gate's `flaky_flipped`)."""
    return frozenset(compare(baseline, candidate, spec, flaky).result.flaky_flipped)


def flipped_among(cases: pl.DataFrame, flaky: FlakyList) -> frozenset[str]:
    """`flipped_in_run` read from the `cases` of the comparison of those two arms (a pair's cell
    does not depend on the list): no need to compare them again for another list."""
    listed = pl.col("case").is_in(sorted(flaky.cases))
    return frozenset(cases.filter(listed & pl.col("cell").is_in(FLIPS))["case"].to_list())


def check(
    flaky_path: Path,
    runs: Sequence[Run],
    spec: GateSpec,
    *,
    today: date,
    window: int = READY_WINDOW,
    judged: tuple[Run, Run] | None = None,
) -> CheckReport:
    """`review` of the list stored at `flaky_path`; `judged`: the (baseline, candidate) at hand."""
    flaky = read_curated(flaky_path)
    flipped = flipped_in_run(*judged, spec, flaky) if judged else frozenset()
    return review(
        flaky,
        runs,
        spec,
        today=today,
        window=window,
        suite=judged or (),
        flipped_in_run=flipped,
    )


__all__ = [
    "READY_WINDOW",
    "CheckReport",
    "EntryReview",
    "check",
    "flipped_among",
    "flipped_in_run",
    "review",
]
