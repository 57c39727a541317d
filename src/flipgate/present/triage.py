"""The triage evidence in words: each class's title, each step's summary line and each fact as a
label and a value, one place per code (`vocab.TriageFactCode`; a summary's code is its class).
The core (`core/triage/`) finds them as payloads; the app's checklist shows what this makes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import singledispatch

from flipgate.core.decision.record import CasePlacement
from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.outcomes import OUTCOME_WORDS
from flipgate.core.plural import plural
from flipgate.core.runs.key import ABSENT
from flipgate.core.triage.evidence import placed
from flipgate.core.triage.flaky import (
    BaselineRepeats,
    FlakyFindings,
    FlakyListSize,
    JudgeUnstable,
    NoBaselineRepeats,
    NoisyCase,
)
from flipgate.core.triage.grader import (
    FlipSplit,
    GraderFindings,
    GraderSelfNoise,
    JudgeAlone,
    JudgeHeld,
    JudgeMoved,
    NoFlipToCompare,
    NoJudgeRepeats,
    NoOutputGradedTwice,
    SameOutput,
)
from flipgate.core.triage.infra import AllInfra, ArmInfraShare, InfraCount, InfraFindings, InfraFlip
from flipgate.core.triage.regression import (
    CasesPassing,
    ExplainedEarlier,
    FlippedCases,
    OutcomeChange,
    RegressionFindings,
    RuleWrong,
    TemplateBroken,
    TemplatesCluster,
    WhoFlipped,
)
from flipgate.core.triage.stale import (
    BaselineAge,
    EditedBetweenArms,
    EvalSet,
    FlakyAfterBaseline,
    KeyHeld,
    KeyMoved,
    OnlyInArm,
    RunCreated,
    StaleFindings,
)
from flipgate.core.triage.step import TriageStep
from flipgate.present.judge import PROPOSE_COMMAND, flip_rate_text
from flipgate.present.numbers import labelled
from flipgate.present.reasons import sentence
from flipgate.present.sources import cell_split

TITLES: dict[str, str] = {  # by triage class (a decision file names it as text)
    "infra": "Infra failures",
    "flaky": "Flaky cases",
    "grader": "Grader",
    "stale_baseline": "Stale baseline",
    "regression": "Regression",
}
LISTED_AT_MOST = 8  # case ids written out in one fact line; the step's case list holds them all

Line = tuple[str, str]  # a fact as the checklist shows it: its label and its value


def _ids(cases: Sequence[str]) -> str:
    """Case ids on one line: the first few, and how many more."""
    shown = ", ".join(cases[:LISTED_AT_MOST])
    more = len(cases) - LISTED_AT_MOST
    return f"{shown} and {more} more" if more > 0 else shown


@singledispatch
def fact_line(fact: object) -> Line:
    """A fact of a triage step as a label and a value."""
    raise TypeError(f"no words for {type(fact).__name__}")


@singledispatch
def step_summary(findings: object) -> str:
    """What a step found, in one line."""
    raise TypeError(f"no words for {type(findings).__name__}")


def summary_of(step: TriageStep) -> str:
    return step_summary(step.summary)


# 1. infra -------------------------------------------------------------------------------


def _kinds(kinds: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in kinds)


@fact_line.register
def _(f: ArmInfraShare) -> Line:
    kinds = _kinds(f.kinds)
    return (
        f"{f.arm} infra repetitions",
        f"{f.count} of {f.reps} ({f.share:.1%}, at most {f.allowed:.0%} allowed)"
        + (f": {kinds}" if kinds else ""),
    )


def _infra_arm(arm: InfraCount) -> str:
    counts = (
        f"{arm.arm}: {arm.passes} pass, {arm.gradable - arm.passes} fail, {arm.infra} infra "
        f"({_kinds(arm.kinds) or 'unspecified'}) -> "
    )
    if arm.effect == "would_pass":
        fails = "a tie, so it fails" if 2 * arm.passes == arm.gradable else "it fails"
        return f"{counts}{fails}; had the infra repetitions passed, it would pass"
    if arm.effect == "would_fail":
        return f"{counts}it passes; had the infra repetitions failed, it would fail"
    return f"{counts}the verdict stands whatever the infra repetitions did"


@fact_line.register
def _(f: InfraFlip) -> Line:
    return f.case, "; ".join(_infra_arm(arm) for arm in f.arms)


@fact_line.register
def _(f: AllInfra) -> Line:
    return (
        f.case,
        f"no gradable {f.arm} repetition: every repetition was infra, so it is left out of the "
        "count",
    )


@step_summary.register
def _(s: InfraFindings) -> str:
    parts = []
    if s.over:
        parts.append(f"infra failures exceed the allowed share in the {' and '.join(s.over)} run")
    if s.hinges:
        verb = "hinges" if s.hinges == 1 else "hinge"
        parts.append(f"{plural(s.hinges, 'flipped case')} {verb} on infra repetitions")
    if s.touched:
        parts.append(f"{plural(s.touched, 'flipped case')} had infra, not decided by it")
    if s.lost:
        parts.append(f"{plural(s.lost, 'case')} lost every repetition to infra")
    return "; ".join(parts) or "no flipped case has an infra repetition"


# 2. flaky -------------------------------------------------------------------------------


@fact_line.register
def _(f: FlakyListSize) -> Line:
    entries = plural(f.entries, "entry", "entries")
    return "flaky list", f"{entries}; listed cases are left out of b and c"


@fact_line.register
def _(f: BaselineRepeats) -> Line:
    n = len(f.cases)
    return (
        "identical baseline runs",
        f"{len(f.runs)} with the same key ({', '.join(f.runs)}); "
        f"{plural(n, 'case')} flip between them" + (f": {_ids(f.cases)}" if n else ""),
    )


@fact_line.register
def _(f: NoBaselineRepeats) -> Line:
    return "identical baseline runs", "none given (run the baseline again to measure)"


SPLIT_WORDS = {
    "both": "both arms",
    "baseline": "the baseline only",
    "candidate": "the candidate only",
}


def _pattern(counts: tuple[int, int]) -> str:
    passes, gradable = counts
    return "missing" if gradable == 0 else f"{passes} of {gradable} passed"


@fact_line.register
def _(f: NoisyCase) -> Line:
    signs = []
    if (e := f.listed) is not None:
        signs.append(
            f"listed since {e.added.isoformat()} by {e.owner}: {e.reason}; evidence: {e.evidence}"
        )
    if f.marks is not None:
        signs.append(f"across the baseline runs: {' '.join(f.marks)}")
    if f.split_in is not None:
        signs.append(
            f"repetitions split in {SPLIT_WORDS[f.split_in]}: baseline {_pattern(f.baseline)}, "
            f"candidate {_pattern(f.candidate)}"
        )
    return f.case, "; ".join(signs)


@step_summary.register
def _(s: FlakyFindings) -> str:
    parts = [
        f"{n} {what}"
        for n, what in (
            (s.listed, "listed"),
            (s.unsteady, "flipping between baseline runs"),
            (s.split_both, "split in both arms"),
            (s.split_one, "split in one arm only"),
            (s.judge_unstable, "moved by the judge alone"),
        )
        if n
    ]
    if not parts:
        return "no flipped case is listed, split or unsteady across baseline runs"
    return f"flipped cases that look noisy: {', '.join(parts)}"


@fact_line.register
def _(f: JudgeUnstable) -> Line:
    return f"judge alone, {f.arm}", (
        f"{plural(len(f.cases), 'flipped case')} changed verdict across {f.judgings} judgings of "
        f"the same stored outputs: {_ids(f.cases)} ({PROPOSE_COMMAND} lists them with that "
        "evidence)"
    )


# 3. grader ------------------------------------------------------------------------------


@fact_line.register
def _(f: JudgeMoved) -> Line:
    where = "(the declared change)" if f.declared else "(outside the declared change)"
    return "judge", f"{f.baseline or '(absent)'} -> {f.candidate or '(absent)'} {where}"


@fact_line.register
def _(f: JudgeHeld) -> Line:
    return "judge", f"{f.judge} in both arms" if f.judge else "not in either key"


@fact_line.register
def _(f: FlipSplit) -> Line:
    flipped = f.broke.total + f.fixed.total
    grader = f.broke.grader + f.fixed.grader
    normalised = "whitespace, JSON key order" + (
        f" and {plural(f.volatile, 'volatile pattern')}" if f.volatile else ""
    )
    said = (
        f"{grader} of {plural(flipped, 'flipped case')} have equal outputs "
        f"(after normalising {normalised}): the grader changed its mind"
        if grader
        else f"no flipped case kept its output (normalised: {normalised})"
    )
    return "outputs", (f"{said} · {cell_split('b', f.broke)} · {cell_split('c', f.fixed)}")


@fact_line.register
def _(f: GraderSelfNoise) -> Line:
    return f"grader noise, {f.arm}", (
        f"{f.graded_apart} of {plural(f.same_output_pairs, 'pair')} of repetitions with the same "
        f"output got different verdicts: {_ids(f.cases)}"
    )


@fact_line.register
def _(f: SameOutput) -> Line:
    how = "identical" if f.exact else "identical after normalisation"

    def grade(passed: bool) -> str:
        return "passed" if passed else "failed"

    grades = f"baseline {grade(f.baseline_passed)}, candidate {grade(f.candidate_passed)}"
    others = f" ({plural(f.pairs, 'such pair')} of repetitions)" if f.pairs > 1 else ""
    if f.baseline_rep == f.candidate_rep:
        return f.case, f"rep {f.baseline_rep}: output {how}; {grades}{others}"
    return (
        f.case,
        f"candidate rep {f.candidate_rep} output {how} to baseline rep {f.baseline_rep}'s; "
        f"{grades}{others}",
    )


@fact_line.register
def _(f: NoFlipToCompare) -> Line:
    return "outputs", "no flipped case to compare"


@fact_line.register
def _(f: NoOutputGradedTwice) -> Line:
    return (
        "outputs",
        f"no flipped case has the same output graded differently ({f.compared} compared)",
    )


@fact_line.register
def _(f: JudgeAlone) -> Line:
    rate = flip_rate_text(f.rule, f.flipped, f.outputs, f.low, f.high, f.level)
    return f"judge alone, {f.arm}", f"{rate} across {f.judgings} judgings of the same outputs"


@fact_line.register
def _(f: NoJudgeRepeats) -> Line:
    return "judge alone", (
        "not measured: judge the stored outputs again (rejudged/, docs/who-flipped.md) to tell "
        "the judge's own noise"
    )


@step_summary.register
def _(s: GraderFindings) -> str:
    parts = []
    if s.judge_moved:
        parts.append("the judge moved")
    if s.same_output:
        parts.append(
            f"{s.same_output} of {plural(s.flipped, 'flipped case')} kept the same output under "
            "another grade: the grader changed its mind"
        )
    return "; ".join(parts) if parts else "the judge held and no output is graded two ways"


# 4. stale baseline ----------------------------------------------------------------------


@fact_line.register
def _(f: KeyMoved) -> Line:
    where = "declared" if f.declared else "outside the declared change"
    before, after = (ABSENT if v is None else v for v in (f.baseline, f.candidate))
    return f"key {f.component}", f"{before} -> {after} ({where})"


@fact_line.register
def _(f: KeyHeld) -> Line:
    return "key", "no component moved between the arms"


@fact_line.register
def _(f: EvalSet) -> Line:
    if f.baseline == f.candidate and f.baseline:
        return "eval-set revision", f"{f.baseline} in both arms"
    if f.baseline is None and f.candidate is None:
        return "eval-set revision", "not in either key"
    return (
        "eval-set revision",
        f"baseline {f.baseline or '(not recorded)'}, candidate {f.candidate or '(not recorded)'}",
    )


@fact_line.register
def _(f: RunCreated) -> Line:
    if f.created is None:
        return f"{f.arm} created", "(not recorded)"
    return f"{f.arm} created", f.created.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _age(baseline: datetime | None, candidate: datetime | None) -> str:
    if baseline is None or candidate is None:
        return "unknown: a run has no `created` time"
    gap = candidate - baseline
    if gap.total_seconds() < 0:
        return "the baseline was created after the candidate"
    days, hours = gap.days, gap.seconds // 3600
    if not days and not hours:
        return "made within the hour of the candidate"
    return f"{plural(days, 'day')} {plural(hours, 'hour')} older than the candidate"


@fact_line.register
def _(f: BaselineAge) -> Line:
    return "baseline age", _age(f.baseline, f.candidate)


@fact_line.register
def _(f: OnlyInArm) -> Line:
    return f"only in the {f.arm}", f"{len(f.cases)}: {_ids(f.cases)}"


@fact_line.register
def _(f: EditedBetweenArms) -> Line:
    how = "; ".join(sentence(edit) for edit in f.edits)
    return f.case, f"edited between the arms: {how}"


@fact_line.register
def _(f: FlakyAfterBaseline) -> Line:
    entries = ", ".join(f"{case} (added {added.isoformat()})" for case, added in f.entries)
    return "flaky entries after the baseline", entries


@step_summary.register
def _(s: StaleFindings) -> str:
    parts = []
    if s.drift:
        parts.append(f"key moved outside the declared change: {', '.join(s.drift)}")
    elif s.revision_moved:
        parts.append("the eval-set revision differs")
    if s.added or s.removed:
        parts.append(f"{s.added} cases added, {s.removed} removed")
    if s.edited:
        parts.append(f"{plural(s.edited, 'case')} edited")
    return "; ".join(parts) if parts else "same key outside the change, same cases, same revision"


# 5. regression --------------------------------------------------------------------------


@fact_line.register
def _(f: FlippedCases) -> Line:
    counted = f"{labelled('b', f.b)}, {labelled('c', f.c)}"
    return "flipped cases", f"{f.flips}, listed ones included (counted: {counted})"


@fact_line.register
def _(f: ExplainedEarlier) -> Line:
    steps = ", ".join(f"{klass} {n}" for klass, n in f.by_class)
    return "explained earlier", f"{steps}; {f.remain} remain: {f.broke} broke, {f.fixed} fixed"


def _change(was: int, now: int) -> str:
    return f"{was} -> {now} ({now - was:+d})"


@fact_line.register
def _(f: CasesPassing) -> Line:
    return "cases passing", _change(*f.passing)


@fact_line.register
def _(f: OutcomeChange) -> Line:
    return OUTCOME_WORDS[f.outcome], _change(f.baseline, f.candidate)


@fact_line.register
def _(f: RuleWrong) -> Line:
    kinds = ", ".join(f"{n} {outcome.replace('_', ' ')}" for outcome, n in f.kinds)
    return (
        f"rule {f.rule}",
        f"{plural(f.wrong, 'wrong candidate call')} in {plural(f.cases, 'case')} ({kinds})",
    )


@fact_line.register
def _(f: TemplateBroken) -> Line:
    template = "(no template)" if f.template is None else f.template
    return f"template {template}", f"{plural(len(f.cases), 'broken case')}: {_ids(f.cases)}"


@fact_line.register
def _(f: TemplatesCluster) -> Line:
    return (
        "templates",
        f"{plural(f.broken, 'broken case')} come from {plural(f.templates, 'template')}: "
        "cloned cases flip together, count a template once",
    )


@fact_line.register
def _(f: WhoFlipped) -> Line:
    parts = [
        f"{len(cases)} {what}: {_ids(cases)}"
        for cases, what in (
            (f.model, "changed output (the model)"),
            (f.grader, "same output (the grader)"),
            (f.unknown, "no outputs to compare"),
        )
        if cases
    ]
    return "who flipped", "; ".join(parts)


@step_summary.register
def _(s: RegressionFindings) -> str:
    if s.broken:
        where = [f"rule {s.rule}"] if s.rule is not None else []
        if s.template is not None:
            where.append(f"template {s.template}")
        most = f", most in {' and '.join(where)}" if where else ""
        return f"{plural(s.broken, 'broken case')} no earlier step explains{most}"
    if s.flips:
        return "an earlier step explains every broken case"
    return "no case flipped"


# each broken case's class, as a signed decision records it ----------------------------------


def placements(comparison: Comparison, steps: Sequence[TriageStep]) -> tuple[CasePlacement, ...]:
    """Each broken case, the class whose step explains it first, and why in that step's words:
    the step's line about the case, else what it found; the regression step says who flipped."""
    sources = comparison.result.sources
    flipped = sources.cases.select("case", "source").rows() if sources is not None else ()
    source_of: dict[str, str | None] = dict(flipped)  # a look-up, not a filter, per case
    said: dict[int, dict[str, str]] = {}  # per step, each case's words: one pass over its facts
    placements = []
    for case, step in placed(comparison, steps):
        if step.klass == "regression":
            why = f"no earlier step explains it; {SOURCE_WORDS[source_of.get(case) or 'unknown']}"
        else:
            if id(step) not in said:
                said[id(step)] = _said(step)
            why = said[id(step)].get(case) or summary_of(step)
        placements.append(CasePlacement(case, step.klass, why))
    return tuple(placements)


def _said(step: TriageStep) -> dict[str, str]:
    """Each case a fact of `step` names, with the words of the first such fact."""
    words: dict[str, str] = {}
    for fact in step.facts:
        if (case := getattr(fact, "case", None)) is not None:
            words.setdefault(case, fact_line(fact)[1])
        for named in getattr(fact, "cases", ()):
            words.setdefault(named, " ".join(fact_line(fact)))
    return words


SOURCE_WORDS = {
    "model": "its output changed: the model flipped it",
    "grader": "its output is the same: the grader flipped it",
    "unknown": "no stored outputs to tell who flipped it",
}
