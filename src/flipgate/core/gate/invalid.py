"""Why a comparison cannot be judged (SPEC §3.5 line 2): `INVALID_CHECKS`, each check one function
that returns what it found as payloads with a code (`vocab.InvalidCode`), never words.

Among them is what seed 001 forbids in the change under test, measured by `changes.py` (cases
edited, deleted, cached) and `loosening.py` (the gate loosened, flaky entries added); a retirement
the change makes is read from the suite manifest (`retired.py`); a run not whole, from the case
ledger (`ledger.py`). A new reason is a payload class here, one function, one entry of
`INVALID_CHECKS`, its code in `vocab.InvalidCode` and its sentence in `present/reasons/`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

import polars as pl

from flipgate.core.exact import at_most, ratio
from flipgate.core.gate.attempts import RerunUntilGreen
from flipgate.core.gate.changes import CaseCached, CaseEdited
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.loosening import BaseSource, Loosened
from flipgate.core.gate.registered import (
    RegisteredAfterCandidate,
    RegistrationDiffers,
    registration_reasons,
)
from flipgate.core.runs.key import Component
from flipgate.core.vocab import ARMS, Arm, BaseFile, InvalidCode

# The reasons `--allow-partial` lets through, to a verdict no better than INCONCLUSIVE.
PARTIAL: frozenset[InvalidCode] = frozenset({"run_not_finished", "missing_repetitions"})

if TYPE_CHECKING:
    from flipgate.core.gate.evidence import Judged


@dataclass(frozen=True)
class NoCaseInCommon:
    """Two arms that share no case id compare nothing."""

    code: ClassVar[InvalidCode] = "no_case_in_common"
    baseline_cases: int
    candidate_cases: int
    differ_only_in_case: bool  # the ids match once upper and lower case are folded


@dataclass(frozen=True)
class InfraShare:
    """Infra repetitions above `infra.max_share` of one arm's repetitions."""

    code: ClassVar[InvalidCode] = "infra_share"
    arm: Arm
    share: float
    count: int
    reps: int
    allowed: float


@dataclass(frozen=True)
class StaleBaseline:
    """Key components moved outside the declared change."""

    code: ClassVar[InvalidCode] = "stale_baseline"
    moved: tuple[Component, ...]
    # declared components neither key has: likely the moved one, misspelt
    unknown_declared: tuple[str, ...]


@dataclass(frozen=True)
class FlakyListTooLong:
    """The flaky list holds more than `flaky.max_share` of the suite's cases."""

    code: ClassVar[InvalidCode] = "flaky_list_too_long"
    listed: int
    suite: int  # the cases of both runs
    max_share: float
    allowed: int


@dataclass(frozen=True)
class NamedCases:
    """A reason that is the cases it names: safety cases on the flaky list (`flaky_list_safety`),
    cases with lines in the baseline and none in the candidate, retired ones aside
    (`cases_deleted`), retirements the change makes (`retirement_added`)."""

    code: Literal["flaky_list_safety", "cases_deleted", "retirement_added"]
    cases: tuple[str, ...]


@dataclass(frozen=True)
class CasesEdited:
    """Cases graded in both arms whose expected labels, safety flag or rules differ."""

    code: ClassVar[InvalidCode] = "cases_edited"
    cases: tuple[CaseEdited, ...]


@dataclass(frozen=True)
class CachedReps:
    """Cached repetitions where none may be: any in the candidate (it is the measurement), those
    of safety cases in the baseline (safety runs are always live)."""

    arm: Arm
    cases: tuple[CaseCached, ...]

    @property
    def code(self) -> InvalidCode:
        return "cached_candidate" if self.arm == "candidate" else "cached_safety"


@dataclass(frozen=True)
class BaseNotFound:
    """A file of the gate in use here that the base revision does not have: the change added it,
    or moved it (a workspace moved to another folder). What it was at the base cannot be told, so
    it stands for the defaults and the comparison fails closed, as added flaky entries and
    retirements do."""

    code: ClassVar[InvalidCode] = "base_not_found"
    file: BaseFile
    name: str  # as git names it at the revision: `main:suites/agent/gate.yaml`


