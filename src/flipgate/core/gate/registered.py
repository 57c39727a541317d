"""The rule registered before the candidate ran (`flipgate prereg`, issue 24): held against the
rule applied.

Seed 001: "Choose all three before the first red build, because a threshold chosen while the gate
is red will be whatever lets the change through." A signed registration fixes the gate spec (its
digest and every setting), the flaky list, the suite manifest, the baseline and the declared
change before the candidate exists (`core/decision/registration.py` reads and checks the file).
Here the gate compares it with what it applies: any difference is a reason the comparison is
INVALID (`registration_differs`, each field with both values), and so is a candidate created
before the registration (`registered_after_candidate`): a rule chosen after the run proves nothing.
A registration of another baseline is not a difference of rules but the wrong file: bad input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from flipgate.core.errors import InputError
from flipgate.core.gate.spec import GateSpec, Setting
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import InvalidCode

ABSENT = None  # a setting one side does not have (a newer flipgate's, say): as null


@dataclass(frozen=True)
class Registration:
    """What a verified registration fixes, as the gate holds it."""

    path: Path  # the registration file
    digest: str  # of its bytes: what a decision made under it records
    registered: datetime
    signer: str  # `Name <email>`
    spec_digest: str
    settings: Mapping[str, Setting]
    flaky_digest: str
    suite_digest: str | None  # None: no suite manifest was read
    change: tuple[str, ...] | None  # None: left to the candidate's `change.keys`
    baseline_run_id: str
    baseline_key: Mapping[str, str]


@dataclass(frozen=True)
class Differs:
    """One field where the rule applied is not the rule registered."""

    field: str  # `gate_spec.alpha`, `gate_spec.digest`, `flaky_list.digest`, `change`
    registered: Setting
    applied: Setting


@dataclass(frozen=True)
class RegistrationDiffers:
    """The rule applied differs from the rule registered, field by field."""

    code: ClassVar[InvalidCode] = "registration_differs"
    registered: datetime
    signer: str
    fields: tuple[Differs, ...]


@dataclass(frozen=True)
class RegisteredAfterCandidate:
    """The candidate run was created before the rule was registered."""

    code: ClassVar[InvalidCode] = "registered_after_candidate"
    registered: datetime
    candidate: str  # its run_id
    created: datetime


def differences(
    registration: Registration,
    spec: GateSpec,
    flaky_digest: str,
    suite_digest: str | None,
    change: tuple[str, ...],
) -> tuple[Differs, ...]:
    """Every field where `spec`, the flaky list, the suite manifest and the declared `change`
    are not what `registration` fixed. The spec's settings are named one by one; a spec whose
    bytes differ with every setting the same (a comment edited) is named by its digest."""
    found: list[Differs] = []
    if spec.digest != registration.spec_digest:
        settings = registration.settings
        for name in sorted({*settings, *spec.settings}):
            was, now = settings.get(name, ABSENT), spec.settings.get(name, ABSENT)
            if was != now:
                found.append(Differs(f"gate_spec.{name}", was, now))
        if not found:
            found.append(Differs("gate_spec.digest", registration.spec_digest, spec.digest))
    if flaky_digest != registration.flaky_digest:
        found.append(Differs("flaky_list.digest", registration.flaky_digest, flaky_digest))
    if suite_digest != registration.suite_digest:
        found.append(Differs("suite_manifest.digest", registration.suite_digest, suite_digest))
    declared = tuple(sorted(set(change)))
    if registration.change is not None and declared != registration.change:
        found.append(Differs("change", registration.change, declared))
    return tuple(found)


def registration_reasons(
    registration: Registration | None,
    spec: GateSpec,
    flaky_digest: str,
    suite_digest: str | None,
    change: tuple[str, ...],
    candidate: Run,
) -> list[RegistrationDiffers | RegisteredAfterCandidate]:
    """Why the registration does not hold the comparison (none without a registration)."""
    if registration is None:
        return []
    reasons: list[RegistrationDiffers | RegisteredAfterCandidate] = []
    fields = differences(registration, spec, flaky_digest, suite_digest, change)
    if fields:
        reasons.append(RegistrationDiffers(registration.registered, registration.signer, fields))
    created = candidate.created
    if created is not None and _aware(created) < registration.registered:
        reasons.append(
            RegisteredAfterCandidate(registration.registered, candidate.run_id, _aware(created))
        )
    return reasons


def check_baseline(registration: Registration, baseline: Run) -> None:
    """A registration of another baseline is the wrong file for this gate: bad input naming the
    field and both values, never a verdict."""
    if baseline.run_id != registration.baseline_run_id:
        raise InputError(
            registration.path,
            f"registered for the baseline {registration.baseline_run_id!r}, not "
            f"{baseline.run_id!r}: register the rule for this baseline",
            field="baseline.run_id",
        )
    moved = moved_components(registration.baseline_key, baseline.key)
    if moved:
        first = moved[0]
        raise InputError(
            registration.path,
            f"the baseline's cache key was registered as {first.shown_before!r}, the baseline "
            f"read has {first.shown_after!r}",
            field=f"baseline.key.{first.name}",
        )


def _aware(moment: datetime) -> datetime:
    """A run's time without a zone is taken as UTC, as the run format's `Z` times are."""
    return moment if moment.utcoffset() is not None else moment.replace(tzinfo=UTC)
