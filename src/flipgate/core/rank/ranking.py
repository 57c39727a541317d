"""Rank candidates against the incumbent by the release rule (seed 003), in three labels never
merged into one:

    highest mean   the candidate that passed the most of its repetitions (cells): descriptive
    winner         the complete candidate with the highest release key: the cases it passes under
                   the gate's own collapse (`aggregate` in gate.yaml), the mean breaking a tie
    clears         whether the winner may replace the incumbent: a release key strictly above the
                   incumbent's AND the gate's PASS against it; a tie keeps the incumbent

"Clears" is permission, never evidence: beside it each candidate carries whether there is
evidence that it beats the incumbent (its improvement p, Holm-adjusted across the candidates, at
or below alpha), and the lead of the winner over the runner-up is tested both ways, since which
of the two leads was picked by the data (a one-sided test in the direction the data chose fires
twice as often as its alpha, 5.4% against 2.7%, issue 27). Both tests are the gate's own: its
`test` (exact or mid-p), by template when the gate counts templates.

Every number is the gate's: each candidate is compared with the incumbent by `compare`, and the
release key counts the cases its collapse passes, flaky-listed and retired cases left out as the
gate leaves them out of b and c, and cases the incumbent was not graded on left out as the gate
leaves the unpaired out. A candidate lacking a case or a repetition that another candidate
holds, or holding an infra repetition, is incomplete: shown, never the winner, since it would be
judged on an easier set of cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import ArmResults, Comparison, GateResult, compare, judge_arm
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.loosening import GateBase
from flipgate.core.gate.mcnemar import FlipTest, flip_p, format_p
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import sign_flip_p
from flipgate.core.plural import plural
from flipgate.core.runs.model import Run
from flipgate.core.vocab import RANK_LABELS, Aggregate, ClearanceCode, RankLabel

Compared = Callable[[str, Comparison], None]


def release_rule(spec: GateSpec) -> str:
    """The gate's collapse in words: when a case passes."""

    def when(aggregate: Aggregate) -> str:
        if aggregate == "all":
            return "every repetition passes"
        return "a strict majority of its repetitions pass (a tie fails)"

    ordinary = f"a case passes when {when(spec.aggregate_ordinary)}"
    if spec.aggregate_safety == spec.aggregate_ordinary:
        return f"{ordinary}, safety cases too"
    return f"{ordinary}; a safety case when {when(spec.aggregate_safety)}"


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m - i), never below
    the one before it, at most 1. It holds the chance of any false claim at alpha."""
    adjusted = [0.0] * len(ps)
    running = 0.0
    for i, at in enumerate(sorted(range(len(ps)), key=ps.__getitem__)):
        running = max(running, min(1.0, (len(ps) - i) * ps[at]))
        adjusted[at] = running
    return adjusted


@dataclass(frozen=True)
class Cells:
    """The graded repetitions of one run on the campaign's cases, and how many passed."""

    graded: int
    passing: int

    @property
    def mean(self) -> float:
        return self.passing / self.graded if self.graded else 0.0


@dataclass(frozen=True)
class Gaps:
    """What a candidate lacks of the campaign's grid: every (case, rep) some candidate holds."""

    missing_cases: int
    missing_reps: int  # absent repetitions, those of the missing cases included
    infra_reps: int  # present, but not graded

    @property
    def complete(self) -> bool:
        return self.missing_reps == 0 and self.infra_reps == 0

    def describe(self) -> str:
        if self.complete:
            return "complete"
        parts = []
        if self.missing_cases:
            missing = f"({plural(self.missing_reps, 'repetition')})"
            parts.append(f"{plural(self.missing_cases, 'case')} missing {missing}")
        elif self.missing_reps:
            parts.append(f"{plural(self.missing_reps, 'repetition')} missing")
        if self.infra_reps:
            parts.append(plural(self.infra_reps, "infra repetition"))
        return ", ".join(parts)


@dataclass(frozen=True)
class Standing:
    """One candidate: its mean, its release key, whether it is complete, the gate's verdict."""

    name: str
    run_id: str
    path: Path
    cells: Cells
    release_key: int  # cases passing under the gate's collapse
    gaps: Gaps
    gate: GateResult  # against the incumbent
    improvement_p: float  # P(at least c fixes | no change), one-sided, the gate's test and flips
    improvement_p_holm: float  # the same, Holm-adjusted across every candidate
    alpha: float

    @property
    def evidence(self) -> bool:
        """Evidence that it beats the incumbent: the Holm-adjusted improvement p within alpha."""
        return self.improvement_p_holm <= self.alpha

    @property
    def eligible(self) -> bool:
        return self.gaps.complete

    @property
    def order(self) -> tuple[int, float]:
        """The ranking key: the release key first, the mean only to break a tie."""
        return (self.release_key, self.cells.mean)


