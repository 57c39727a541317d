"""The gate (SPEC §3): collapse repetitions, pair the arms, count the flips, and decide.

    1. collapse  per case and arm over non-infra repetitions: majority (a tie fails), safety: all
    2. pair      on case id; cases in one arm only, or with no gradable repetition, are unpaired
    3. cells     on paired cases not on the flaky list: both pass, both fail, b, c
    4. p         P(X >= b), X ~ Binomial(b + c, 1/2): the exact one-sided McNemar test
    5. verdict   first match wins: safety -> BLOCK, invalid -> INVALID, p <= alpha -> BLOCK,
                 outcome limit -> BLOCK, b - c <= margin and b <= flip cap -> PASS, else INCONCLUSIVE

Everything here is pure: runs in, a `Comparison` out. The CLI and the app only format it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.outcomes import (
    SEVERITY,
    OutcomeSummary,
    classify_frame,
    severity_name,
    summarize,
)
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import (
    ClusterReading,
    Effect,
    FlipRule,
    Power,
    TemplateFlips,
    effect,
    format_p,
    gate_power,
    read_clusters,
)
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.yamlio import dump_yaml
from flipgate.core.runs.load import Run, drop_where, out_of_case_order

Arm = Literal["baseline", "candidate"]
Verdict = Literal["PASS", "BLOCK", "INCONCLUSIVE", "INVALID"]
Rule = Literal["safety", "invalid", "significance", "outcome_limit", "within_margin", "undecided"]
ARMS: tuple[Arm, Arm] = ("baseline", "candidate")
PREFIX = {"baseline": "base", "candidate": "cand"}
AGREEMENT = SEVERITY.index("agreement")
FLIPS = ("pass_to_fail", "fail_to_pass")  # the cells b and c
CELLS = ("both_pass", "both_fail", *FLIPS)


@dataclass(frozen=True)
class ArmInfra:
    reps: int
    count: int
    by_kind: dict[str, int]

    @property
    def share(self) -> float:
        return self.count / self.reps if self.reps else 0.0


@dataclass(frozen=True)
class Escalation:
    """What to do next on INCONCLUSIVE (SPEC §3.6)."""

    action: Literal["run_full_set", "rerun_flipped", "reviewer_decision"]
    message: str
    cases: tuple[str, ...] = ()
    runs: int | None = None


@dataclass(frozen=True)
class GateResult:
    verdict: Literal["PASS", "BLOCK", "INCONCLUSIVE", "INVALID"]
    rule: Literal[
        "safety", "invalid", "significance", "outcome_limit", "within_margin", "undecided"
    ]
    summary: str  # the verdict and its numbers in words
    cells: dict[str, int]
    p: float
    alpha: float
    suite: str
    margin: int
    flip_cap: int
    flipped: tuple[tuple[str, str], ...]  # (case, direction), listed cases excluded
    unpaired: tuple[tuple[str, str], ...]  # (case, why)
    infra: dict[str, ArmInfra]
    outcomes: dict[str, OutcomeSummary]
    key_moved: tuple[str, ...]  # every component that differs between the arms
    declared_change: tuple[str, ...]
    safety_failures: tuple[str, ...]
    invalid_reasons: tuple[str, ...]
    limit_breaches: tuple[str, ...]
    flaky_listed: tuple[str, ...]
    flaky_flipped: tuple[str, ...]  # listed cases that flipped in this run, left out of b and c
    flaky_unknown: tuple[str, ...]  # listed cases that are in neither run
    escalation: Escalation | None
    spec_digest: str
    flaky_digest: str
    runs: dict[str, str]  # arm -> run_id
    effect: Effect | None  # (c - b) / n in points and its interval; None when nothing paired
    power: Power  # what the gate could see on these cases, at this flip share
    clusters: ClusterReading  # the flips per template, and p read by case and by template
    clusters_by: Literal["case", "template"]  # which reading the significance rule used
    warnings: tuple[str, ...] = ()
    previous: GateResult | None = None  # the first verdict, when rerun results were applied

    @property
    def b(self) -> int:
        return self.cells["pass_to_fail"]

    @property
    def c(self) -> int:
        return self.cells["fail_to_pass"]

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

    def run(self, arm: str) -> Run:
        return self.baseline if arm == "baseline" else self.candidate


# --------------------------------------------------------------------------- per arm


def _rep_results(run: Run, spec: GateSpec) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(classified decisions of gradable reps, one row per rep with `passed` and `wrong`).

    Per-rep sums are bincounts over each decision's repetition position, found through its source
    `line` (unique within a run): a hash group-by of a million decisions costs ten times more.
    """
    infra = run.reps.filter(pl.col("status") == "infra")["line"]
    decisions = classify_frame(
        drop_where(run.decisions, pl.col("line").is_in(infra.implode())), run.labels, spec
    )
    n = run.reps.height
    reps_line = run.reps["line"].to_numpy()
    index = np.zeros(int(reps_line.max()) + 1, dtype=np.int64)
    index[reps_line] = np.arange(n)
    at = index[decisions["line"].to_numpy()]  # each decision's repetition, as a row of reps

    def per_rep(weights: np.ndarray | None = None, where: np.ndarray = at) -> np.ndarray:
        return np.bincount(where, weights=weights, minlength=n)

    codes = decisions["outcome"].to_physical().to_numpy().astype(np.int8)
    worst = np.full(n, len(SEVERITY), dtype=np.int8)  # no decision: past the last outcome
    np.minimum.at(worst, at, codes)  # the enum is ordered worst first
    fails = np.array([outcome in spec.fail_on for outcome in SEVERITY])[codes]
    failed_checks = ~run.checks["passed"].to_numpy()
    failed = (per_rep(fails) > 0) | (
        per_rep(failed_checks, index[run.checks["line"].to_numpy()]) > 0
    )
    is_infra = pl.col("status") == "infra"
    reps = (
        run.reps.select("case", "rep", "line", "status", "infra", "safety", "template")
        .with_columns(
            passed=pl.when(is_infra).then(None).otherwise(pl.Series(~failed)),
            decisions=pl.Series(per_rep().astype(np.uint32)),
            wrong=pl.Series(per_rep(codes != AGREEMENT).astype(np.uint32)),
            worst_rank=pl.Series(worst),
            cost=pl.Series(per_rep(decisions["price"].to_numpy())),
        )
        .with_columns(worst=severity_name(pl.col("worst_rank")))
    )
    return decisions, reps


