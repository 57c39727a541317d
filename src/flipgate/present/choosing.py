"""A candidate's gaps against the campaign's grid, and why it may not be chosen, in words (the
codes and their facts: `core/rank/ranking.py`'s `Gaps`, `core/rank/choice.py`'s refusals)."""

from __future__ import annotations

from functools import singledispatch

from flipgate.core.plural import plural
from flipgate.core.rank.choice import BelowFirstGroup, GateRefuses, Incomplete, NotACandidate
from flipgate.core.rank.ranking import Gaps


def gaps_words(gaps: Gaps) -> str:
    """`complete`, or what is missing, not graded or beyond the incumbent's repetitions:
    `1 case missing (2 repetitions), 1 infra repetition`."""
    if gaps.complete:
        return "complete"
    parts = []
    if gaps.missing_cases:
        missing = f"({plural(gaps.missing_reps, 'repetition')})"
        parts.append(f"{plural(gaps.missing_cases, 'case')} missing {missing}")
    elif gaps.missing_reps:
        parts.append(f"{plural(gaps.missing_reps, 'repetition')} missing")
    if gaps.infra_reps:
        parts.append(plural(gaps.infra_reps, "infra repetition"))
    if gaps.extra_reps:
        parts.append(f"{plural(gaps.extra_reps, 'repetition')} beyond the incumbent's")
    return ", ".join(parts)


@singledispatch
def refusal_words(refusal: object) -> str:
    """Why a candidate may not be chosen, in words."""
    raise TypeError(f"no words for the refusal {refusal!r}")


@refusal_words.register
def _(r: NotACandidate) -> str:
    return f"{r.name!r} is not a candidate of this campaign ({', '.join(r.candidates)})"


@refusal_words.register
def _(r: Incomplete) -> str:
    return (
        f"{r.name} is incomplete ({gaps_words(r.gaps)}): judged on fewer cells than the "
        "campaign asks, it cannot be chosen"
    )


@refusal_words.register
def _(r: GateRefuses) -> str:
    return (
        f"{r.name}'s gate against the incumbent says {r.verdict}: a choice among tied "
        "candidates does not overrule the gate"
    )


@refusal_words.register
def _(r: BelowFirstGroup) -> str:
    return (
        f"{r.name} is not in the first tie group ({' = '.join(r.group)}): the data ranks it "
        "below them, so it is not a choice among equals"
    )
