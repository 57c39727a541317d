"""The reasons for INVALID in words: runs that cannot be compared, a change under test that edits
what judges it (its cases, its flaky list, its gate, its registered rule), runs that did not
finish; and each loosened setting of the gate (`Loosened`)."""

from __future__ import annotations

from flipgate.core.exact import ratio
from flipgate.core.gate.attempts import RerunUntilGreen
from flipgate.core.gate.invalid import (
    BaseNotFound,
    CachedReps,
    CasesEdited,
    FlakyAdded,
    FlakyListTooLong,
    GateLoosened,
    InfraShare,
    MissingRepetitions,
    NamedCases,
    NoCaseInCommon,
    RunNotFinished,
    StaleBaseline,
)
from flipgate.core.gate.loosening import BaseSource, Loosened, SettingValue
from flipgate.core.gate.registered import Differs, RegisteredAfterCandidate, RegistrationDiffers
from flipgate.core.plural import plural
from flipgate.core.vocab import BaseFile
from flipgate.present.numbers import amount, percent_beside, written_percent
from flipgate.present.reasons.words import named, run_name, sentence, signed_percent, when


@sentence.register
def _(r: NoCaseInCommon) -> str:
    hint = "; they differ only in upper and lower case" if r.differ_only_in_case else ""
    return (
        f"no case id of the candidate's {r.candidate_cases} is one of the baseline's "
        f"{r.baseline_cases}{hint}: nothing is compared"
    )


@sentence.register
def _(r: InfraShare) -> str:
    return (
        f"infra failures are {percent_beside(ratio(r.count, r.reps), r.allowed)} of the "
        f"{r.arm}'s repetitions ({r.count} of {r.reps}), above the {written_percent(r.allowed)} allowed"
    )


@sentence.register
def _(r: StaleBaseline) -> str:
    detail = ", ".join(f"{c.name}: {c.shown_before} -> {c.shown_after}" for c in r.moved)
    if r.unknown_declared:
        unknown = ", ".join(r.unknown_declared)
        detail += f"; the declared change names {unknown}, which neither key has"
    return f"stale baseline: key moved outside the declared change ({detail})"


@sentence.register
def _(r: FlakyListTooLong) -> str:
    return (
        f"the flaky list holds {r.listed} cases, above {written_percent(r.max_share)} of the "
        f"suite's {r.suite} cases ({r.allowed} allowed)"
    )


@sentence.register
def _(r: NamedCases) -> str:
    if r.code == "flaky_list_safety":
        return f"the flaky list holds safety cases: {', '.join(r.cases)}"
    if r.code == "cases_deleted":
        return (
            "cases deleted in the change under test (lines in the baseline, none in the "
            f"candidate): {named(r.cases)}. Retire a case in a separate, reviewed change, then "
            "rebaseline; a case that could not be graded is written with `status: infra`, not "
            "left out"
        )
    return (
        f"the change under test retires {', '.join(r.cases)}: a retirement is its own reviewed "
        "change, made where the change is going, not in the change it would excuse"
    )


@sentence.register
def _(r: CasesEdited) -> str:
    edits = [f"{e.case} {sentence(edit)}" for e in r.cases for edit in e.edits]
    return f"cases edited in the change under test: {named(edits, '; ')}"


CACHED_WHY = {
    "candidate": "cached candidate repetitions (the candidate is the measurement: run it live)",
    "baseline": "cached repetitions of safety cases in the baseline (safety runs are always live)",
}


@sentence.register
def _(r: CachedReps) -> str:
    return f"{CACHED_WHY[r.arm]}: {named([f'{c.case} ({c.cached} of {c.reps})' for c in r.cases])}"


# each file of the base: its name, what its absence leaves unchecked, the option that names it
BASE_FILE_WORDS: dict[BaseFile, tuple[str, str, str]] = {
    "gate_spec": ("gate spec", "loosened the gate", "--base-gate"),
    "flaky_list": ("flaky list", "added flaky entries", "--base-flaky"),
    "suite_manifest": ("suite manifest", "retired cases", "--base-suite"),
}


