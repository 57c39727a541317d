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
    RuleRegistered,
    RunRef,
    now_utc,
)
from flipgate.core.decision.review_log import Looked
from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.registered import RegisteredAfterCandidate


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
    cases_added: Iterable[str] = (),
    review_log: Iterable[Looked] | None = None,
    broken_cases: Iterable[CasePlacement] = (),
    created: datetime | None = None,
) -> DecisionRecord:
    """The decision on `comparison`, its runs digested now, their paths relative to `workspace`;
    with the rule the gate held it to, when one was registered. `cases_added`: the cases
    reviewed that the `review_log` does not show opened (without a log: all of them)."""
    base, cand = comparison.baseline, comparison.candidate
    registration = comparison.result.registration
    if any(isinstance(r, RegisteredAfterCandidate) for r in comparison.result.invalid_reasons):
        registration = None  # registered after the run: the file never says "before run R"
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
        cases_added=tuple(cases_added),
        review_log=None if review_log is None else tuple(review_log),
        registration=None
        if registration is None
        else RuleRegistered(
            registration.registered, registration.signer, registration.digest, cand.run_id
        ),
        broken_cases=tuple(broken_cases),
    )
