"""The gate (SPEC §3): runs in, a `Comparison` out; the CLI and the app only format it.

1. collapse  collapse.py   per case and arm over non-infra repetitions
2. pair      pairing.py    on case id; the cells b and c; every case's state in the ledger
                           (ledger.py): paired, or left out and why
3. p         mcnemar.py    the exact one-sided McNemar test
4. evidence  evidence.py   safety failures, outcome limits, warnings; invalid.py the reasons the
             comparison is invalid; changes.py, loosening.py and budgets.py measure what seed
             001 forbids or budgets. Each is a payload with a code, worded in `present/`
5. verdict   rules.py      the first rule of SPEC §3.5 that fires
6. next      escalation.py what to do on INCONCLUSIVE (reruns.py applies the reruns)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import polars as pl

from flipgate.core.gate import evidence, invalid
from flipgate.core.gate.attempts import Earlier, rerun_until_green
from flipgate.core.gate.bounds import NeverEvent, effect_at_level, never_event
from flipgate.core.gate.budgets import BudgetCheck, check_budgets
from flipgate.core.gate.changes import Questions, SuiteChanges, suite_changes
from flipgate.core.gate.collapse import PREFIX, classified_decisions, collapse, rep_results
from flipgate.core.gate.escalation import Escalation, escalate
from flipgate.core.gate.evidence import ArmInfra, GateWarning, Judged
from flipgate.core.gate.excess import Excess, false_negative_test, mirror_approval_tests
from flipgate.core.gate.family import share_alpha
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import JudgeRepeats
from flipgate.core.gate.ledger import Ledger, LeftOut, ledger
from flipgate.core.gate.loosening import AgainstBase, GateBase, against_base
from flipgate.core.gate.outcomes import OutcomeSummary, summarize
from flipgate.core.gate.pairing import counted_clusters, pair, safety_counts
from flipgate.core.gate.power import FlipRule, Power, gate_power
from flipgate.core.gate.registered import Registration
from flipgate.core.gate.rerun_price import PlanPrice
from flipgate.core.gate.retired import NO_RETIREMENTS, RetiredCase, Retirements
from flipgate.core.gate.rules import Evidence, decide
from flipgate.core.gate.sources import FlipSources, flip_sources
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import ClusterReading, Effect
from flipgate.core.order import natural_sorted
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, Arm, CountedBy, GateRule, Verdict


@dataclass(frozen=True)
class GateResult(Evidence):
    """The evidence and the verdict drawn from it, with what the reports show beside them."""

    verdict: Verdict
    rule: GateRule
    suite: str
    flipped: tuple[tuple[str, str], ...]  # (case, direction), listed cases excluded
    unpaired: tuple[LeftOut, ...]  # every case left out of the cells, with its state
    infra: dict[Arm, ArmInfra]
    outcomes: dict[str, OutcomeSummary]
    key_moved: tuple[str, ...]  # every component that differs between the arms
    declared_change: tuple[str, ...]
    flaky_listed: tuple[str, ...]
    flaky_flipped: tuple[str, ...]  # listed cases that flipped in this run, left out of b and c
    flaky_unknown: tuple[str, ...]  # listed cases that are in neither run
    escalation: Escalation | None
    spec_digest: str
    flaky_digest: str
    runs: dict[str, str]  # arm -> run_id
    changes: SuiteChanges  # cases edited, deleted, new; cached repetitions
    base: AgainstBase  # the gate and flaky list against where the change is going
    budgets: tuple[BudgetCheck, ...]  # every budget, met or not
    effect: Effect | None  # (c - b) / n in points and its interval; None when nothing paired
    power: Power  # what the gate could see on these cases, at this flip share
    clusters: ClusterReading  # the flips per template, and p read by case and by template
    ledger: Ledger  # every case of either arm in one state, counted per arm
    warnings: tuple[GateWarning, ...] = ()
    false_negatives: Excess | None = None  # against the baseline's, tested against the noise
    safety_bound: NeverEvent | None = None  # what the safety cases bound; None: there are none
    previous: GateResult | None = None  # the first verdict, when rerun results were applied
    retired: tuple[RetiredCase, ...] = ()  # retired from the suite: left out of b and c
    retired_flipped: tuple[str, ...] = ()  # retired cases that flipped in this run
    sources: FlipSources | None = None  # who flipped each counted flip: the model or the grader
    registration: Registration | None = None  # the rule registered before the run, if given
    earlier: Earlier | None = None  # what the ledger knew of this change; None: no ledger
    allow_partial: bool = False  # `--allow-partial`: a run not whole gated, never to PASS

    @property
    def paired(self) -> int:
        return sum(self.cells.values())

    @cached_property
    def unpaired_by_case(self) -> dict[str, LeftOut]:
        return {left.case: left for left in self.unpaired}

    @property
    def key_drift(self) -> tuple[str, ...]:
        """Components that moved outside the declared change: a stale baseline."""
        return tuple(k for k in self.key_moved if k not in self.declared_change)


@dataclass(frozen=True)
class Comparison:
    """Everything the gate computed, for the report, the app and the triage walk."""

    baseline: Run
    candidate: Run
    spec: GateSpec
    flaky: FlakyList
    # each arm as judged (baseline, candidate): it depends on neither the flaky list nor the
    # retirements, so the app's re-gate after an edit of either takes it again (`judged_arms`)
    judged: tuple[ArmResults, ...]
    cases: pl.DataFrame  # one row per case of either arm, both arms side by side
    result: GateResult
    retired: Retirements = NO_RETIREMENTS
    base: GateBase | None = None  # the spec and flaky list where the change is going
    rerun_price: PlanPrice | None = None  # on a full run's INCONCLUSIVE: the plan priced
    judge_repeats: tuple[JudgeRepeats, ...] = ()  # per arm rejudged: the judge measured alone

    def run(self, arm: str) -> Run:
        return self.baseline if arm == "baseline" else self.candidate

    @property
    def reps(self) -> dict[str, pl.DataFrame]:
        """arm -> one row per (case, rep) with its pass/fail, as the arm was judged."""
        return {arm: judged.reps for arm, judged in zip(ARMS, self.judged, strict=True)}

    @cached_property
    def decisions(self) -> dict[str, pl.DataFrame]:
        """arm -> classified decisions of gradable repetitions, one row each: made on first use
        (the app, the reports that list decisions) and kept with the arm as judged, so a re-gate
        that takes the arm again has them; never made by the gate itself."""
        return {arm: judged.decisions for arm, judged in zip(ARMS, self.judged, strict=True)}


@dataclass(frozen=True)
class ArmResults:
    """One arm judged on its own: its decisions, repetitions, collapsed cases and outcomes.

    The same baseline compared with several candidates (`flipgate rank`) is judged once."""

    run: Run
    spec: GateSpec
    judged: pl.DataFrame  # its gradable repetitions' decisions classified (collapse.judge)
    reps: pl.DataFrame
    cases: pl.DataFrame
    outcomes: OutcomeSummary
    questions: Questions  # what its lines ask, for the cases edited between the arms
    arm: Arm = "candidate"

    @cached_property
    def decisions(self) -> pl.DataFrame:
        """Its classified decisions one row each, made on first use (`classified_decisions`)."""
        return classified_decisions(self.run, self.spec)

    @property
    def verdicts(self) -> pl.Series:
        """Each case's collapsed verdict (null: no gradable repetition)."""
        return self.cases[f"{PREFIX[self.arm]}_passed"]

    @property
    def passing(self) -> int:
        return int(self.verdicts.sum())

    @property
    def graded(self) -> int:
        """Cases with a verdict: those with a gradable repetition."""
        return self.verdicts.count()


