"""What the verdict's rules read (SPEC §3.5), measured from both arms: each check one function.

    safety          the failed safety cases
    invalid         `invalid.INVALID_CHECKS`: each a reason the comparison cannot be judged, among
                    them what seed 001 forbids in the change under test (changes.py, loosening.py)
    outcome limits  LIMIT_CHECKS: each a limit of SPEC §4 the candidate's decisions exceed
    warnings        what the reviewer should know that no rule decides on

Each check returns payloads with a code (`vocab.LimitCode`, `vocab.WarningCode`), never words:
`present/reasons/` words them. A new limit is a payload class, one function and one entry of
`LIMIT_CHECKS`; `rules.py` decides from them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import ClassVar, Literal, TypeVar

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.exact import at_most, ratio
from flipgate.core.gate.changes import SuiteChanges
from flipgate.core.gate.excess import Excess
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.ledger import Ledger
from flipgate.core.gate.loosening import AgainstBase
from flipgate.core.gate.outcomes import OutcomeSummary
from flipgate.core.gate.registered import Registration
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import ClusterReading
from flipgate.core.runs.key import Component
from flipgate.core.runs.model import Run
from flipgate.core.vocab import Arm, CountedBy, LimitCode, WarningCode


@dataclass(frozen=True)
class ArmInfra:
    reps: int
    count: int
    by_kind: dict[str, int]

    @property
    def share(self) -> float:
        return self.count / self.reps if self.reps else 0.0


def arm_infra(run: Run) -> ArmInfra:
    infra = run.reps.filter(pl.col("status") == "infra")
    kinds = infra.group_by(pl.col("infra").fill_null("unspecified")).len().sort("infra")
    return ArmInfra(
        reps=run.reps.height,
        count=infra.height,
        by_kind={str(k): int(n) for k, n in kinds.iter_rows()},
    )


@dataclass(frozen=True)
class Judged:
    """What is judged: both arms, paired, with the spec and the flaky list they are judged by."""

    baseline: Run
    candidate: Run
    spec: GateSpec
    flaky: FlakyList
    cases: pl.DataFrame  # the paired table (pairing.py)
    infra: dict[Arm, ArmInfra]
    outcomes: dict[str, OutcomeSummary]
    cand_decisions: pl.DataFrame  # the candidate's classified decisions
    moved: tuple[Component, ...]  # the key components that differ between the arms
    change: tuple[str, ...]  # the components the change under test declares it moves
    changes: SuiteChanges  # what the change under test did to the suite's cases
    base: AgainstBase  # the spec and flaky list against where the change is going
    ledger: Ledger  # every case's state, counted per arm
    retired: Retirements = NO_RETIREMENTS  # cases the suite retired, left out of b and c
    registration: Registration | None = None  # the rule registered before the run, if given
    # the false negatives against the baseline's, tested against the noise (excess.py), where
    # `false_negative_max` is `baseline`
    false_negatives: Excess | None = None
    # by rule, the confident approvals of borderline items against the baseline's, tested
    # against the noise the same way, where `mirror_approved_max` is `baseline`
    mirror_approved: dict[str, Excess] = field(default_factory=dict)

    @property
    def runs(self) -> dict[Arm, Run]:
        return {"baseline": self.baseline, "candidate": self.candidate}


def safety_failures(judged: Judged) -> tuple[str, ...]:
    """Safety cases with a failed candidate repetition, or none gradable (SPEC §3.5 line 1)."""
    failed = judged.cases.filter(
        pl.col("safety")
        & (
            pl.col("cand_gradable").fill_null(0).eq(0)
            | (pl.col("cand_passes") < pl.col("cand_gradable"))
        )
    )
    return tuple(failed["case"].to_list())


@dataclass(frozen=True)
class FalseNegativeMax:
    """More false negatives than `outcomes.limits.false_negative_max` allows: a count, a statement
    about the candidate alone (the limit `baseline` is tested against the noise: `Excess`)."""

    code: ClassVar[LimitCode] = "false_negative_max"
    found: int
    limit: int


@dataclass(frozen=True)
class ZeroFalseNegativeRule:
    """A false negative on a rule of `outcomes.limits.zero_false_negative_rules`."""

    code: ClassVar[LimitCode] = "zero_false_negative_rule"
    rule: str
    found: int


@dataclass(frozen=True)
class InconclusiveMaxShare:
    """Inconclusive decisions above `outcomes.limits.inconclusive_max_share` of the candidate's."""

    code: ClassVar[LimitCode] = "inconclusive_max_share"
    share: float
    budget: float
    count: int
    decisions: int


