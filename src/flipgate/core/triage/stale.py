"""Triage step 4, stale baseline (SPEC §5): key components moved outside the declared change, cases
added, removed or edited, another eval-set revision, the baseline's age; facts `key_moved`,
`key_held`, `eval_set`, `run_created`, `baseline_age`, `only_in_arm`, `case_edited`,
`flaky_after_baseline`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar

import polars as pl

from flipgate.core.gate.changes import Edit
from flipgate.core.gate.compare import Comparison
from flipgate.core.runs.key import moved_components
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import ARMS, Arm, TriageClass, TriageFactCode


@dataclass(frozen=True)
class KeyMoved:
    code: ClassVar[TriageFactCode] = "key_moved"
    component: str
    baseline: str | None  # None: not in that key
    candidate: str | None
    declared: bool


@dataclass(frozen=True)
class KeyHeld:
    code: ClassVar[TriageFactCode] = "key_held"


@dataclass(frozen=True)
class EvalSet:
    """The keys' `eval_set` revisions (None: not recorded)."""

    code: ClassVar[TriageFactCode] = "eval_set"
    baseline: str | None
    candidate: str | None


@dataclass(frozen=True)
class RunCreated:
    code: ClassVar[TriageFactCode] = "run_created"
    arm: Arm
    created: datetime | None


@dataclass(frozen=True)
class BaselineAge:
    code: ClassVar[TriageFactCode] = "baseline_age"
    baseline: datetime | None  # when each run was created
    candidate: datetime | None


@dataclass(frozen=True)
class OnlyInArm:
    code: ClassVar[TriageFactCode] = "only_in_arm"
    arm: Arm
    cases: tuple[str, ...]


@dataclass(frozen=True)
class EditedBetweenArms:
    """A case in both arms that changed: what the gate counts as an edit (a move to another
    template among them)."""

    code: ClassVar[TriageFactCode] = "case_edited"
    case: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class FlakyAfterBaseline:
    """Flaky entries added after the baseline run was created: (case, added)."""

    code: ClassVar[TriageFactCode] = "flaky_after_baseline"
    entries: tuple[tuple[str, date], ...]


@dataclass(frozen=True)
class StaleFindings:
    code: ClassVar[TriageClass] = "stale_baseline"
    drift: tuple[str, ...]  # key components moved outside the declared change
    revision_moved: bool
    added: int  # cases only in the candidate
    removed: int  # cases only in the baseline
    edited: int


Fact = (
    KeyMoved
    | KeyHeld
    | EvalSet
    | RunCreated
    | BaselineAge
    | OnlyInArm
    | EditedBetweenArms
    | FlakyAfterBaseline
)
FACTS = (
    KeyMoved,
    KeyHeld,
    EvalSet,
    RunCreated,
    BaselineAge,
    OnlyInArm,
    EditedBetweenArms,
    FlakyAfterBaseline,
)


def _edited(comparison: Comparison) -> list[EditedBetweenArms]:
    """The cases in both arms that changed, by case id."""
    return [
        EditedBetweenArms(case, edits) for case, edits in comparison.result.changes.edited.items()
    ]


def stale_step(comparison: Comparison) -> TriageStep:
    result = comparison.result
    baseline, candidate = comparison.baseline, comparison.candidate
    facts: list[Fact] = [
        KeyMoved(moved.name, moved.before, moved.after, moved.name in result.declared_change)
        for moved in moved_components(baseline.key, candidate.key)
    ]
    if not result.key_moved:
        facts.append(KeyHeld())
    revisions = (baseline.key.get("eval_set"), candidate.key.get("eval_set"))
    facts.append(EvalSet(*revisions))
    facts += (RunCreated(arm, comparison.run(arm).created) for arm in ARMS)
    facts.append(BaselineAge(baseline.created, candidate.created))

    only = {
        arm: comparison.cases.filter(pl.col("unpaired") == state)["case"]
        for arm, state in (("baseline", "deleted"), ("candidate", "new"))
    }
    facts += (OnlyInArm(arm, tuple(only[arm])) for arm in ARMS if only[arm].len())
    edited = _edited(comparison)
    facts += edited

    if baseline.created is not None:
        made = baseline.created.date()
        if late := tuple((e.case, e.added) for e in comparison.flaky.entries if e.added > made):
            facts.append(FlakyAfterBaseline(late))

    drift = result.key_drift
    revision_moved = revisions[0] != revisions[1]
    added, removed = len(only["candidate"]), len(only["baseline"])
    named = (*only["baseline"], *only["candidate"], *(e.case for e in edited))
    return TriageStep(
        "stale_baseline",
        StaleFindings(drift, revision_moved, added, removed, len(edited)),
        tuple(facts),
        tuple(dict.fromkeys(named)),
        bool(drift or revision_moved or added or removed or edited),
        tuple(e.case for e in edited),
    )