def _collapse(reps: pl.DataFrame, spec: GateSpec, prefix: str) -> pl.DataFrame:
    """One row per case: the collapsed verdict (SPEC §3.1) and what the drill-down shows."""
    gradable = pl.col("status") == "ok"
    n_pass = (gradable & pl.col("passed")).sum()
    n_gradable = gradable.sum()

    def verdict(rule: str) -> pl.Expr:
        return (n_pass == n_gradable) if rule == "all" else (2 * n_pass > n_gradable)

    summary = (
        pl.col("safety").first(),
        pl.col("template").drop_nulls().first(),
        pl.len().alias("reps"),
        (pl.col("status") == "infra").sum().alias("infra"),
        n_gradable.alias("gradable"),
        n_pass.alias("passes"),
        pl.col("passed").alias("pattern"),  # null = infra; in row order within the case
        pl.col("decisions").sum(),
        pl.col("wrong").sum(),
        pl.col("worst_rank").min().alias("worst"),
        pl.col("cost").sum(),
        pl.when(n_gradable == 0)
        .then(None)
        .when(pl.col("safety").first())
        .then(verdict(spec.aggregate_safety))
        .otherwise(verdict(spec.aggregate_ordinary))
        .alias("passed"),
    )
    # The cases leave sorted, so that the arms pair in order with no sort after the join. Most
    # runs are written case by case, rep by rep: grouped in that order, their cases come out
    # sorted and their patterns in rep order (25 ms an arm, where sorting twice costs 45).
    if not reps.select(out_of_case_order().any()).item():
        cases = (
            reps.group_by("case", maintain_order=True)
            .agg(summary)
            .with_columns(pl.col("case").set_sorted())
        )
    else:
        cases = reps.sort("rep", maintain_order=True).group_by("case").agg(summary).sort("case")
    cases = cases.with_columns(severity_name(pl.col("worst")))
    keep = ("case", "safety", "template")
    return cases.rename({c: f"{prefix}_{c}" for c in cases.columns if c not in keep})