def base_words(where: BaseSource | None) -> str | None:
    """`base: main`, or `base: main-gate.yaml, main-flaky.yaml`: where the base was read."""
    if where is None:
        return None
    return f"base: {where.ref if where.ref is not None else ', '.join(where.files)}"


@sentence.register
def _(r: BaseNotFound) -> str:
    name, _, option = BASE_FILE_WORDS[r.file]
    return (
        f"the {name} is not at the base ({r.name} does not exist): added or moved in the change "
        f"under test, it cannot be checked against what it was; add or move it in a separate, "
        f"reviewed change, or name the base's with {option}"
    )


@sentence.register
def _(r: GateLoosened) -> str:
    settings = "; ".join(sentence(setting) for setting in r.settings)
    return f"the gate was loosened in the change under test ({base_words(r.where)}): {settings}"


@sentence.register
def _(r: FlakyAdded) -> str:
    return (
        f"flaky entries added in the change under test ({base_words(r.where)}): "
        f"{named(r.cases)}: add flaky entries in a separate, reviewed change"
    )


def _setting(value: object) -> str:
    """A registered or applied setting as gate.yaml writes it: `0.05`, `[model]`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, tuple | list):
        return f"[{', '.join(map(str, value))}]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


@sentence.register
def _(r: Differs) -> str:
    return f"{r.field}: {_setting(r.registered)} registered, {_setting(r.applied)} applied"


@sentence.register
def _(r: RegistrationDiffers) -> str:
    fields = named([sentence(field) for field in r.fields], "; ")
    return (
        f"the rule applied is not the rule registered at {when(r.registered)} by {r.signer}: "
        f"{fields}"
    )


@sentence.register
def _(r: RegisteredAfterCandidate) -> str:
    return (
        f"the rule was registered at {when(r.registered)}, after the candidate run "
        f"{r.candidate} was created ({when(r.created)}): a rule chosen after the run proves "
        "nothing; register it before the candidate runs"
    )


@sentence.register
def _(r: RerunUntilGreen) -> str:
    return (
        f"rerun until green: attempt {r.attempt} of this change; the earlier attempts said "
        f"{', '.join(r.earlier)} ({r.change_id}): declare a new change, or take the escalation "
        "the gate prescribed"
    )


@sentence.register
def _(r: RunNotFinished) -> str:
    how = f"{r.status}: {r.detail}" if r.detail else r.status
    lacks = (
        f"{r.missing:,} of its {r.planned:,} repetitions never ran, in {r.not_whole:,} of its "
        f"{plural(r.cases, 'case')}"
        if r.missing
        else f"each of its {r.planned:,} planned repetitions has a line"
    )
    return f"the {r.arm} run {run_name(r.run_id, r.source)} did not finish ({how}): {lacks}"


@sentence.register
def _(r: MissingRepetitions) -> str:
    return (
        f"the {r.arm} run {run_name(r.run_id, r.source)} lacks {r.missing:,} of its "
        f"{r.planned:,} planned repetitions (neither infra nor excluded: absent), in "
        f"{plural(len(r.cases), 'case')}: {named(r.cases)}"
    )


# --------------------------------------------------------------------------- loosened settings


def _value(value: SettingValue, r: Loosened) -> str:
    if isinstance(value, tuple):
        return f"[{', '.join(value)}]"
    if value is None:
        return "null (no limit)"
    if value == "baseline":
        counted = r.baseline_false_negatives
        return f"baseline ({counted if counted is not None else r.baseline_mirror_approved} here)"
    if isinstance(value, str):
        return value
    return signed_percent(value) if r.relative else amount(value)


@sentence.register
def _(r: Loosened) -> str:
    setting = r.setting
    if r.stat is not None:  # a budget: `budgets.latency_ms (p95) max_increase`
        where, limit = setting.rsplit(".", 1)
        setting = f"{where} ({r.stat}) {limit}"
    if r.code == "taken_out":
        assert isinstance(r.base, tuple) and isinstance(r.here, tuple)
        taken = ", ".join(sorted(set(r.base) - set(r.here)))
        return f"{setting}: {taken} taken out ({_value(r.base, r)} in the base, {_value(r.here, r)} here)"
    here = "removed" if r.code == "removed" else _value(r.here, r)
    return f"{setting}: {_value(r.base, r)} in the base, {here} here"