def judge_runs(runs: Sequence[Run], spec: GateSpec) -> tuple[ArmResults, ...]:
    """Each run judged on its own by `spec`: several systems' outcomes side by side (seed 000's
    current, safer and truly worse models), none of them a baseline."""
    return tuple(judge_arm("candidate", run, spec) for run in runs)


def judge_arm(arm: Arm, run: Run, spec: GateSpec) -> ArmResults:
    judged, arm_reps = rep_results(run, spec)
    per_case = collapse(arm_reps, spec, PREFIX[arm])
    counted = per_case.select(
        "case",
        pl.col(f"{PREFIX[arm]}_decisions").alias("decisions"),
        pl.col(f"{PREFIX[arm]}_wrong").alias("wrong"),
    )
    outcomes = summarize(judged, run.labels, spec, counted)
    return ArmResults(run, spec, judged, arm_reps, per_case, outcomes, Questions.of(run), arm)


def compare(
    baseline: Run,
    candidate: Run,
    spec: GateSpec,
    flaky: FlakyList | None = None,
    *,
    declared_change: tuple[str, ...] = (),
    previous: GateResult | None = None,
    judged_baseline: ArmResults | None = None,
    judged_candidate: ArmResults | None = None,
    retired: Retirements = NO_RETIREMENTS,
    base: GateBase | None = None,
    look: int | None = None,
    registration: Registration | None = None,
    earlier: Earlier | None = None,
    allow_partial: bool = False,
) -> Comparison:
    """Apply the gate to two runs. `declared_change` adds to the candidate's `change.keys`;
    `judged_baseline` is `judge_arm("baseline", baseline, spec)` when it was already made (and
    `judged_candidate` the candidate's);
    `retired` are the cases the suite manifest archived; `base` is the spec and flaky list where
    the change is going (None: not checked); `look` is this look at the change (looks.py: 1, or
    2 after the rerun of `previous`; a ledger of attempts counts them); `allow_partial` gates a
    run that is not whole (did not finish, lacks repetitions) to at best INCONCLUSIVE, where it
    would be INVALID; `registration` the rule registered before the run (None: not registered);
    `earlier` what a ledger of attempts knew of this change (None: no such ledger)."""
    flaky = flaky or FlakyList()
    arms = tuple(
        _judged(arm, run, spec, given)
        for arm, run, given in zip(
            ARMS, (baseline, candidate), (judged_baseline, judged_candidate), strict=True
        )
    )
    by_arm: dict[str, ArmResults] = dict(zip(ARMS, arms, strict=True))
    judged_decisions = {arm: judged.judged for arm, judged in by_arm.items()}
    reps = {arm: judged.reps for arm, judged in by_arm.items()}
    outcomes = {arm: judged.outcomes for arm, judged in by_arm.items()}
    base_cases, cand_cases = (judged.cases for judged in arms)
    runs: dict[Arm, Run] = {"baseline": baseline, "candidate": candidate}
    pairing = pair(base_cases, cand_cases, flaky, retired.names, spec.test, runs)
    infra = {arm: evidence.arm_infra(run) for arm, run in runs.items()}
    # SPEC 3.5 and 9: with templates in the runs each is counted once (the default), by the
    # significance rule, the limits, the budgets, the safety bound, the interval and the power;
    # with none, the by-template p is McNemar's by case and is said as such.
    templated = bool(pairing.cases["template"].is_not_null().any())
    by_template = spec.clusters == "template" and templated
    counted: CountedBy = "template" if by_template else "case"
    clustered = counted_clusters(pairing.cases, by_template)
    looking = look if look is not None else 2 if previous is not None else 1
    boundary = spec.boundary(looking)

    judged = Judged(
        baseline=baseline,
        candidate=candidate,
        spec=spec,
        flaky=flaky,
        cases=pairing.cases,
        infra=infra,
        outcomes=outcomes,
        moved=moved_components(baseline.key, candidate.key),
        change=tuple(dict.fromkeys((*candidate.change_keys, *declared_change))),
        retired=retired,
        changes=suite_changes(
            by_arm["baseline"].questions,
            by_arm["candidate"].questions,
            pairing.cases,
            retired.names,
        ),
        base=against_base(
            base,
            spec,
            flaky,
            outcomes["baseline"].counts["false_negative"],
            retired,
            outcomes["baseline"].fewest_mirror_approved(baseline.decision_rules),
        ),
        registration=registration,
        ledger=ledger(
            pairing.cases,
            runs,
            {arm: judged.cases.height for arm, judged in zip(ARMS, arms, strict=True)},
            {arm: found.count for arm, found in infra.items()},
            sum(pairing.cells.values()),
        ),
    )
    invalid_reasons = evidence.reasons(judged, invalid.INVALID_CHECKS)
    partial = tuple(r for r in invalid_reasons if allow_partial and r.code in invalid.PARTIAL)
    # INVALID, or partial and so INCONCLUSIVE at best: a budget it cannot measure is left out
    budgets = check_budgets(spec, baseline, candidate, clustered, invalid=bool(invalid_reasons))
    clusters = pairing.clusters
    p = clusters.p_by_template if by_template else clusters.p_by_case
    # The paths to BLOCK share the look's boundary (family.py): the flips, the false negatives
    # against the baseline's where the runs are labelled, each relative budget.
    tested = spec.limits.false_negative_max == "baseline"
    fn = (
        false_negative_test(reps, judged_decisions, clustered, spec.test, counted)
        if tested
        else None
    )
    labelled = outcomes["candidate"].decisions > 0
    approvals = None
    if spec.limits.mirror_approved_max == "baseline":  # each rule's, against the noise too
        labels = (candidate.labels.abstain, candidate.labels.negative)
        approvals = mirror_approval_tests(
            reps, judged_decisions, clustered, labels, spec.test, counted
        )
    shared = share_alpha(
        spec.family,
        spec.alpha,
        boundary,
        p,
        fn,
        budgets,
        labelled=labelled,
        mirror_approved=approvals,
    )
    judged = replace(
        judged, false_negatives=shared.false_negatives, mirror_approved=shared.mirror_approved
    )
    budgets = shared.budgets
    boundary = shared.family.significance.boundary
    evidence.check_limit_rules(spec, (found.rules for found in outcomes.values()))
    rule_set = spec.set_rule(candidate.suite)
    failures = evidence.safety_failures(judged)
    safety_bound = None
    if pairing.cases["safety"].any() or spec.safety_max_rate is not None:
        safe, failed = safety_counts(pairing.cases, failures, by_template)
        safety_bound = never_event(safe, failed, spec.alpha, spec.safety_max_rate, counted)
    found = Evidence(
        cells=pairing.cells,
        p=p,
        p_by=counted,
        alpha=spec.alpha,
        margin=rule_set.margin,
        flip_cap=rule_set.flip_cap,
        safety_failures=failures,
        invalid_reasons=tuple(r for r in invalid_reasons if r not in partial),
        partial_reasons=partial,
        limit_breaches=evidence.reasons(judged, evidence.LIMIT_CHECKS),
        budget_breaches=tuple(check for check in budgets if check.exceeded),
        look=looking,
        boundary=boundary,
        safety_short=(safety_bound,)
        if safety_bound is not None and not safety_bound.supported
        else (),
        family=shared.family,
    )
    rule = decide(found)
    sources = flip_sources(
        pairing.flipped,
        {"baseline": baseline, "candidate": candidate},
        reps,
        {arm: _split_cases(pairing.cases, PREFIX[arm]) for arm in ARMS},
        spec.volatile,
    )
    refusal = rerun_until_green(earlier) if rule.verdict == "PASS" else None
    if refusal is not None:  # a PASS after a BLOCK or INCONCLUSIVE of this change: INVALID
        found = replace(found, invalid_reasons=(*found.invalid_reasons, refusal))
        rule = decide(found)
    paired = sum(found.cells.values())
    design = clusters.design_effect if by_template else 1.0
    result = GateResult(
        **vars(found),
        verdict=rule.verdict,
        rule=rule.name,
        suite=candidate.suite,
        flipped=pairing.flipped,
        unpaired=pairing.unpaired,
        infra=judged.infra,
        outcomes=outcomes,
        key_moved=tuple(c.name for c in judged.moved),
        declared_change=judged.change,
        flaky_listed=tuple(natural_sorted(flaky.cases)),
        flaky_flipped=pairing.flaky_flipped,
        flaky_unknown=pairing.flaky_unknown,
        escalation=escalate(
            candidate.suite,
            spec,
            pairing.flipped,
            after_rerun=previous is not None,
            next_boundary=spec.boundary(looking + 1),
            family=shared.family,
            not_whole=_not_whole(pairing.unpaired) if rule.name == "partial" else (),
        )
        if rule.verdict == "INCONCLUSIVE"
        else None,
        spec_digest=spec.digest,
        flaky_digest=flaky.digest,
        runs={"baseline": baseline.run_id, "candidate": candidate.run_id},
        changes=judged.changes,
        base=judged.base,
        budgets=budgets,
        effect=effect_at_level(
            found.b,
            found.c,
            paired,
            boundary=boundary,
            p=found.p,
            clusters=clusters if by_template else None,
        ),
        power=gate_power(
            found.b,
            found.c,
            paired,
            FlipRule(boundary, rule_set.margin, rule_set.flip_cap, spec.test),
            design,
        ),
        clusters=clusters,
        ledger=judged.ledger,
        warnings=(
            *evidence.warnings(judged),
            *evidence.cluster_warnings(clusters, boundary, counted),
        ),
        false_negatives=judged.false_negatives,
        safety_bound=safety_bound,
        previous=previous,
        retired=retired.cases,
        retired_flipped=pairing.retired_flipped,
        sources=sources,
        registration=registration,
        earlier=earlier,
        allow_partial=allow_partial,
    )
    return Comparison(baseline, candidate, spec, flaky, arms, pairing.cases, result, retired, base)


def _judged(arm: Arm, run: Run, spec: GateSpec, given: ArmResults | None) -> ArmResults:
    """`run` judged as `arm`, or `given` when it was judged already (on this run and spec)."""
    if given is None:
        return judge_arm(arm, run, spec)
    if given.run is not run or given.spec is not spec:
        raise ValueError(f"judged_{arm} was judged on another run or spec")
    return given


def _split_cases(cases: pl.DataFrame, prefix: str) -> pl.Series:
    """The cases whose gradable repetitions got both verdicts in one arm."""
    passes, gradable = pl.col(f"{prefix}_passes"), pl.col(f"{prefix}_gradable")
    return cases.filter((passes > 0) & (passes < gradable))["case"]


def _not_whole(unpaired: tuple[LeftOut, ...]) -> tuple[str, ...]:
    """The cases a partial run lacks repetitions of: what finishing it runs."""
    return tuple(u.case for u in unpaired if u.code in invalid.PARTIAL)