def collapsed_verdicts(run: Run, spec: GateSpec) -> pl.DataFrame:
    """One row per case of `run`: case, safety, passed (null: no gradable repetition).

    The gate's own collapse (SPEC §3.1), for comparing runs that are not a baseline/candidate pair.
    """
    _, reps = _rep_results(run, spec)
    return _collapse(reps, spec, "run").select(
        "case", "safety", pl.col("run_passed").alias("passed")
    )


def _arm_infra(run: Run) -> ArmInfra:
    infra = run.reps.filter(pl.col("status") == "infra")
    kinds = infra.group_by(pl.col("infra").fill_null("unspecified")).len().sort("infra")
    return ArmInfra(
        reps=run.reps.height,
        count=infra.height,
        by_kind={str(k): int(n) for k, n in kinds.iter_rows()},
    )


# --------------------------------------------------------------------------- both arms


def compare(
    baseline: Run,
    candidate: Run,
    spec: GateSpec,
    flaky: FlakyList | None = None,
    *,
    declared_change: tuple[str, ...] = (),
    previous: GateResult | None = None,
) -> Comparison:
    """Apply the gate to two runs. `declared_change` adds to the candidate's `change.keys`."""
    flaky = flaky or FlakyList()

    def one_arm(
        arm: str, run: Run
    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, OutcomeSummary]:
        arm_decisions, arm_reps = _rep_results(run, spec)
        per_case = _collapse(arm_reps, spec, PREFIX[arm])
        counted = per_case.select(
            "case",
            pl.col(f"{PREFIX[arm]}_decisions").alias("decisions"),
            pl.col(f"{PREFIX[arm]}_wrong").alias("wrong"),
        )
        return arm_decisions, arm_reps, per_case, summarize(arm_decisions, run.labels, counted)

    # The arms are independent until they are paired: one thread each overlaps the parts of
    # their polars and numpy work that run on a single core (0.31 -> 0.26 s at 100,000 cases).
    with ThreadPoolExecutor(max_workers=len(ARMS)) as pool:
        decided, repeated, collapsed, summaries = zip(
            *pool.map(one_arm, ARMS, (baseline, candidate)), strict=True
        )
    decisions: dict[str, pl.DataFrame] = dict(zip(ARMS, decided, strict=True))
    reps: dict[str, pl.DataFrame] = dict(zip(ARMS, repeated, strict=True))
    outcomes: dict[str, OutcomeSummary] = dict(zip(ARMS, summaries, strict=True))

    base, cand = collapsed
    cases = base.join(
        cand, on="case", how="full", coalesce=True, suffix="_cand", maintain_order="left_right"
    )
    listed = sorted(flaky.cases)
    cases = cases.with_columns(
        safety=pl.col("safety").fill_null(False) | pl.col("safety_cand").fill_null(False),
        template=pl.coalesce("template", "template_cand"),
        listed=pl.col("case").is_in(listed),
    ).drop("safety_cand", "template_cand")
    bp, cp = pl.col("base_passed"), pl.col("cand_passed")
    cases = cases.with_columns(
        cell=pl.when(bp.is_null() | cp.is_null())
        .then(None)
        .when(bp & cp)
        .then(pl.lit("both_pass"))
        .when(~bp & ~cp)
        .then(pl.lit("both_fail"))
        .when(bp)
        .then(pl.lit("pass_to_fail"))
        .otherwise(pl.lit("fail_to_pass")),
        unpaired=pl.when(pl.col("base_reps").is_null())
        .then(pl.lit("only in candidate"))
        .when(pl.col("cand_reps").is_null())
        .then(pl.lit("only in baseline"))
        .when(bp.is_null())
        .then(pl.lit("no gradable baseline repetition"))
        .when(cp.is_null())
        .then(pl.lit("no gradable candidate repetition")),
        cost_delta=pl.col("cand_cost").fill_null(0.0) - pl.col("base_cost").fill_null(0.0),
    ).sort("case")

    # The few columns the counts need, before filtering: `cases` is wide, with list columns.
    counted = cases.select("case", "cell", "listed", "template").filter(
        pl.col("cell").is_not_null() & ~pl.col("listed")
    )
    cell_counts = dict.fromkeys(CELLS, 0)
    for cell, n in counted.group_by("cell").len().iter_rows():
        cell_counts[cell] = n
    flips = counted.filter(pl.col("cell").is_in(FLIPS))
    flipped = tuple(zip(flips["case"].to_list(), flips["cell"].to_list(), strict=True))
    clusters = _clusters(flips)
    listed_flips = cases.filter(pl.col("listed") & pl.col("cell").is_in(FLIPS))["case"].to_list()
    unpaired_rows = cases.filter(pl.col("unpaired").is_not_null())
    unpaired = tuple(
        zip(unpaired_rows["case"].to_list(), unpaired_rows["unpaired"].to_list(), strict=True)
    )

    result = _decide(
        baseline,
        candidate,
        spec,
        flaky,
        cases,
        cell_counts,
        flipped,
        clusters,
        unpaired,
        tuple(listed_flips),
        outcomes,
        decisions["candidate"],
        declared_change,
        previous,
    )
    return Comparison(baseline, candidate, spec, flaky, decisions, reps, cases, result)