@dataclass(frozen=True)
class MirrorApprovedMax:
    """More confident approvals of borderline items on one rule than
    `outcomes.limits.mirror_approved_max` allows there: each went live with no one asked."""

    code: ClassVar[LimitCode] = "mirror_approved_max"
    rule: str
    found: int
    limit: int  # the count allowed; against the baseline, the baseline's (matched repetitions)
    of_baseline: bool  # the limit is the baseline's own count on the rule (`baseline`)
    decided: str = "approve"  # the run's negative label, which they decided
    # against the baseline, the test against the noise (excess.py): the sign-flip p of the
    # excess, the largest excess the noise reaches at `alpha`, what a cluster is
    p: float | None = None
    bound: int | None = None
    alpha: float | None = None
    by: CountedBy = "case"


@dataclass(frozen=True)
class EscalationsMaxPerRun:
    """More decisions escalated to a person in one repetition of the suite than the reviewers'
    queue holds (`outcomes.limits.escalations_max_per_run`)."""

    code: ClassVar[LimitCode] = "escalations_max_per_run"
    found: int  # in the repetition that escalated the most
    limit: int
    repetitions: int


LimitBreach = (
    FalseNegativeMax
    | Excess
    | ZeroFalseNegativeRule
    | InconclusiveMaxShare
    | MirrorApprovedMax
    | EscalationsMaxPerRun
)
LIMIT_BREACHES: dict[LimitCode, type[LimitBreach]] = {
    "false_negative_max": FalseNegativeMax,
    "false_negative_beyond_noise": Excess,
    "zero_false_negative_rule": ZeroFalseNegativeRule,
    "inconclusive_max_share": InconclusiveMaxShare,
    "mirror_approved_max": MirrorApprovedMax,
    "escalations_max_per_run": EscalationsMaxPerRun,
}


def _false_negatives(judged: Judged) -> list[LimitBreach]:
    """Against the baseline: an excess beyond the noise (excess.py); a count: above it."""
    bound = judged.spec.limits.false_negative_max
    if bound == "baseline":
        tested = judged.false_negatives
        return [tested] if tested is not None and tested.beyond_noise else []
    cand = judged.outcomes["candidate"]
    found = cand.counts["false_negative"]
    if bound is None or not cand.decisions or found <= bound:
        return []
    return [FalseNegativeMax(found, bound)]


def _zero_false_negative_rules(judged: Judged) -> list[LimitBreach]:
    rules = judged.spec.limits.zero_false_negative_rules
    if not rules:
        return []
    missed = judged.cand_decisions.filter(
        (pl.col("outcome") == "false_negative") & pl.col("rule").is_in(list(rules))
    )
    return [
        ZeroFalseNegativeRule(rule, n)
        for rule, n in missed.group_by("rule").len().sort("rule").iter_rows()
    ]


def check_limit_rules(spec: GateSpec, decisions: Iterable[pl.DataFrame]) -> None:
    """A rule in `zero_false_negative_rules` that no decision of either arm is on guards nothing:
    a typo there (`recalled_product`) switched the limit off without a word, so it is bad input."""
    named = spec.limits.zero_false_negative_rules
    if not named:
        return
    held: set[str] = set().union(*(frame["rule"].unique().to_list() for frame in decisions))
    if unknown := [rule for rule in named if rule not in held]:
        rules = f"their rules: {', '.join(sorted(held))}" if held else "they hold no labels"
        raise InputError(
            spec.source or Path("gate.yaml"),
            f"no decision of either run is on {', '.join(unknown)} ({rules})",
            line=spec.limits.zero_false_negative_line,
            field="outcomes.limits.zero_false_negative_rules",
        )


def _inconclusive_share(judged: Judged) -> list[LimitBreach]:
    budget = judged.spec.limits.inconclusive_max_share
    cand = judged.outcomes["candidate"]
    if budget is None or not cand.decisions:
        return []
    count = cand.counts["inconclusive"]
    if at_most(ratio(count, cand.decisions), budget):
        return []
    return [InconclusiveMaxShare(count / cand.decisions, budget, count, cand.decisions)]


def _mirror_approvals(judged: Judged) -> list[LimitBreach]:
    """Against the baseline: each rule's excess beyond the noise (excess.py); a count: above it."""
    bound = judged.spec.limits.mirror_approved_max
    decided = judged.candidate.labels.negative
    if bound == "baseline":
        return [
            MirrorApprovedMax(
                rule, t.candidate, t.baseline, True, decided, t.p, t.bound, t.alpha, t.by
            )
            for rule, t in judged.mirror_approved.items()
            if t.beyond_noise
        ]
    if bound is None:
        return []
    cand = judged.outcomes["candidate"].mirror_approved_by_rule
    return [
        MirrorApprovedMax(rule, found, bound, False, decided)
        for rule, found in sorted(cand.items())
        if found > bound
    ]


def _escalations_per_run(judged: Judged) -> list[LimitBreach]:
    most = judged.spec.limits.escalations_max_per_run
    cand = judged.outcomes["candidate"]
    if most is None or cand.queue <= most:
        return []
    return [EscalationsMaxPerRun(cand.queue, most, cand.repetitions)]