@dataclass(frozen=True)
class Incumbent:
    run_id: str
    path: Path
    cells: Cells
    release_key: int


@dataclass(frozen=True)
class Lead:
    """The winner against the runner-up, case by case: the exact paired test both ways."""

    winner: str
    runner_up: str
    paired: int  # cases graded in both and not flaky-listed
    winner_only: int  # cases the winner passes and the runner-up fails
    runner_up_only: int
    p_winner_better: float  # one-sided p of a lead at least the winner's, with no difference
    p_runner_up_better: float  # the same the other way
    alpha: float

    @property
    def p_two_sided(self) -> float:
        """Both ways: the data picked which one leads, so either direction counts."""
        return min(1.0, 2 * min(self.p_winner_better, self.p_runner_up_better))

    @property
    def within_noise(self) -> bool:
        return self.p_two_sided > self.alpha

    def describe(self) -> str:
        verdict = (
            "the lead is within noise"
            if self.within_noise
            else f"the lead is beyond noise at alpha {self.alpha:g}"
        )
        return (
            f"{self.winner} against {self.runner_up} on {plural(self.paired, 'shared case')}: "
            f"{self.winner_only} pass for {self.winner} only, {self.runner_up_only} for "
            f"{self.runner_up} only; two-sided p = {format_p(self.p_two_sided)} (the chance of "
            "a lead at least this large either way if the two were equally good; exact, "
            f"paired): {verdict}"
        )


@dataclass(frozen=True)
class Clearance:
    """Whether the winner may replace the incumbent, and why: a code and the figures it reads
    (the winner's gate against the incumbent is its standing's `gate`)."""

    code: ClearanceCode
    winner: str | None
    tied: tuple[str, ...]  # the complete candidates tied for first (one: the winner)
    release_key: int | None  # theirs
    incumbent_key: int
    mean: float | None  # theirs


@dataclass(frozen=True)
class Ranking:
    incumbent: Incumbent
    standings: tuple[Standing, ...]  # the eligible by release key then mean, then the incomplete
    cases: int  # the cases a key counts: graded for the incumbent, not flaky-listed
    repetitions: int  # the campaign's grid: every (case, rep) some candidate holds
    rule: str  # the release rule in words
    alpha: float
    highest_mean: tuple[str, ...]  # several when tied
    winner: str | None
    clearance: Clearance  # whether the winner clears the incumbent, and why
    disagreement: str | None  # when the mean and the release key pick differently
    lead: Lead | None  # None with fewer than two eligible candidates

    @property
    def clears(self) -> bool:
        return self.clearance.code == "clears"

    def standing(self, name: str) -> Standing:
        return next(s for s in self.standings if s.name == name)

    def labels(self, name: str) -> tuple[RankLabel, ...]:
        """The labels `name` holds, in RANK_LABELS order."""
        held = {
            "highest_mean": name in self.highest_mean,
            "winner": name == self.winner,
            "clears": name == self.winner and self.clears,
        }
        return tuple(label for label in RANK_LABELS if held[label])

    @property
    def multiplicity(self) -> str:
        m = len(self.standings)
        if m == 1:
            return "one candidate, one improvement claim: nothing to correct for"
        return (
            f"Holm's correction across the {m} candidates compared with the incumbent applies to "
            "the claims that a candidate improves on it; each candidate's no-regression gate is "
            f"applied as it stands, at alpha {self.alpha:g}, so no regression is easier to miss"
        )


@dataclass(frozen=True)
class _Measured:
    """What ranking keeps of one comparison: the small frames, never the runs."""

    name: str
    run_id: str
    path: Path
    reps: pl.DataFrame  # case, rep, status, passed
    # case, template, passed: the gate's collapse, listed and retired cases left out
    verdicts: pl.DataFrame
    gate: GateResult


