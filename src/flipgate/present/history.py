"""`flipgate history` in words and as JSON: a ledger's changes and their attempts, a case's
verdicts across the recent gates, and the flaky candidates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flipgate.core.attempts.entry import Attempt
from flipgate.core.attempts.history import (
    FLAKY_AFTER,
    CaseHistory,
    FlakyCandidate,
)
from flipgate.core.gate.mcnemar import format_p
from flipgate.core.plural import plural
from flipgate.present.reasons.words import when
from flipgate.present.report.shared import DIRECTION_WORDS
from flipgate.present.text import safe


def attempt_line(a: Attempt) -> str:
    """`#2 2026-12-01T09:00:00Z PASS within_margin · b 3, c 2, p 0.500 · look 2 · full · ...`."""
    first = f" (first look {a.first_verdict}, rerun applied)" if a.first_verdict else ""
    looks = f"looks {a.look}-{a.last_look}" if a.looks > 1 else f"look {a.look}"
    registered = " · registered" if a.registration else ""
    return safe(
        f"#{a.attempt} {when(a.at)} {a.verdict}{first} {a.rule} · b {a.b}, c {a.c}, "
        f"p {format_p(a.p)} · {looks} · {a.suite} · {a.baseline.run_id} -> "
        f"{a.candidate.run_id}{registered}"
    )


def changes_text(where: str, changes: Sequence[tuple[str, Sequence[Attempt]]]) -> list[str]:
    total = sum(len(attempts) for _, attempts in changes)
    lines = [
        safe(f"ledger {where}: {plural(total, 'attempt')} of {plural(len(changes), 'change')}")
    ]
    for change_id, attempts in changes:
        lines.append(safe(f"change {change_id}: {plural(len(attempts), 'attempt')}"))
        lines.extend(f"  {attempt_line(a)}" for a in attempts)
    return lines


def candidates_text(candidates: Sequence[FlakyCandidate], recent: int) -> list[str]:
    over = f"in {FLAKY_AFTER} or more different changes over the last {plural(recent, 'gate')}"
    if not candidates:
        return [f"flaky candidates: none (no case flipped {over})"]
    return [
        f"flaky candidates: cases flipped {over} (confirm with identical baseline runs: "
        "`flipgate flaky propose`)",
        *(f"  {candidate_words(c)}" for c in candidates),
    ]


def candidate_words(c: FlakyCandidate) -> str:
    return safe(f"{c.case}: {plural(c.changes, 'change')} ({c.broke} broke, {c.fixed} fixed)")


def case_text(history: CaseHistory) -> list[str]:
    flipped = sum(1 for at in history.gates if at.flipped)
    lines = [
        safe(
            f"case {history.case} over the last {plural(len(history.gates), 'gate')}: flipped in "
            f"{flipped}"
        )
        + (
            f"; a flaky candidate: {candidate_words(history.candidate)}"
            if history.candidate
            else ""
        )
    ]
    for at in history.gates:
        what = DIRECTION_WORDS[at.flipped] if at.flipped else "did not flip"
        a = at.attempt
        lines.append(safe(f"  {when(a.at)} change {a.change_id} #{a.attempt} {a.verdict}: {what}"))
    return lines


def attempt_json(a: Attempt) -> dict[str, Any]:
    return {
        "change_id": a.change_id,
        "attempt": a.attempt,
        "at": when(a.at),
        "verdict": a.verdict,
        "first_verdict": a.first_verdict,
        "rule": a.rule,
        "b": a.b,
        "c": a.c,
        "p": a.p,
        "look": a.look,
        "looks": a.looks,
        "suite": a.suite,
        "escalation": a.escalation,
        "runs": {
            "baseline": {"run_id": a.baseline.run_id, "key": dict(a.baseline.key)},
            "candidate": {"run_id": a.candidate.run_id, "key": dict(a.candidate.key)},
        },
        "spec_digest": a.spec_digest,
        "flaky_digest": a.flaky_digest,
        "declared_change": list(a.declared_change),
        "registration": a.registration,
        "flipped": [{"case": case, "direction": d} for case, d in a.flipped],
        "digest": a.digest,
        "prev": a.prev,
    }


def candidate_json(c: FlakyCandidate) -> dict[str, Any]:
    return {"case": c.case, "changes": c.changes, "pass_to_fail": c.broke, "fail_to_pass": c.fixed}


def case_json(history: CaseHistory) -> dict[str, Any]:
    return {
        "case": history.case,
        "gates": [
            {
                "change_id": at.attempt.change_id,
                "attempt": at.attempt.attempt,
                "at": when(at.attempt.at),
                "verdict": at.attempt.verdict,
                "flipped": at.flipped,
            }
            for at in history.gates
        ],
        "flaky_candidate": None if history.candidate is None else candidate_json(history.candidate),
    }
