"""The gate's reasons in words: one sentence per code, made here and nowhere else.

The core finds reasons as payloads with a stable code (`core/vocab.py`: `InvalidCode`,
`LimitCode`, `BudgetCode`, `WarningCode`, `UnpairedState` (the case ledger's), `ChangeCode`,
`EditCode`, `LooseningCode`) and never words them. `sentence` words any of them; `summary` is the
verdict's line; `reason_json` is a reason as the JSON report gives it, `{code, message, ...its
values}`.
The text, Markdown, JUnit and JSON reports and the app all take their words from here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from fractions import Fraction
from functools import singledispatch
from typing import Any

from flipgate.core.exact import ratio, written
from flipgate.core.gate.attempts import RerunUntilGreen
from flipgate.core.gate.bounds import NeverEvent
from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.changes import Asked as AskedQuestion
from flipgate.core.gate.changes import (
    CaseCached,
    CaseEdited,
    CaseInOneArm,
    RuleEdit,
    SafetyEdit,
    TemplateEdit,
)
from flipgate.core.gate.compare import GateResult
from flipgate.core.gate.evidence import (
    ChangedLate,
    EscalationsMaxPerRun,
    FalseNegativeMax,
    FinishNotStated,
    FlipsConcentrated,
    InconclusiveMaxShare,
    MirrorApprovedMax,
    NewCases,
    ReadingsDisagree,
    SameRunId,
    ZeroFalseNegativeRule,
)
from flipgate.core.gate.excess import BudgetNoise, Excess
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
from flipgate.core.gate.ledger import RepsExcluded, RepsMissing, Unpaired
from flipgate.core.gate.loosening import BaseSource, Loosened, SettingValue
from flipgate.core.gate.mcnemar import format_p
from flipgate.core.gate.outcomes import OUTCOME_WORDS
from flipgate.core.gate.registered import Differs, RegisteredAfterCandidate, RegistrationDiffers
from flipgate.core.gate.rules import BY_NAME, Evidence
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import ClusterReading
from flipgate.core.plural import plural, word
from flipgate.core.vocab import WRONG_OUTCOMES, BaseFile, CaseState, CountedBy, GateRule
from flipgate.present.numbers import amount, p_beside, percent, percent_beside, written_percent

NAMED_IN_REASON = 10  # cases named in one reason; the JSON report lists them all
SAFETY_NAMED = 5  # failed safety cases named in the one-line summary


def named(items: Sequence[str], separator: str = ", ") -> str:
    """The items a reason names, cut after NAMED_IN_REASON and counted."""
    shown = separator.join(items[:NAMED_IN_REASON])
    more = len(items) - NAMED_IN_REASON
    return shown + (f" and {more} more" if more > 0 else "")


@singledispatch
def sentence(reason: object) -> str:
    """A reason with a code, in words."""
    raise TypeError(f"no sentence for {type(reason).__name__}")


# --------------------------------------------------------------------------- invalid


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


def when(moment: datetime) -> str:
    """A time as the reports say it: `2026-12-01T09:00:00Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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


def run_name(run_id: str, source: str) -> str:
    """`killed.eval (run NSphdkpQ...)`: a run by its file or folder, and its id where that differs."""
    return source if source == run_id else f"{source} (run {run_id})"


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


# --------------------------------------------------------------------------- outcome limits


@sentence.register
def _(r: FalseNegativeMax) -> str:
    return f"{plural(r.found, 'false negative')}, above the limit of {r.limit}"


@sentence.register
def _(r: Excess) -> str:
    """`12 false negatives against the baseline's 5 on matched repetitions (+7): beyond the
    noise, which reaches +4 at 95% (p 0.012)`."""
    where = "beyond" if r.beyond_noise else "within"
    by = ", each template counted once" if r.by == "template" else ""
    return (
        f"{plural(r.candidate, 'false negative')} against the baseline's {r.baseline:,} on "
        f"matched repetitions ({r.excess:+,}): {where} the noise, which reaches {r.bound:+,} "
        f"at {percent(1 - r.alpha)} (p {p_beside(r.p, r.alpha)}{by})"
    )


# --------------------------------------------------------------------------- the safety bound


def _cases(n: int, by: CountedBy) -> str:
    return plural(n, "safety template" if by == "template" else "safety case")


@sentence.register
def _(r: NeverEvent) -> str:
    """Both codes: what the safety cases bound, and whether that is what the gate asks."""
    passed = r.cases - r.failed
    bound = (
        f"{_cases(r.cases, r.by)}, {passed:,} passing every repetition: the failure rate is at "
        f"most {percent(r.upper)} at {percent(r.level)} (Clopper-Pearson)"
    )
    if r.max_rate is None:
        return bound
    if r.supported:
        return f"{bound}, within the {written_percent(r.max_rate)} asked"
    return (
        f"{bound}, above the {written_percent(r.max_rate)} asked: {r.more:,} more, all passing, would "
        f"support it ({r.needed:,} in all)"
    )


@sentence.register
def _(r: ZeroFalseNegativeRule) -> str:
    return f"{plural(r.found, 'false negative')} on {r.rule}, where none is allowed"


@sentence.register
def _(r: InconclusiveMaxShare) -> str:
    share = percent_beside(ratio(r.count, r.decisions), r.budget)
    return (
        f"inconclusive decisions are {share} of the candidate's ({r.count:,} of "
        f"{r.decisions:,}), above the {written_percent(r.budget)} budget"
    )


@sentence.register
def _(r: MirrorApprovedMax) -> str:
    """`4 borderline items decided approve with confidence on r3 (a person should have looked),
    above the limit of 2`; against the baseline, as the false negatives' excess: `... against the
    baseline's 0 on matched repetitions (+4): beyond the noise, which reaches +2 at 98.8% (p
    0.0078)`."""
    items = f"{plural(r.found, 'borderline item')} decided {r.decided} with confidence on {r.rule}"
    if r.p is None or r.bound is None or r.alpha is None:
        what = "the baseline's" if r.of_baseline else "the limit of"
        return f"{items} (a person should have looked), above {what} {r.limit}"
    by = ", each template counted once" if r.by == "template" else ""
    return (
        f"{items} (a person should have looked) against the baseline's {r.limit:,} on matched "
        f"repetitions ({r.found - r.limit:+,}): beyond the noise, which reaches {r.bound:+,} at "
        f"{percent(1 - r.alpha)} (p {p_beside(r.p, r.alpha)}{by})"
    )


@sentence.register
def _(r: EscalationsMaxPerRun) -> str:
    most = "" if r.repetitions <= 1 else " in the repetition that escalated the most"
    return (
        f"{plural(r.found, 'decision')} escalated to a person{most}, above the reviewers' queue "
        f"of {r.limit:,} a run"
    )


# --------------------------------------------------------------------------- budgets


def figure(metric: str, value: float) -> str:
    """A metric's value as a person reads it: `1,412 ms`, `$0.0041`, `3.2 steps`."""
    size = abs(value)
    digits = f"{value:,.0f}" if size >= 100 else f"{value:,.2f}" if size >= 1 else f"{value:.2g}"
    if "." in digits and size >= 1:
        digits = digits.rstrip("0").rstrip(".")
    if metric.endswith("_usd"):
        return f"${digits}"
    if metric.endswith("_ms"):
        return f"{digits} ms"
    return digits


def _relative(cand: float, base: float, budget: float) -> str:
    """`18% above`, its digits enough to read on the right side of the budget's increase."""
    if cand == base:
        return "the same as"
    if base == 0:
        return "above" if cand > base else "below"
    change = Fraction(cand - base) / abs(Fraction(base))
    places = 0 if abs(change) >= Fraction(1, 100) else 1
    share = percent_beside(abs(change), abs(written(budget)), places)
    return f"{share} {'above' if change > 0 else 'below'}"


def signed_percent(share: float) -> str:
    """A relative limit as written: `+6.5%`, `-5%`."""
    return written_percent(share) if share < 0 else f"+{written_percent(share)}"


@sentence.register
def _(check: BudgetCheck) -> str:
    """Both codes, `budget_exceeded` and `budget_met`: the figures are said the same way."""
    budget, cand = check.budget, check.candidate
    words = []
    name = f"{budget.metric} {budget.stat} {figure(budget.metric, cand)}"
    if budget.max_increase is not None:
        base = check.baseline
        assert base is not None, "a relative budget is checked only against a baseline figure"
        words.append(
            f"{name} is {_relative(cand, base, budget.max_increase)} the baseline's "
            f"{figure(budget.metric, base)}, budget {signed_percent(budget.max_increase)}"
        )
        if (noise := check.noise) is not None:
            words[-1] += f": {_noise_words(noise, budget.max_increase)}"
    if budget.max is not None:
        over = "above" if cand > budget.max else "within"
        words.append(
            f"{name if not words else 'and'} is {over} the budget of "
            f"{figure(budget.metric, budget.max)}"
        )
    return ", ".join(words)


def _noise_words(noise: BudgetNoise, increase: float) -> str:
    """`beyond the noise, which reaches +6% at 95% (p 0.004, 2,000 swaps of the arms)`."""
    where = "beyond" if noise.beyond(increase) else "within"
    reach = (
        "which no swap of so few clusters can show"
        if noise.noise == float("inf")
        else f"which reaches {noise.noise - 1:+.1%} at {percent(1 - noise.alpha)}"
    )
    swaps = f"all {len(noise.ratios):,}" if noise.exact else f"{len(noise.ratios):,}"
    return (
        f"{where} the noise, {reach} (p {p_beside(noise.p(increase), noise.alpha)}, {swaps} "
        "swaps of the arms)"
    )


# --------------------------------------------------------------------------- warnings


def cluster_words(flips: int, clusters: int, p_by_case: float, p_by_template: float) -> str:
    """`14 flips from 3 templates: p 0.004 counted by case, 0.250 by template`."""
    return (
        f"{plural(flips, 'flip')} from {plural(clusters, 'template')}: "
        f"p {format_p(p_by_case)} counted by case, {format_p(p_by_template)} by template"
    )


def clusters_line(reading: ClusterReading) -> str:
    """A reading's flips by template, as the reports title them."""
    return cluster_words(reading.flips, reading.clusters, reading.p_by_case, reading.p_by_template)


@sentence.register
def _(r: NewCases) -> str:
    n = len(r.cases)
    return (
        f"{n} new {word(n, 'case')} only in the candidate, not counted: {named(r.cases)}; "
        "rebaseline to count them"
    )


LATE_WORDS = {  # what changed late, and where it should have
    "flaky_added_late": ("flaky entries added", "the list should change"),
    "retired_late": ("cases retired", "a retirement should land"),
}


@sentence.register
def _(r: ChangedLate) -> str:
    what, should = LATE_WORDS[r.code]
    return (
        f"{what} after the baseline run was created ({', '.join(r.cases)}): "
        f"{should} in its own reviewed change, not while this one is judged"
    )


@sentence.register
def _(r: SameRunId) -> str:
    return (
        f"both arms have run_id {r.run_id!r}: one run compared with itself, "
        "or a run.yaml copied without a new run_id"
    )


COUNTED_WORDS: dict[CountedBy, str] = {
    "template": "the rule counted each template once",
    "case": "the rule counted cases (clusters: none); count a template once",
}


@sentence.register
def _(r: FlipsConcentrated) -> str:
    readings = cluster_words(r.flips, r.clusters, r.p_by_case, r.p_by_template)
    return (
        f"{r.broke + r.fixed} of the {r.flips} flipped cases come from template {r.template} "
        f"({r.broke} broke, {r.fixed} fixed): cloned cases flip together; "
        f"{COUNTED_WORDS[r.counted]} ({readings})"
    )


@sentence.register
def _(r: ReadingsDisagree) -> str:
    readings = cluster_words(r.flips, r.clusters, r.p_by_case, r.p_by_template)
    used = "templates" if r.counted == "template" else "cases"
    return f"{readings}, either side of {r.alpha:.3g}: the rule counted {used}"


@sentence.register
def _(r: FinishNotStated) -> str:
    return (
        f"the {r.arm} {r.tool} log {run_name(r.run_id, r.source)} does not say whether its run "
        f"finished: its {plural(r.cases, 'case')} are gated as the whole run"
    )


# --------------------------------------------------------------------------- the ledger, changes

# each state of the case ledger in a word or two (`vocab.CaseState`)
STATE_WORDS: dict[CaseState, str] = {
    "paired": "paired",
    "new": "new",
    "deleted": "deleted",
    "infra": "all infra",
    "excluded": "excluded",
    "missing_repetitions": "repetitions missing",
    "run_not_finished": "run not finished",
}


@sentence.register
def _(u: Unpaired) -> str:
    if u.code == "infra":
        return f"no gradable {u.arm} repetition"
    return f"only in {u.arm}"  # new: in the candidate only; deleted: in the baseline only


@sentence.register
def _(u: RepsMissing) -> str:
    why = "the run did not finish" if u.code == "run_not_finished" else "missing from the run"
    errored = f"; {u.errored} of the {u.ran} that ran errored" if u.errored else ""
    return f"{u.missing} of its {u.planned} {u.arm} repetitions never ran: {why}{errored}"


def excluded_by(u: RepsExcluded) -> str:
    """`by qa@example.com (ticket text leaked the answer)`: who excluded a case's repetitions,
    and why, each once."""
    who = dict.fromkeys(
        f"by {e.by or 'someone unnamed'}" + (f" ({e.reason})" if e.reason else "")
        for e in u.exclusions
    )
    return ", ".join(who) or "by someone unnamed"


@sentence.register
def _(u: RepsExcluded) -> str:
    return f"{u.excluded} of its {u.planned} {u.arm} repetitions excluded {excluded_by(u)}"


def _asks(asked: AskedQuestion) -> str:
    if asked.asks == "absent":
        return "absent"
    if asked.asks == "check":
        return "a pass/fail check"
    return f"expected {' or '.join(asked.labels)}"


@sentence.register
def _(edit: RuleEdit) -> str:
    was, now = _asks(edit.baseline), _asks(edit.candidate)
    if edit.baseline.asks == edit.candidate.asks == "labels":
        now = now.removeprefix("expected ")  # `expected approve ..., reject ...`
    return f"{edit.rule}: {was} in the baseline, {now} in the candidate"


@sentence.register
def _(edit: SafetyEdit) -> str:
    def flag(safety: bool) -> str:
        return "a safety case" if safety else "ordinary"

    return f"safety: {flag(edit.baseline)} in the baseline, {flag(edit.candidate)} in the candidate"


@sentence.register
def _(edit: TemplateEdit) -> str:
    def which(template: str | None) -> str:
        return "none" if template is None else template

    return (
        f"template: {which(edit.baseline)} in the baseline, {which(edit.candidate)} in the "
        "candidate"
    )


@sentence.register
def _(entry: CaseEdited) -> str:
    return f"{entry.case} edited: {'; '.join(sentence(edit) for edit in entry.edits)}"


@sentence.register
def _(entry: CaseInOneArm) -> str:
    if entry.code == "deleted":
        return f"{entry.case} deleted: lines in the baseline, none in the candidate"
    return f"{entry.case} new: only in the candidate, not counted"


@sentence.register
def _(entry: CaseCached) -> str:
    return f"{entry.case} cached: {entry.cached} of its {entry.reps} {entry.arm} repetitions"


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


# --------------------------------------------------------------------------- the gate's settings


def series(items: Sequence[str], last: str = "or") -> str:
    """`a`, `a or b`, `a, b or c`."""
    return (
        f" {last} ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} {last} {items[-1]}"
    )


def gate_words(spec: GateSpec) -> str:
    """What fails a repetition and which outcome limits apply, in one line of words."""
    if spec.fail_on == set(WRONG_OUTCOMES):
        parts = ["a repetition fails on any disagreement"]
    else:
        failing = [OUTCOME_WORDS[o] for o in WRONG_OUTCOMES if o in spec.fail_on]
        parts = [f"a repetition fails on {series(failing) if failing else 'no decision'}"]
    limits = spec.limits

    def bound(most: int | str) -> str:
        return "the baseline's" if most == "baseline" else f"{most:,}"

    if limits.false_negative_max is not None:
        parts.append(f"false negatives at most {bound(limits.false_negative_max)}")
    if limits.zero_false_negative_rules:
        parts.append(f"no false negative on {', '.join(limits.zero_false_negative_rules)}")
    if limits.inconclusive_max_share is not None:
        parts.append(
            f"inconclusive at most {written_percent(limits.inconclusive_max_share)} of decisions"
        )
    if limits.mirror_approved_max is not None:
        parts.append(
            f"confident approvals of borderline items at most {bound(limits.mirror_approved_max)} "
            "on each rule"
        )
    if limits.escalations_max_per_run is not None:
        parts.append(
            f"at most {plural(limits.escalations_max_per_run, 'escalation')} to a person a run"
        )
    return " · ".join(parts)


# --------------------------------------------------------------------------- the verdict's line


def flips(e: Evidence) -> str:
    """The flips in words, as every counting rule's summary starts."""
    return f"{e.b} {word(e.b, 'case')} broke, {e.c} {word(e.c, 'was', 'were')} fixed"


def p_words(e: Evidence) -> str:
    """`p = 0.073`, or `p = 0.250 by template` when the rule counted templates; as many digits
    as it takes to read on the right side of the look's boundary (`p = 0.0503`)."""
    return f"p = {p_beside(e.p, e.blocks_at)}" + (" by template" if e.p_by == "template" else "")


def boundary_words(e: Evidence) -> str:
    """`0.025`, and `(look 2)` after the first look."""
    return f"{e.blocks_at:.3g}" + (f" (look {e.look})" if e.look > 1 else "")


def _safety(e: Evidence) -> str:
    failed = e.safety_failures
    shown = ", ".join(failed[:SAFETY_NAMED]) + (" ..." if len(failed) > SAFETY_NAMED else "")
    return f"safety {word(len(failed), 'case')} failed ({shown})"


def _undecided(e: Evidence) -> str:
    why = (
        f"net {e.net} > margin {e.margin}" if e.net > e.margin else f"{e.b} > flip cap {e.flip_cap}"
    )
    return f"{flips(e)}; {p_words(e)} > {boundary_words(e)}, but {why}"


# why each rule fired, in words: for a rule that found reasons, the first of them
WHY: dict[GateRule, Callable[[Evidence], str]] = {
    "safety": _safety,
    "invalid": lambda e: sentence(e.invalid_reasons[0]),
    "significance": lambda e: f"{flips(e)}; {p_words(e)} <= {boundary_words(e)}",
    "outcome_limit": lambda e: sentence(e.limit_breaches[0]),
    "budget": lambda e: sentence(e.budget_breaches[0]),
    "partial": lambda e: (
        f"{sentence(e.partial_reasons[0])}; gated partial by choice (--allow-partial), never "
        f"PASS: {flips(e)} of the {plural(sum(e.cells.values()), 'case')} counted"
    ),
    "safety_bound": lambda e: sentence(e.safety_short[0]),
    "within_margin": lambda e: (
        f"{flips(e)}; net {e.net} <= margin {e.margin}, {e.b} <= flip cap {e.flip_cap}"
    ),
    "undecided": _undecided,
}


def verdict_line(evidence: Evidence, rule: GateRule) -> str:
    """The verdict `rule` gives and why it fired on `evidence`, in words."""
    return f"{BY_NAME[rule].verdict}: {WHY[rule](evidence)}"


def summary(result: GateResult) -> str:
    """The verdict and why, in words: `BLOCK: 10 cases broke, 2 were fixed; p = 0.019 <= 0.05`."""
    return verdict_line(result, result.rule)


# --------------------------------------------------------------------------- JSON


def reason_json(reason: Any) -> dict[str, Any]:
    """A reason as the JSON report gives it: its code, its sentence and its values; a reason
    inside another (an edit, a loosened setting) is given the same way."""
    return {"code": reason.code, "message": sentence(reason), **_values(reason)}


def _values(reason: Any) -> dict[str, Any]:
    return {f.name: _json(getattr(reason, f.name)) for f in dataclasses.fields(reason)}


def _json(value: Any) -> Any:
    if hasattr(value, "code") and dataclasses.is_dataclass(value):
        return reason_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _values(value)
    if isinstance(value, tuple | list):
        return [_json(item) for item in value]
    if isinstance(value, date):
        return value.isoformat()
    return value