def _arm(comparison: Comparison, arm: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    prefix = PREFIX[arm]
    reps = comparison.reps[arm].select("case", "rep", "status", "passed")
    verdicts = comparison.cases.filter(
        ~pl.col("listed") & ~pl.col("retired") & pl.col(f"{prefix}_reps").is_not_null()
    ).select("case", "template", pl.col(f"{prefix}_passed").alias("passed"))
    return reps, verdicts


def _cells(reps: pl.DataFrame) -> Cells:
    graded, passing = reps.select(
        pl.col("passed").is_not_null().sum().alias("graded"), pl.col("passed").sum()
    ).row(0)
    return Cells(int(graded), int(passing or 0))


def _passing(verdicts: pl.DataFrame) -> int:
    return int(verdicts["passed"].sum() or 0)


def rank(
    incumbent: Run,
    candidates: Iterable[tuple[str, Run]],
    spec: GateSpec,
    flaky: FlakyList | None = None,
    *,
    declared_change: tuple[str, ...] = (),
    on_compared: Compared | None = None,
    judged_baseline: ArmResults | None = None,
    retired: Retirements = NO_RETIREMENTS,
    base: GateBase | None = None,
    allow_partial: bool = False,
) -> Ranking:
    """Compare each (name, run) with the incumbent and rank them.

    `candidates` is consumed one at a time and each comparison dropped once measured, so a
    generator that loads the runs keeps one candidate in memory; `on_compared` sees each.
    `judged_baseline` is the incumbent's side of the gate when the caller already made it;
    `retired`, `base` and `allow_partial` are the gate's, as `compare` takes them (a run not
    whole gated by `allow_partial` is never PASS, so such a candidate never clears).
    """
    flaky = flaky or FlakyList()
    measured: list[_Measured] = []
    incumbent_arm: tuple[pl.DataFrame, pl.DataFrame] | None = None
    judged = judged_baseline or judge_arm("baseline", incumbent, spec)  # once, not per candidate
    for name, run in candidates:
        if other := next((m for m in measured if m.name == name), None):
            raise InputError(run.path, f"two candidates are named {name!r}: {other.path}")
        comparison = compare(
            incumbent,
            run,
            spec,
            flaky,
            declared_change=declared_change,
            judged_baseline=judged,
            retired=retired,
            base=base,
            allow_partial=allow_partial,
        )
        if on_compared is not None:
            on_compared(name, comparison)
        incumbent_arm = incumbent_arm or _arm(comparison, "baseline")
        reps, verdicts = _arm(comparison, "candidate")
        measured.append(_Measured(name, run.run_id, run.path, reps, verdicts, comparison.result))
    if incumbent_arm is None:
        raise ValueError("ranking needs at least one candidate")

    everyone = pl.concat([m.reps.with_columns(name=pl.lit(m.name)) for m in measured])
    grid = everyone.select("case", "rep").unique().height
    campaign_cases = everyone.select(pl.col("case").unique())["case"]
    held = {
        row[0]: row[1:]
        for row in everyone.group_by("name")
        .agg(
            pl.len(), pl.col("case").n_unique(), (pl.col("status") == "infra").sum().alias("infra")
        )
        .iter_rows()
    }
    # The cases a key counts: the campaign's, graded for the incumbent, not flaky-listed. A case
    # the incumbent has no graded result for is new or unpaired, in neither b nor c of the gate,
    # and in no key: no candidate gains on a case the incumbent was never judged on.
    base_reps, base_verdicts = incumbent_arm
    in_campaign = pl.col("case").is_in(campaign_cases.implode())
    counted = base_verdicts.filter(in_campaign & pl.col("passed").is_not_null())
    per_case = {
        m.name: m.verdicts.filter(pl.col("case").is_in(counted["case"].implode())) for m in measured
    }
    improvement = [_improvement_p(m.gate, spec.test) for m in measured]
    adjusted = holm(improvement)
    standings = []
    for m, p, p_holm in zip(measured, improvement, adjusted, strict=True):
        reps_held, cases_held, infra = held[m.name]
        gaps = Gaps(campaign_cases.len() - cases_held, grid - reps_held, infra)
        key = _passing(per_case[m.name])
        standings.append(
            Standing(
                m.name, m.run_id, m.path, _cells(m.reps), key, gaps, m.gate, p, p_holm, spec.alpha
            )
        )
    standings.sort(key=lambda s: (not s.eligible, -s.release_key, -s.cells.mean, s.name))
    held_by_incumbent = Incumbent(
        incumbent.run_id,
        incumbent.path,
        _cells(base_reps.filter(in_campaign)),
        _passing(counted),
    )
    return _label(held_by_incumbent, tuple(standings), per_case, counted.height, grid, spec)


def _label(
    incumbent: Incumbent,
    standings: tuple[Standing, ...],
    verdicts: dict[str, pl.DataFrame],
    cases: int,
    grid: int,
    spec: GateSpec,
) -> Ranking:
    top_mean = max(s.cells.mean for s in standings)
    highest_mean = tuple(s.name for s in standings if s.cells.mean == top_mean)
    eligible = [s for s in standings if s.eligible]
    tied = [s for s in eligible if s.order == eligible[0].order]
    winner = eligible[0] if len(tied) == 1 else None
    clearance = _clearance(winner, tied, incumbent)
    lead = None
    if len(eligible) >= 2:
        lead = _lead(eligible[0].name, eligible[1].name, verdicts, spec)
    return Ranking(
        incumbent=incumbent,
        standings=standings,
        cases=cases,
        repetitions=grid,
        rule=release_rule(spec),
        alpha=spec.alpha,
        highest_mean=highest_mean,
        winner=winner.name if winner else None,
        clearance=clearance,
        disagreement=_disagreement(standings, highest_mean, winner, cases),
        lead=lead,
    )


def _clearance(winner: Standing | None, tied: list[Standing], incumbent: Incumbent) -> Clearance:
    """Whether the winner may replace the incumbent, and why, the rejections first."""
    code: ClearanceCode
    if not tied:
        code = "no_complete_candidate"
    elif winner is None:
        code = "tied"
    elif winner.gate.rule == "safety":
        code = "safety_failed"
    elif winner.gate.verdict == "INVALID":
        code = "invalid"
    elif winner.release_key <= incumbent.release_key:
        code = "not_better"
    elif winner.gate.verdict != "PASS":
        code = "gate_not_pass"
    else:
        code = "clears"
    first = tied[0] if tied else None
    return Clearance(
        code,
        winner.name if winner else None,
        tuple(s.name for s in tied),
        first.release_key if first else None,
        incumbent.release_key,
        first.cells.mean if first else None,
    )


def _disagreement(
    standings: tuple[Standing, ...],
    highest_mean: tuple[str, ...],
    winner: Standing | None,
    cases: int,
) -> str | None:
    if winner is None or winner.name in highest_mean:
        return None
    best = next(s for s in standings if s.name == highest_mean[0])
    mean = f"the highest mean ({best.cells.mean:.3f}, {best.cells.passing} of {best.cells.graded} cells)"
    if not best.eligible:
        return (
            f"{best.name} has {mean} but is incomplete ({best.gaps.describe()}): judged on fewer "
            f"cells than the others, it cannot win; the release key picks {winner.name}"
        )
    return (
        f"the mean and the release key disagree: {best.name} has {mean} but passes "
        f"{best.release_key} of {cases} cases under the release rule; {winner.name} passes "
        f"{winner.release_key} with a mean of {winner.cells.mean:.3f}. The release key decides: "
        f"{winner.name}"
    )


def _improvement_p(gate: GateResult, test: FlipTest) -> float:
    """The one-sided p that the candidate fixes at least what it fixed, on balance, if nothing
    changed: the gate's test on its flips the other way round, by template where the gate
    counted templates."""
    if gate.p_by != "template":
        return flip_p(gate.c, gate.b, test)
    clusters = gate.clusters
    nets = [t.fixed - t.broke for t in clusters.templates]
    return sign_flip_p(nets + [-1] * clusters.loose[0] + [1] * clusters.loose[1], test)


def _lead(winner: str, runner_up: str, verdicts: dict[str, pl.DataFrame], spec: GateSpec) -> Lead:
    both = (
        verdicts[winner]
        .join(verdicts[runner_up].drop("template"), on="case", suffix="_other")
        .drop_nulls(["passed", "passed_other"])
    )
    w, r = pl.col("passed"), pl.col("passed_other")
    winner_only, runner_up_only = both.select(
        (w & ~r).sum().alias("winner_only"), (r & ~w).sum().alias("runner_up_only")
    ).row(0)
    if spec.clusters == "template" and both["template"].is_not_null().any():
        # each template's net lead once; a case without a template is its own cluster
        nets = (
            both.with_columns(pl.coalesce("template", "case").alias("cluster"))
            .group_by("cluster")
            .agg(((w & ~r).cast(pl.Int64) - (r & ~w).cast(pl.Int64)).sum().alias("net"))["net"]
            .to_list()
        )
        p_winner = sign_flip_p(nets, spec.test)
        p_runner_up = sign_flip_p([-d for d in nets], spec.test)
    else:
        p_winner = flip_p(winner_only, runner_up_only, spec.test)
        p_runner_up = flip_p(runner_up_only, winner_only, spec.test)
    return Lead(
        winner,
        runner_up,
        both.height,
        winner_only,
        runner_up_only,
        p_winner,
        p_runner_up,
        spec.alpha,
    )


__all__ = [
    "Cells",
    "Gaps",
    "Incumbent",
    "Lead",
    "Ranking",
    "Standing",
    "holm",
    "plural",
    "rank",
]