@dataclass(frozen=True)
class GateLoosened:
    """Settings looser than at the base (`--base-*`)."""

    code: ClassVar[InvalidCode] = "gate_loosened"
    where: BaseSource | None
    settings: tuple[Loosened, ...]


@dataclass(frozen=True)
class FlakyAdded:
    """Flaky entries not in the base's list."""

    code: ClassVar[InvalidCode] = "flaky_added"
    where: BaseSource | None
    cases: tuple[str, ...]


@dataclass(frozen=True)
class RunNotFinished:
    """A run that did not finish (its tool's status says so, or rows it planned are missing):
    its cases are not all there, and those there may not be the ones that would fail."""

    code: ClassVar[InvalidCode] = "run_not_finished"
    arm: Arm
    run_id: str
    source: str  # the run's file or folder name
    status: str  # the tool's word for how it ended
    detail: str | None  # the tool's message
    planned: int  # repetitions the run planned
    missing: int  # of them, never run
    cases: int  # the run's cases
    not_whole: int  # of them, lacking repetitions


@dataclass(frozen=True)
class MissingRepetitions:
    """Repetitions missing from a run that finished, or does not say: not infra (those have a
    line saying so), not excluded (those say who took them out), simply absent."""

    code: ClassVar[InvalidCode] = "missing_repetitions"
    arm: Arm
    run_id: str
    source: str
    planned: int
    missing: int
    cases: tuple[str, ...]  # the cases lacking repetitions


InvalidReason = (
    NoCaseInCommon
    | InfraShare
    | StaleBaseline
    | FlakyListTooLong
    | NamedCases
    | CasesEdited
    | CachedReps
    | BaseNotFound
    | GateLoosened
    | FlakyAdded
    | RegistrationDiffers
    | RegisteredAfterCandidate
    | RerunUntilGreen
    | RunNotFinished
    | MissingRepetitions
)


def _no_case_in_common(judged: Judged) -> list[InvalidReason]:
    """`case-` renamed `CASE-` in a candidate whose every case failed passed, with
    `unpaired: 40` as the only sign."""
    base, cand = (
        judged.cases.filter(pl.col(f"{PREFIX[arm]}_reps").is_not_null())["case"] for arm in ARMS
    )
    if base.is_empty() or cand.is_empty() or base.is_in(cand.implode()).any():
        return []
    folded = {case.casefold() for case in base} & {case.casefold() for case in cand}
    return [NoCaseInCommon(base.len(), cand.len(), bool(folded))]


def _infra_share(judged: Judged) -> list[InvalidReason]:
    allowed = judged.spec.infra_max_share
    return [
        InfraShare(arm, stats.share, stats.count, stats.reps, allowed)
        for arm, stats in judged.infra.items()
        if not at_most(ratio(stats.count, stats.reps), allowed)
    ]


def _stale_baseline(judged: Judged) -> list[InvalidReason]:
    drift = tuple(c for c in judged.moved if c.name not in judged.change)
    if not drift:
        return []
    keys = judged.baseline.key.keys() | judged.candidate.key.keys()
    return [StaleBaseline(drift, tuple(name for name in judged.change if name not in keys))]


def _flaky_list_too_long(judged: Judged) -> list[InvalidReason]:
    listed, suite = len(judged.flaky.cases), judged.cases.height
    cap = judged.spec.flaky_cap(suite)
    if listed <= cap:
        return []
    return [FlakyListTooLong(listed, suite, judged.spec.flaky_max_share, cap)]


def _flaky_list_safety(judged: Judged) -> list[InvalidReason]:
    listed = judged.cases.filter(pl.col("listed") & pl.col("safety"))["case"]
    return [NamedCases("flaky_list_safety", tuple(listed))] if listed.len() else []


def _edited_cases(judged: Judged) -> list[InvalidReason]:
    edited = judged.changes.edited_entries()
    return [CasesEdited(edited)] if edited else []


