"""From a gate comparison to the record a reviewer signs (SPEC §6), shared by the CLI and the app."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from flipgate.core.decision.record import (
    CasePlacement,
    ChecklistEntry,
    DecisionRecord,
    GateSummary,
    Reviewer,
    RunRef,
    now_utc,
)
from flipgate.core.gate.compare import Comparison


def gate_summary(comparison: Comparison) -> GateSummary:
    result = comparison.result
    return GateSummary(
        verdict=result.verdict,
        rule=result.rule,
        b=result.b,
        c=result.c,
        p=result.p,
        spec_digest=result.spec_digest,
        flaky_digest=result.flaky_digest,
    )


def build_record(
    comparison: Comparison,
    *,
    workspace: Path,
    decision: str,
    cause: str,
    reason: str,
    reviewer: Reviewer,
    checklist: Iterable[ChecklistEntry] = (),
    cases_reviewed: Iterable[str] = (),
    broken_cases: Iterable[CasePlacement] = (),
    created: datetime | None = None,
) -> DecisionRecord:
    """The decision on `comparison`, its runs digested now, their paths relative to `workspace`."""
    base, cand = comparison.baseline, comparison.candidate
    return DecisionRecord(
        decision=decision,
        cause=cause,
        reason=reason,
        reviewer=reviewer,
        created=created or now_utc(),
        gate=gate_summary(comparison),
        baseline=RunRef.measure(base.path, base.run_id, workspace),
        candidate=RunRef.measure(cand.path, cand.run_id, workspace),
        checklist=tuple(checklist),
        cases_reviewed=tuple(cases_reviewed),
        broken_cases=tuple(broken_cases),
    )