def _decide(
    baseline: Run,
    candidate: Run,
    spec: GateSpec,
    flaky: FlakyList,
    cases: pl.DataFrame,
    cells: dict[str, int],
    flipped: tuple[tuple[str, str], ...],
    clusters: ClusterReading,
    unpaired: tuple[tuple[str, str], ...],
    listed_flips: tuple[str, ...],
    outcomes: dict[str, OutcomeSummary],
    cand_decisions: pl.DataFrame,
    declared_change: tuple[str, ...],
    previous: GateResult | None,
) -> GateResult:
    b, c = cells["pass_to_fail"], cells["fail_to_pass"]
    # With `clusters: template` the significance rule counts a template once (SPEC 3.5).
    p = clusters.p_by_template if spec.clusters == "template" else clusters.p_by_case
    suite = candidate.suite
    rule_set = spec.set_rule(suite)
    infra = {"baseline": _arm_infra(baseline), "candidate": _arm_infra(candidate)}

    # 1. safety: any failed candidate repetition, or none gradable, blocks before any counting
    safety = cases.filter(pl.col("safety"))
    safety_failures = safety.filter(
        pl.col("cand_gradable").fill_null(0).eq(0)
        | (pl.col("cand_passes") < pl.col("cand_gradable"))
    )["case"].to_list()

    # 2. invalid comparisons
    invalid: list[str] = []
    for arm, stats in infra.items():
        if stats.share > spec.infra_max_share:
            invalid.append(
                f"infra failures are {stats.share:.1%} of the {arm}'s repetitions "
                f"({stats.count} of {stats.reps}), above the {spec.infra_max_share:.0%} allowed"
            )
    components = sorted(set(baseline.key) | set(candidate.key))
    moved = tuple(k for k in components if baseline.key.get(k) != candidate.key.get(k))
    change = tuple(dict.fromkeys((*candidate.change_keys, *declared_change)))
    drift = [k for k in moved if k not in change]
    if drift:
        detail = ", ".join(
            f"{k}: {baseline.key.get(k, '(absent)')} -> {candidate.key.get(k, '(absent)')}"
            for k in drift
        )
        invalid.append(f"stale baseline: key moved outside the declared change ({detail})")
    suite_cases = cases.height
    listed = sorted(flaky.cases)
    cap = spec.flaky_max_share * suite_cases
    if len(listed) > cap:
        invalid.append(
            f"the flaky list holds {len(listed)} cases, above {spec.flaky_max_share:.0%} of the "
            f"suite's {suite_cases} cases ({int(cap)} allowed)"
        )
    listed_safety = cases.filter(pl.col("listed") & pl.col("safety"))["case"].to_list()
    if listed_safety:
        invalid.append(f"the flaky list holds safety cases: {', '.join(listed_safety)}")

    # 4. outcome limits, on the candidate's decisions
    breaches: list[str] = []
    cand_out, base_out = outcomes["candidate"], outcomes["baseline"]
    limits = spec.limits
    fn = cand_out.counts["false_negative"]
    fn_max = (
        base_out.counts["false_negative"]
        if limits.false_negative_max == "baseline"
        else limits.false_negative_max
    )
    if fn_max is not None and cand_out.decisions and fn > fn_max:
        what = "the baseline's" if limits.false_negative_max == "baseline" else "the limit of"
        breaches.append(f"{fn} false negatives, above {what} {fn_max}")
    if limits.zero_false_negative_rules:
        zero = cand_decisions.filter(
            (pl.col("outcome") == "false_negative")
            & pl.col("rule").is_in(list(limits.zero_false_negative_rules))
        )
        for zero_rule, n in zero.group_by("rule").len().sort("rule").iter_rows():
            breaches.append(f"{n} false negative(s) on {zero_rule}, where none is allowed")
    share = limits.inconclusive_max_share
    if share is not None and cand_out.decisions:
        got = cand_out.counts["inconclusive"] / cand_out.decisions
        if got > share:
            breaches.append(
                f"inconclusive decisions are {got:.1%} of the candidate's, above the {share:.0%} budget"
            )

    numbers = f"{b} case{'s' if b != 1 else ''} broke, {c} {'was' if c == 1 else 'were'} fixed"
    p_words = f"p = {format_p(p)}" + (" by template" if spec.clusters == "template" else "")
    verdict: Verdict
    rule: Rule
    if safety_failures:
        verdict, rule = "BLOCK", "safety"
        summary = f"BLOCK: safety case{'s' if len(safety_failures) > 1 else ''} failed ({', '.join(safety_failures[:5])}{' ...' if len(safety_failures) > 5 else ''})"
    elif invalid:
        verdict, rule = "INVALID", "invalid"
        summary = f"INVALID: {invalid[0]}"
    elif p <= spec.alpha:
        verdict, rule = "BLOCK", "significance"
        summary = f"BLOCK: {numbers}; {p_words} <= {spec.alpha:g}"
    elif breaches:
        verdict, rule = "BLOCK", "outcome_limit"
        summary = f"BLOCK: {breaches[0]}"
    elif b - c <= rule_set.margin and b <= rule_set.flip_cap:
        verdict, rule = "PASS", "within_margin"
        summary = f"PASS: {numbers}; net {b - c} <= margin {rule_set.margin}, {b} <= flip cap {rule_set.flip_cap}"
    else:
        verdict, rule = "INCONCLUSIVE", "undecided"
        why = (
            f"net {b - c} > margin {rule_set.margin}"
            if b - c > rule_set.margin
            else f"{b} > flip cap {rule_set.flip_cap}"
        )
        summary = f"INCONCLUSIVE: {numbers}; {p_words} > {spec.alpha:g}, but {why}"

    escalation = None
    if verdict == "INCONCLUSIVE":
        escalation = _escalation(suite, spec, flipped, previous)

    warnings = []
    if clusters.concentrated is not None or clusters.disagree(spec.alpha):
        warnings.append(_cluster_warning(clusters))
    created = baseline.created
    late = [e.case for e in flaky.entries if created is not None and e.added > created.date()]
    if late:
        warnings.append(
            f"flaky entries added after the baseline run was created ({', '.join(late)}): "
            "the list should change in its own reviewed change, not while this one is judged"
        )
    listed_series = pl.Series(listed, dtype=pl.String)
    unknown = tuple(listed_series.filter(~listed_series.is_in(cases["case"].implode())).to_list())
    return GateResult(
        verdict=verdict,
        rule=rule,
        summary=summary,
        cells=cells,
        p=p,
        alpha=spec.alpha,
        suite=suite,
        margin=rule_set.margin,
        flip_cap=rule_set.flip_cap,
        flipped=flipped,
        unpaired=unpaired,
        infra=infra,
        outcomes=outcomes,
        key_moved=moved,
        declared_change=change,
        safety_failures=tuple(safety_failures),
        invalid_reasons=tuple(invalid),
        limit_breaches=tuple(breaches),
        flaky_listed=tuple(listed),
        flaky_flipped=listed_flips,
        flaky_unknown=unknown,
        escalation=escalation,
        spec_digest=spec.digest,
        flaky_digest=flaky.digest,
        runs={"baseline": baseline.run_id, "candidate": candidate.run_id},
        effect=effect(b, c, sum(cells.values())),
        power=gate_power(
            b, c, sum(cells.values()), FlipRule(spec.alpha, rule_set.margin, rule_set.flip_cap)
        ),
        clusters=clusters,
        clusters_by="template" if spec.clusters == "template" else "case",
        warnings=tuple(warnings),
        previous=previous,
    )