def _deleted_cases(judged: Judged) -> list[InvalidReason]:
    deleted = judged.changes.deleted
    return [NamedCases("cases_deleted", deleted)] if deleted else []


def _cached(judged: Judged) -> list[InvalidReason]:
    """Only safety cases count as cached in the baseline (`changes.suite_changes`)."""
    return [CachedReps(arm, judged.changes.cached_entries(arm)) for arm in judged.changes.cached]


def _base_not_found(judged: Judged) -> list[InvalidReason]:
    return [BaseNotFound(file, name) for file, name in judged.base.not_found]


def _loosened(judged: Judged) -> list[InvalidReason]:
    base = judged.base
    return [GateLoosened(base.where, base.loosened)] if base.loosened else []


def _flaky_added(judged: Judged) -> list[InvalidReason]:
    base = judged.base
    return [FlakyAdded(base.where, base.flaky_added)] if base.flaky_added else []


def _retirement_added(judged: Judged) -> list[InvalidReason]:
    added = judged.retired.added
    return [NamedCases("retirement_added", added)] if added else []


def _registration(judged: Judged) -> list[InvalidReason]:
    """The rule applied against the rule registered before the run (`registered.py`)."""
    return list(
        registration_reasons(
            judged.registration,
            judged.spec,
            judged.flaky.digest,
            judged.retired.digest,
            judged.change,
            judged.candidate,
        )
    )


def _run_not_finished(judged: Judged) -> list[InvalidReason]:
    found: list[InvalidReason] = []
    for arm, run in judged.runs.items():
        arm_ledger = judged.ledger.arms[arm]
        if arm_ledger.finished is False:
            found.append(
                RunNotFinished(
                    arm,
                    run.run_id,
                    run.path.name,
                    arm_ledger.status or "",
                    arm_ledger.detail,
                    arm_ledger.planned,
                    arm_ledger.missing,
                    arm_ledger.cases,
                    arm_ledger.states["run_not_finished"],
                )
            )
    return found


def _missing_repetitions(judged: Judged) -> list[InvalidReason]:
    lacking = judged.cases.filter(pl.col("unpaired") == "missing_repetitions")
    found: list[InvalidReason] = []
    for arm, run in judged.runs.items():
        cases = lacking.filter(pl.col("unpaired_arm") == arm)["case"]
        arm_ledger = judged.ledger.arms[arm]
        if cases.len():
            found.append(
                MissingRepetitions(
                    arm,
                    run.run_id,
                    run.path.name,
                    arm_ledger.planned,
                    arm_ledger.missing,
                    tuple(cases),
                )
            )
    return found


INVALID_CHECKS: tuple[Callable[[Judged], list[InvalidReason]], ...] = (
    _no_case_in_common,
    _run_not_finished,
    _missing_repetitions,
    _infra_share,
    _stale_baseline,
    _flaky_list_too_long,
    _flaky_list_safety,
    _edited_cases,
    _deleted_cases,
    _cached,
    _base_not_found,
    _loosened,
    _flaky_added,
    _retirement_added,
    _registration,
)
# `rerun_until_green` is found after the rules (compare.py): it refuses a PASS, and only a PASS.
# Each code's payload class, in the order of `vocab.InvalidCode` (a test holds them together).
INVALID_REASONS: dict[InvalidCode, type[InvalidReason]] = {
    "no_case_in_common": NoCaseInCommon,
    "infra_share": InfraShare,
    "stale_baseline": StaleBaseline,
    "flaky_list_too_long": FlakyListTooLong,
    "flaky_list_safety": NamedCases,
    "cases_edited": CasesEdited,
    "cases_deleted": NamedCases,
    "cached_candidate": CachedReps,
    "cached_safety": CachedReps,
    "base_not_found": BaseNotFound,
    "gate_loosened": GateLoosened,
    "flaky_added": FlakyAdded,
    "retirement_added": NamedCases,
    "registration_differs": RegistrationDiffers,
    "registered_after_candidate": RegisteredAfterCandidate,
    "rerun_until_green": RerunUntilGreen,
    "run_not_finished": RunNotFinished,
    "missing_repetitions": MissingRepetitions,
}
