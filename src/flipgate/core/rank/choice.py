"""A person's choice among a campaign's candidates (seed 003: a tie on the key keeps the incumbent
"unless a secondary rule or a human decision says otherwise"): which candidates may be chosen,
and the ranking the person saw, as plain data to sign (`core/decision/choice.py`). Why a
candidate may not be chosen is a code with its facts (`refusal`; words: `present/choosing.py`).

`seen` is what the signed record holds of the ranking. Its `digest` covers every exact figure:
the runs' content digests, the settings, each candidate's key, cells, completeness, tie group,
labels, verdict and flips. The p-values a library computes in floating point are beside it,
outside the digest, and `differences` compares them within a relative 1e-9, so that a ranking
recomputed from the same runs on another machine is the same ranking.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from flipgate.core.decision.record import RunRef
from flipgate.core.io.digest import bytes_digest
from flipgate.core.rank.ranking import Gaps, Ranking, ReleaseRule, Standing
from flipgate.core.vocab import Aggregate, RefusalCode, Verdict

FLOAT_TOLERANCE = 1e-9  # relative: a p-value recomputed elsewhere may differ in its last digits
_ABSENT = object()  # a field one side lacks differs even from a null on the other
_OUTSIDE_DIGEST = "evidence"  # each candidate's p-values: floats, compared within the tolerance
# A chosen candidate's gate against the incumbent may not say these: a choice is no override.
_GATE_REFUSES: tuple[Verdict, ...] = ("BLOCK", "INVALID")


def top_group(ranking: Ranking) -> tuple[str, ...]:
    """The complete candidates the data cannot order below the first: the first tie group."""
    return ranking.tie_groups[0] if ranking.tie_groups else ()


@dataclass(frozen=True)
class NotACandidate:
    """The name chosen is none of the campaign's candidates."""

    code: ClassVar[RefusalCode] = "not_a_candidate"
    name: str
    candidates: tuple[str, ...]  # the campaign's, ranked


@dataclass(frozen=True)
class Incomplete:
    """The candidate chosen was judged on fewer cells than the campaign asks."""

    code: ClassVar[RefusalCode] = "incomplete"
    name: str
    gaps: Gaps


@dataclass(frozen=True)
class GateRefuses:
    """The candidate's gate against the incumbent blocks or is invalid."""

    code: ClassVar[RefusalCode] = "gate_refuses"
    name: str
    verdict: Verdict


@dataclass(frozen=True)
class BelowFirstGroup:
    """The data ranks the candidate below the first tie group: not a choice among equals."""

    code: ClassVar[RefusalCode] = "below_first_group"
    name: str
    group: tuple[str, ...]  # the first tie group


Refusal = NotACandidate | Incomplete | GateRefuses | BelowFirstGroup


def refusal(ranking: Ranking, name: str) -> Refusal | None:
    """Why `name` may not be chosen, or None: it must be a complete candidate in the first tie
    group whose gate against the incumbent neither blocks nor is invalid. A choice is among
    candidates the data cannot tell apart; it never overrules the key, coverage or the gate."""
    names = tuple(s.name for s in ranking.standings)
    if name not in names:
        return NotACandidate(name, names)
    standing = ranking.standing(name)
    if not standing.eligible:
        return Incomplete(name, standing.gaps)
    if standing.gate.verdict in _GATE_REFUSES:
        return GateRefuses(name, standing.gate.verdict)
    group = top_group(ranking)
    if name not in group:
        return BelowFirstGroup(name, group)
    return None