def _clusters(flips: pl.DataFrame) -> ClusterReading:
    """The counted flips per template; cases without a template stay single."""
    broke = pl.col("cell") == "pass_to_fail"
    per_template = (
        flips.group_by(pl.col("template"))
        .agg(broke=broke.sum(), fixed=(~broke).sum())
        .sort("template", nulls_last=True)
    )
    templates, loose = [], (0, 0)
    for template, n_broke, n_fixed in per_template.iter_rows():
        if template is None:
            loose = (n_broke, n_fixed)
        else:
            templates.append(TemplateFlips(template, n_broke, n_fixed))
    return read_clusters(templates, loose)


def _cluster_warning(clusters: ClusterReading) -> str:
    """Both readings, and the template the flips crowd into, if they do."""
    top = clusters.concentrated
    if top is None:
        return clusters.words()
    return (
        f"{top.flips} of the {clusters.flips} flipped cases come from template {top.template} "
        f"({top.broke} broke, {top.fixed} fixed): cloned cases flip together, count a template "
        f"once ({clusters.words()})"
    )


def _escalation(
    suite: str, spec: GateSpec, flipped: tuple[tuple[str, str], ...], previous: GateResult | None
) -> Escalation:
    if previous is not None:
        return Escalation(
            "reviewer_decision",
            "still INCONCLUSIVE after the rerun: no automatic merge; a named reviewer reads the "
            "broken cases and records a signed decision (flipgate decide)",
        )
    if suite == "smoke":
        return Escalation("run_full_set", "run the full set and apply the rule again")
    cases = tuple(case for case, _ in flipped)
    return Escalation(
        "rerun_flipped",
        f"rerun every flipped case ({len(cases)}: the broken and the fixed) on both arms with "
        f"{spec.escalation_runs} repetitions, then apply the rule again",
        cases=cases,
        runs=spec.escalation_runs,
    )


