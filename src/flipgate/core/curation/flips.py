"""Flips across identical baseline runs (SPEC §7), and the flaky-list entries proposed from them.

propose  runs of one baseline (same key) -> the cases whose collapsed verdict flipped between
         them; safety cases that flip are findings about the agent, never proposals
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import GateSpec
from flipgate.core.order import natural_key, natural_sorted
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run


@dataclass(frozen=True)
class FlipRecord:
    """A case's collapsed verdict in each of several identical runs, in run order."""

    case: str
    safety: bool
    verdicts: tuple[tuple[str, bool | None], ...]  # (run_id, passed); None: missing in that run

    @property
    def graded(self) -> tuple[tuple[str, bool], ...]:
        return tuple((run, passed) for run, passed in self.verdicts if passed is not None)

    @property
    def flipped_between(self) -> tuple[tuple[str, str], ...]:
        """(run, next run) pairs whose verdicts differ, skipping runs where the case is missing."""
        graded = self.graded
        return tuple((a, b) for (a, pa), (b, pb) in pairwise(graded) if pa != pb)

    @property
    def flips(self) -> int:
        return len(self.flipped_between)

    def evidence(self) -> str:
        """`flipped in 2 of 3 identical baseline runs: run-a pass, run-b fail, run-c pass`."""
        shown = ", ".join(
            f"{run} {'missing' if passed is None else 'pass' if passed else 'fail'}"
            for run, passed in self.verdicts
        )
        return f"flipped in {self.flips} of {len(self.graded)} identical baseline runs: {shown}"


def _ordered(runs: Sequence[Run]) -> list[Run]:
    """Oldest first when every run says when it was made; otherwise the order given."""
    if all(run.created is not None for run in runs):
        return sorted(runs, key=lambda run: run.created or datetime.min)
    return list(runs)


def identical_runs(runs: Sequence[Run], *, at_least: int) -> list[Run]:
    """The runs in order, refused unless they measured the same system (same key)."""
    if len(runs) < at_least:
        where = runs[0].path if runs else Path(".")
        raise InputError(
            where, f"need at least {at_least} runs of the same baseline, got {len(runs)}"
        )
    seen: dict[str, Path] = {}
    for run in runs:
        if run.run_id in seen:
            raise InputError(
                run.path, f"run {run.run_id!r} is given twice (also {seen[run.run_id]})"
            )
        seen[run.run_id] = run.path
    first = runs[0]
    for run in runs[1:]:
        differs = moved_components(first.key, run.key)
        if differs:
            moved = differs[0]
            raise InputError(
                run.path,
                f"not an identical baseline run: key {moved.name} is {moved.shown_after} in "
                f"{run.run_id} but {moved.shown_before} in {first.run_id}",
                field=f"key.{moved.name}",
            )
    return _ordered(runs)


def flip_records(
    runs: Sequence[Run], spec: GateSpec, cases: Collection[str] | None = None
) -> list[FlipRecord]:
    """Every case of any of `runs` (or those of `cases` in any) with its collapsed verdict per
    run, sorted by case."""
    verdicts: dict[str, dict[str, bool | None]] = {}
    safety: dict[str, bool] = {}
    for run in runs:
        collapsed = collapsed_verdicts(run, spec)
        if cases is not None:  # a list's entries: a record a case is Python, a million is seconds
            collapsed = collapsed.filter(pl.col("case").is_in(sorted(cases)))
        for case, is_safety, passed in collapsed.iter_rows():
            verdicts.setdefault(case, {})[run.run_id] = passed
            safety[case] = safety.get(case, False) or bool(is_safety)
    return [
        FlipRecord(
            case,
            safety[case],
            tuple((run.run_id, verdicts[case].get(run.run_id)) for run in runs),
        )
        for case in natural_sorted(verdicts)
    ]


def suite_cases(runs: Sequence[Run]) -> set[str]:
    return {case for run in runs for case in run.reps["case"].unique().to_list()}


def safety_cases(runs: Sequence[Run]) -> set[str]:
    return {
        case
        for run in runs
        for case in run.reps.filter(pl.col("safety"))["case"].unique().to_list()
    }


@dataclass(frozen=True)
class ProposedEntry:
    case: str
    owner: str | None
    evidence: str
    record: FlipRecord


@dataclass(frozen=True)
class Proposal:
    runs: tuple[str, ...]
    key: dict[str, str]
    suite_cases: int
    cap: int
    listed: int
    entries: tuple[ProposedEntry, ...]  # most flips first
    safety_findings: tuple[FlipRecord, ...]  # safety cases that flipped: findings, never listed
    already_listed: tuple[FlipRecord, ...]  # listed cases that flipped again
    flaky_digest: str
    judge_alone: bool = False  # the runs are judgings of one run's stored outputs (judge.py)

    @property
    def slots_left(self) -> int:
        return max(self.cap - self.listed, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": list(self.runs),
            "key": self.key,
            "suite_cases": self.suite_cases,
            "cap": self.cap,
            "listed": self.listed,
            "slots_left": self.slots_left,
            "flaky_digest": self.flaky_digest,
            "judge_alone": self.judge_alone,
            "proposals": [
                {
                    "case": e.case,
                    "owner": e.owner,
                    "flips": e.record.flips,
                    "flipped_between": [list(pair) for pair in e.record.flipped_between],
                    "evidence": e.evidence,
                    "fits": i < self.slots_left,
                }
                for i, e in enumerate(self.entries)
            ],
            "safety_findings": [_record_json(r) for r in self.safety_findings],
            "already_listed": [_record_json(r) for r in self.already_listed],
        }


def _record_json(record: FlipRecord) -> dict[str, Any]:
    return {
        "case": record.case,
        "flips": record.flips,
        "flipped_between": [list(pair) for pair in record.flipped_between],
        "evidence": record.evidence(),
    }


def propose(runs: list[Run], spec: GateSpec, flaky: FlakyList, owner: str | None) -> Proposal:
    """Entries for the cases that flipped between identical runs of one baseline."""
    ordered = identical_runs(runs, at_least=2)
    return proposal_of(
        flip_records(ordered, spec),
        tuple(run.run_id for run in ordered),
        dict(ordered[0].key),
        len(suite_cases(ordered)),
        spec,
        flaky,
        owner,
    )


def proposal_of(
    records: Sequence[FlipRecord],
    runs: tuple[str, ...],
    key: dict[str, str],
    cases: int,
    spec: GateSpec,
    flaky: FlakyList,
    owner: str | None,
    evidence: Callable[[FlipRecord], str] = FlipRecord.evidence,
    *,
    judge_alone: bool = False,
) -> Proposal:
    """The proposal for `records` read across `runs` (of a suite of `cases` cases): the flipped
    cases neither listed nor safety, most flips first, each with its `evidence`."""
    flipped = [r for r in records if r.flips]
    listed = flaky.cases
    new = sorted(
        (r for r in flipped if not r.safety and r.case not in listed),
        key=lambda r: (-r.flips, natural_key(r.case)),
    )
    return Proposal(
        runs=runs,
        key=key,
        suite_cases=cases,
        cap=spec.flaky_cap(cases),
        listed=len(flaky.entries),
        entries=tuple(ProposedEntry(r.case, owner, evidence(r), r) for r in new),
        safety_findings=tuple(r for r in flipped if r.safety),
        already_listed=tuple(r for r in flipped if r.case in listed and not r.safety),
        flaky_digest=flaky.digest,
        judge_alone=judge_alone,
    )