def seen(ranking: Ranking, workspace: Path, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """The ranking as the record keeps it: `inputs` (the files and options it was computed
    with), the runs' digests (paths relative to `workspace`), every candidate's figures and the
    labels, and the digest of the exact part."""
    first = ranking.standings[0].gate
    incumbent = ranking.incumbent
    block: dict[str, Any] = {
        "inputs": dict(inputs),
        "rule": _signed_rule(ranking.rule),
        "release": {
            "key": ranking.release.key,
            "repetitions": ranking.release.repetitions,
            "min_key": ranking.release.min_key,
        },
        "spec_digest": first.spec_digest,
        "flaky_digest": first.flaky_digest,
        "alpha": ranking.alpha,
        "cases": ranking.cases,
        "repetitions": ranking.repetitions,
        "incumbent": {
            **_run(incumbent.path, incumbent.run_id, workspace),
            "release_key": incumbent.release_key,
            "cells": {"graded": incumbent.cells.graded, "passing": incumbent.cells.passing},
        },
        "candidates": [_candidate(ranking, s, workspace) for s in ranking.standings],
        "highest_mean": list(ranking.highest_mean),
        "winner": ranking.winner,
        "clearance": ranking.clearance.code,
        "tie_groups": [list(group) for group in ranking.tie_groups],
        "top_group": list(top_group(ranking)),
    }
    return {"digest": ranking_digest(block), **block}


def _signed_rule(rule: ReleaseRule) -> str:
    """The release rule as format 1 of a choice file records it."""
    return _SIGNED_RULES[rule.ordinary, rule.safety]


_EVERY, _MAJORITY = (
    "every repetition passes",
    "a strict majority of its repetitions pass (a tie fails)",
)
# The words `flipgate rank` printed for the rule when format 1 was made. A record, not a report
# (present/ranking.py words the rule for a person): frozen, so that each choice signed with them
# still verifies.
_SIGNED_RULES: dict[tuple[Aggregate, Aggregate], str] = {
    ("all", "all"): f"a case passes when {_EVERY}, safety cases too",
    ("majority", "majority"): f"a case passes when {_MAJORITY}, safety cases too",
    ("majority", "all"): f"a case passes when {_MAJORITY}; a safety case when {_EVERY}",
    ("all", "majority"): f"a case passes when {_EVERY}; a safety case when {_MAJORITY}",
}


def ranking_digest(block: Mapping[str, Any]) -> str:
    """`sha256:` of the exact part of a `seen` block: all of it but the digest itself and each
    candidate's evidence."""
    exact = {key: value for key, value in block.items() if key != "digest"}
    exact["candidates"] = [
        {key: value for key, value in candidate.items() if key != _OUTSIDE_DIGEST}
        for candidate in block.get("candidates", [])
    ]
    return bytes_digest(json.dumps(exact, sort_keys=True, ensure_ascii=False).encode())


def differences(recorded: object, now: object, where: str = "ranking") -> list[str]:
    """The dotted fields where the ranking recorded and the ranking now differ (floats within
    `FLOAT_TOLERANCE`, relative), in document order."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        keys = [*recorded, *(key for key in now if key not in recorded)]
        return [
            found
            for key in keys
            for found in differences(
                recorded.get(key, _ABSENT), now.get(key, _ABSENT), f"{where}.{key}"
            )
        ]
    if isinstance(recorded, list) and isinstance(now, list) and len(recorded) == len(now):
        return [
            found
            for index, (was, is_) in enumerate(zip(recorded, now, strict=True))
            for found in differences(was, is_, f"{where}[{index}]")
        ]
    if isinstance(recorded, float) or isinstance(now, float):
        a, b = _number(recorded), _number(now)
        if a is not None and b is not None:
            return [] if math.isclose(a, b, rel_tol=FLOAT_TOLERANCE) else [where]
    return [] if recorded == now and type(recorded) is type(now) else [where]


def _number(value: object) -> float | None:
    """`value` as a float when it is a number (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _run(path: Path, run_id: str, workspace: Path) -> dict[str, str]:
    ref = RunRef.measure(path, run_id, workspace)
    return {"run_id": ref.run_id, "path": ref.path, "digest": ref.digest}


def _candidate(ranking: Ranking, s: Standing, workspace: Path) -> dict[str, Any]:
    return {
        "name": s.name,
        **_run(s.path, s.run_id, workspace),
        "release_key": s.release_key,
        "cells": {"graded": s.cells.graded, "passing": s.cells.passing},
        "complete": s.gaps.complete,
        "tie_group": s.group,
        "gate": {"verdict": s.gate.verdict, "b": s.gate.b, "c": s.gate.c},
        "labels": list(ranking.labels(s.name)),
        _OUTSIDE_DIGEST: {
            "gate_p": s.gate.p,
            "improvement_p": s.improvement_p,
            "improvement_p_holm": s.improvement_p_holm,
            "beats_incumbent": s.evidence,
        },
    }