# --------------------------------------------------------------------------- escalation


def apply_reruns(arm: str, run: Run, rerun: Run, cases: tuple[str, ...]) -> Run:
    """`run` with the repetitions of `cases` replaced by those of `rerun` (SPEC §3.6)."""
    if rerun.key != run.key:
        moved = sorted(
            k for k in set(run.key) | set(rerun.key) if run.key.get(k) != rerun.key.get(k)
        )
        raise InputError(
            rerun.path,
            f"the {arm} rerun measured a different system: key {', '.join(moved)} differs from the {arm} run",
            field="key",
        )
    rerun_cases = set(rerun.reps["case"].to_list())
    missing = sorted(set(cases) - rerun_cases)
    if missing:
        raise InputError(
            rerun.path,
            f"the {arm} rerun lacks flipped cases of the plan: {', '.join(missing[:10])}",
            field="case",
        )
    extra = sorted(rerun_cases - set(cases))
    if extra:
        raise InputError(
            rerun.path,
            f"the {arm} rerun holds cases outside the rerun plan: {', '.join(extra[:10])}",
            field="case",
        )
    keep = ~pl.col("case").is_in(list(cases))
    # `line` keys a repetition within a run; the rerun's lines follow the run's so they stay unique.
    offset = pl.col("line") + run.reps["line"].max()
    return replace(
        run,
        reps=pl.concat([run.reps.filter(keep), rerun.reps.with_columns(offset)]),
        decisions=pl.concat([run.decisions.filter(keep), rerun.decisions.with_columns(offset)]),
        checks=pl.concat([run.checks.filter(keep), rerun.checks.with_columns(offset)]),
        notes=(*run.notes, f"{len(cases)} flipped cases replaced by the rerun {rerun.run_id}"),
    )