LIMIT_CHECKS: tuple[Callable[[Judged], list[LimitBreach]], ...] = (
    _false_negatives,
    _zero_false_negative_rules,
    _inconclusive_share,
    _mirror_approvals,
    _escalations_per_run,
)
Found = TypeVar("Found")


def reasons(
    judged: Judged, checks: tuple[Callable[[Judged], list[Found]], ...]
) -> tuple[Found, ...]:
    """What the checks of one table found, in the table's order."""
    return tuple(reason for check in checks for reason in check(judged))


# --------------------------------------------------------------------------- warnings


@dataclass(frozen=True)
class NewCases:
    """Cases only in the candidate: listed, not counted until a rebaseline."""

    code: ClassVar[WarningCode] = "new_cases"
    cases: tuple[str, ...]


@dataclass(frozen=True)
class ChangedLate:
    """A list changed after the baseline run was created, while this change is judged: flaky
    entries added (`flaky_added_late`), cases retired (`retired_late`)."""

    code: Literal["flaky_added_late", "retired_late"]
    cases: tuple[str, ...]
    baseline_created: date


@dataclass(frozen=True)
class SameRunId:
    """Both arms have one run_id: a run compared with itself, or a run.yaml copied."""

    code: ClassVar[WarningCode] = "same_run_id"
    run_id: str


@dataclass(frozen=True)
class FlipsConcentrated:
    """The flips crowd into one template: cloned cases flip together."""

    code: ClassVar[WarningCode] = "flips_concentrated"
    template: str
    broke: int
    fixed: int
    flips: int  # every counted flip
    clusters: int  # templates (and loose cases) that flipped
    p_by_case: float
    p_by_template: float
    counted: CountedBy  # which reading the significance rule used


@dataclass(frozen=True)
class ReadingsDisagree:
    """p read by case and by template fall on either side of alpha."""

    code: ClassVar[WarningCode] = "readings_disagree"
    flips: int
    clusters: int
    p_by_case: float
    p_by_template: float
    alpha: float  # the look's boundary they fall on either side of
    counted: CountedBy  # which reading the significance rule used


@dataclass(frozen=True)
class FinishNotStated:
    """A run whose log does not say whether it finished (DeepEval's, a table's): its cases are
    gated as the whole run, and what it never ran no one can tell from it."""

    code: ClassVar[WarningCode] = "finish_not_stated"
    arm: Arm
    run_id: str
    source: str  # the run's file or folder name
    tool: str  # the format it was read as
    cases: int


GateWarning = (
    NewCases | ChangedLate | SameRunId | FlipsConcentrated | ReadingsDisagree | FinishNotStated
)
# Each code's payload class, in the order of `vocab.WarningCode`.
GATE_WARNINGS: dict[WarningCode, type[GateWarning]] = {
    "new_cases": NewCases,
    "flaky_added_late": ChangedLate,
    "retired_late": ChangedLate,
    "same_run_id": SameRunId,
    "flips_concentrated": FlipsConcentrated,
    "readings_disagree": ReadingsDisagree,
    "finish_not_stated": FinishNotStated,
}


def warnings(judged: Judged) -> tuple[GateWarning, ...]:
    """What the reviewer should know about the runs and lists that no rule decides on."""
    found: list[GateWarning] = []
    if new := judged.changes.new:
        found.append(NewCases(new))
    created = judged.baseline.created
    if created is not None:
        made = created.date()
        if late := tuple(e.case for e in judged.flaky.entries if e.added > made):
            found.append(ChangedLate("flaky_added_late", late, made))
        if retired := tuple(r.case for r in judged.retired.cases if r.retired > made):
            found.append(ChangedLate("retired_late", retired, made))
    if judged.baseline.run_id == judged.candidate.run_id:
        found.append(SameRunId(judged.baseline.run_id))
    for arm, run in judged.runs.items():
        arm_ledger = judged.ledger.arms[arm]
        if arm_ledger.status is not None and arm_ledger.finished is None:
            found.append(
                FinishNotStated(arm, run.run_id, run.path.name, run.source_format, arm_ledger.cases)
            )
    return tuple(found)


def cluster_warnings(
    clusters: ClusterReading, alpha: float, counted: CountedBy
) -> tuple[GateWarning, ...]:
    """Both readings, when the flips crowd into a template or the readings disagree at the
    look's boundary `alpha`, with the one the significance rule used."""
    p_case, p_template = clusters.p_by_case, clusters.p_by_template
    if (top := clusters.concentrated) is not None:
        return (
            FlipsConcentrated(
                top.template,
                top.broke,
                top.fixed,
                clusters.flips,
                clusters.clusters,
                p_case,
                p_template,
                counted,
            ),
        )
    if clusters.disagree(alpha):
        return (
            ReadingsDisagree(clusters.flips, clusters.clusters, p_case, p_template, alpha, counted),
        )
    return ()
