"""The gate (SPEC §3): runs in, a `Comparison` out; the CLI and the app only format it.

1. collapse  collapse.py   per case and arm over non-infra repetitions
2. pair      pairing.py    on case id; the cells b and c, the unpaired cases
3. p         mcnemar.py    the exact one-sided McNemar test
4. evidence  evidence.py   safety failures, outcome limits, warnings; invalid.py the reasons the
             comparison is invalid; changes.py, loosening.py and budgets.py measure what seed
             001 forbids or budgets. Each is a payload with a code, worded in `present/`
5. verdict   rules.py      the first rule of SPEC §3.5 that fires
6. next      escalation.py what to do on INCONCLUSIVE (reruns.py applies the reruns)
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from flipgate.core.gate import evidence, invalid
from flipgate.core.gate.budgets import BudgetCheck, check_budgets
from flipgate.core.gate.changes import Questions, SuiteChanges, suite_changes
from flipgate.core.gate.collapse import PREFIX, collapse, rep_results
from flipgate.core.gate.escalation import Escalation, escalate
from flipgate.core.gate.evidence import ArmInfra, GateWarning, Judged
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import JudgeRepeats
from flipgate.core.gate.loosening import AgainstBase, GateBase, against_base
from flipgate.core.gate.outcomes import OutcomeSummary, summarize
from flipgate.core.gate.pairing import Unpaired, pair
from flipgate.core.gate.rerun_price import PlanPrice
from flipgate.core.gate.retired import NO_RETIREMENTS, RetiredCase, Retirements
from flipgate.core.gate.rules import Evidence, decide
from flipgate.core.gate.sources import FlipSources, flip_sources
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import ClusterReading, Effect, FlipRule, Power, effect, gate_power
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, Arm, GateRule, Verdict


@dataclass(frozen=True)
class GateResult(Evidence):
    """The evidence and the verdict drawn from it, with what the reports show beside them."""

    verdict: Verdict
    rule: GateRule
    suite: str
    flipped: tuple[tuple[str, str], ...]  # (case, direction), listed cases excluded
    unpaired: tuple[Unpaired, ...]
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
    warnings: tuple[GateWarning, ...] = ()
    previous: GateResult | None = None  # the first verdict, when rerun results were applied
    retired: tuple[RetiredCase, ...] = ()  # retired from the suite: left out of b and c
    retired_flipped: tuple[str, ...] = ()  # retired cases that flipped in this run
    sources: FlipSources | None = None  # who flipped each counted flip: the model or the grader

    @property
    def paired(self) -> int:
        return sum(self.cells.values())

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
    decisions: dict[str, pl.DataFrame]  # arm -> classified decisions of gradable repetitions
    reps: dict[str, pl.DataFrame]  # arm -> one row per (case, rep) with its pass/fail
    cases: pl.DataFrame  # one row per case of either arm, both arms side by side
    result: GateResult
    retired: Retirements = NO_RETIREMENTS
    base: GateBase | None = None  # the spec and flaky list where the change is going
    rerun_price: PlanPrice | None = None  # on a full run's INCONCLUSIVE: the plan priced
    judge_repeats: tuple[JudgeRepeats, ...] = ()  # per arm rejudged: the judge measured alone

    def run(self, arm: str) -> Run:
        return self.baseline if arm == "baseline" else self.candidate


@dataclass(frozen=True)
class ArmResults:
    """One arm judged on its own: its decisions, repetitions, collapsed cases and outcomes.

    The same baseline compared with several candidates (`flipgate rank`) is judged once."""

    run: Run
    spec: GateSpec
    decisions: pl.DataFrame
    reps: pl.DataFrame
    cases: pl.DataFrame
    outcomes: OutcomeSummary
    questions: Questions  # what its lines ask, for the cases edited between the arms


def judge_arm(arm: Arm, run: Run, spec: GateSpec) -> ArmResults:
    arm_decisions, arm_reps = rep_results(run, spec)
    per_case = collapse(arm_reps, spec, PREFIX[arm])
    counted = per_case.select(
        "case",
        pl.col(f"{PREFIX[arm]}_decisions").alias("decisions"),
        pl.col(f"{PREFIX[arm]}_wrong").alias("wrong"),
    )
    outcomes = summarize(arm_decisions, run.labels, counted)
    return ArmResults(run, spec, arm_decisions, arm_reps, per_case, outcomes, Questions.of(run))


def compare(
    baseline: Run,
    candidate: Run,
    spec: GateSpec,
    flaky: FlakyList | None = None,
    *,
    declared_change: tuple[str, ...] = (),
    previous: GateResult | None = None,
    judged_baseline: ArmResults | None = None,
    retired: Retirements = NO_RETIREMENTS,
    base: GateBase | None = None,
) -> Comparison:
    """Apply the gate to two runs. `declared_change` adds to the candidate's `change.keys`;
    `judged_baseline` is `judge_arm("baseline", baseline, spec)` when it was already made;
    `retired` are the cases the suite manifest archived; `base` is the spec and flaky list where
    the change is going (None: not checked)."""
    flaky = flaky or FlakyList()
    arms: tuple[ArmResults, ...]
    if judged_baseline is None:
        arms = tuple(map(judge_arm, ARMS, (baseline, candidate), (spec, spec)))
    elif judged_baseline.run is not baseline or judged_baseline.spec is not spec:
        raise ValueError("judged_baseline was judged on another run or spec")
    else:
        arms = (judged_baseline, judge_arm("candidate", candidate, spec))
    by_arm: dict[str, ArmResults] = dict(zip(ARMS, arms, strict=True))
    decisions = {arm: judged.decisions for arm, judged in by_arm.items()}
    reps = {arm: judged.reps for arm, judged in by_arm.items()}
    outcomes = {arm: judged.outcomes for arm, judged in by_arm.items()}
    base_cases, cand_cases = (judged.cases for judged in arms)
    pairing = pair(base_cases, cand_cases, flaky, retired.names)

    judged = Judged(
        baseline=baseline,
        candidate=candidate,
        spec=spec,
        flaky=flaky,
        cases=pairing.cases,
        infra={
            arm: evidence.arm_infra(run)
            for arm, run in zip(ARMS, (baseline, candidate), strict=True)
        },
        outcomes=outcomes,
        cand_decisions=decisions["candidate"],
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
            base, spec, flaky, outcomes["baseline"].counts["false_negative"], retired
        ),
    )
    paired = pairing.cases.filter(pl.col("cell").is_not_null())["case"]
    budgets = check_budgets(spec, baseline, candidate, paired)
    evidence.check_limit_rules(spec, decisions.values())
    rule_set = spec.set_rule(candidate.suite)
    clusters = pairing.clusters
    by_template = spec.clusters == "template"  # SPEC 3.5: the significance rule counts templates
    found = Evidence(
        cells=pairing.cells,
        p=clusters.p_by_template if by_template else clusters.p_by_case,
        p_by="template" if by_template else "case",
        alpha=spec.alpha,
        margin=rule_set.margin,
        flip_cap=rule_set.flip_cap,
        safety_failures=evidence.safety_failures(judged),
        invalid_reasons=evidence.reasons(judged, invalid.INVALID_CHECKS),
        limit_breaches=evidence.reasons(judged, evidence.LIMIT_CHECKS),
        budget_breaches=tuple(check for check in budgets if check.exceeded),
    )
    rule = decide(found)
    sources = flip_sources(
        pairing.flipped,
        {"baseline": baseline.reps, "candidate": candidate.reps},
        reps,  # type: ignore[arg-type]
        {arm: _split_cases(pairing.cases, PREFIX[arm]) for arm in ARMS},
        spec.volatile,
    )
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
        flaky_listed=tuple(sorted(flaky.cases)),
        flaky_flipped=pairing.flaky_flipped,
        flaky_unknown=pairing.flaky_unknown,
        escalation=escalate(
            candidate.suite, spec, pairing.flipped, after_rerun=previous is not None
        )
        if rule.verdict == "INCONCLUSIVE"
        else None,
        spec_digest=spec.digest,
        flaky_digest=flaky.digest,
        runs={"baseline": baseline.run_id, "candidate": candidate.run_id},
        changes=judged.changes,
        base=judged.base,
        budgets=budgets,
        effect=effect(found.b, found.c, sum(found.cells.values())),
        power=gate_power(
            found.b,
            found.c,
            sum(found.cells.values()),
            FlipRule(spec.alpha, rule_set.margin, rule_set.flip_cap),
        ),
        clusters=clusters,
        warnings=(*evidence.warnings(judged), *evidence.cluster_warnings(clusters, spec.alpha)),
        previous=previous,
        retired=retired.cases,
        retired_flipped=pairing.retired_flipped,
        sources=sources,
    )
    return Comparison(
        baseline, candidate, spec, flaky, decisions, reps, pairing.cases, result, retired, base
    )


def _split_cases(cases: pl.DataFrame, prefix: str) -> pl.Series:
    """The cases whose gradable repetitions got both verdicts in one arm."""
    passes, gradable = pl.col(f"{prefix}_passes"), pl.col(f"{prefix}_gradable")
    return cases.filter((passes > 0) & (passes < gradable))["case"]