def rerun_plan(comparison: Comparison) -> dict[str, object]:
    """The plan file written on a full run's INCONCLUSIVE: every flipped case, both arms."""
    result = comparison.result
    if result.escalation is None or result.escalation.action != "rerun_flipped":
        raise ValueError("a rerun plan exists only for an INCONCLUSIVE full run")
    return {
        "flipgate_rerun_plan": 1,
        "why": result.summary,
        "runs": result.escalation.runs,
        "arms": {
            arm: {"run_id": comparison.run(arm).run_id, "key": comparison.run(arm).key}
            for arm in ARMS
        },
        "cases": [{"case": case, "direction": direction} for case, direction in result.flipped],
        "then": "flipgate gate BASELINE CANDIDATE --rerun-baseline RERUN_B --rerun-candidate RERUN_C",
    }


def write_rerun_plan(comparison: Comparison, target: Path, *, overwrite: bool = True) -> None:
    """Write the rerun plan as YAML, atomically; without `overwrite` an existing file is kept."""
    write_atomic(target, dump_yaml(rerun_plan(comparison), width=1000), exclusive=not overwrite)


def compare_with_reruns(
    first: Comparison,
    rerun_baseline: Run,
    rerun_candidate: Run,
    *,
    declared_change: tuple[str, ...] = (),
) -> Comparison:
    """Replace the flipped cases' repetitions in both arms and apply the rule once more."""
    result = first.result
    if result.escalation is None or result.escalation.action != "rerun_flipped":
        raise InputError(
            rerun_candidate.path,
            f"reruns apply to an INCONCLUSIVE full run; this gate says {result.verdict}",
        )
    cases = result.escalation.cases
    return compare(
        apply_reruns("baseline", first.baseline, rerun_baseline, cases),
        apply_reruns("candidate", first.candidate, rerun_candidate, cases),
        first.spec,
        first.flaky,
        declared_change=declared_change,
        previous=result,
    )


__all__ = [
    "ARMS",
    "CELLS",
    "SEVERITY",
    "ArmInfra",
    "Comparison",
    "Escalation",
    "GateResult",
    "apply_reruns",
    "collapsed_verdicts",
    "compare",
    "compare_with_reruns",
    "rerun_plan",
    "write_rerun_plan",
]
