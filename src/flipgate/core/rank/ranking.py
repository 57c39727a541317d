"""Rank candidates against the incumbent by the release rule (seed 003), in three labels never
merged into one:

    highest mean   the candidate that passed the most of its repetitions (cells): descriptive
    winner         the complete candidate with the highest release key: the cases it passes under
                   the gate's own collapse (`aggregate` in gate.yaml), the mean breaking a tie
                   (with `release.key: mean`, the other way round)
    clears         whether the winner may replace the incumbent: a key strictly above the
                   incumbent's, at least `release.min_key`, AND the gate's PASS against it; a tie
                   keeps the incumbent

"Clears" is permission, never evidence: beside it each candidate carries whether there is
evidence that it beats the incumbent, and the lead of the winner over the runner-up and each
adjacent pair are tested both ways (separation.py).

Every number is the gate's: each candidate is compared with the incumbent by `compare`, and the
release key counts the cases its collapse passes, flaky-listed and retired cases left out as the
gate leaves them out of b and c, and cases the incumbent was not graded on left out as the gate
leaves the unpaired out. A candidate lacking a repetition the incumbent holds, or that
`release.repetitions` asks, holding an infra repetition, or running a case more often than that,
is incomplete: shown, never the winner, since it would be judged on other cells than the
incumbent it must beat; one whose key is above the winner's is said to be passed over. What one
candidate adds is its own gap, never its rivals'.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.exact import ratio, written
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import ArmResults, Comparison, GateResult, compare, judge_arm
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.loosening import GateBase
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec, Release, ReleaseKey
from flipgate.core.rank.separation import Lead, holm, improvement_p, lead, tie_groups
from flipgate.core.runs.model import Run
from flipgate.core.vocab import (
    RANK_LABELS,
    Aggregate,
    ClearanceCode,
    DisagreementCode,
    RankLabel,
)

Compared = Callable[[str, Comparison], None]


@dataclass(frozen=True)
class ReleaseRule:
    """When a case passes under the release rule: the gate's collapse (`aggregate` in gate.yaml)
    for ordinary cases and for safety cases."""

    ordinary: Aggregate
    safety: Aggregate

    @classmethod
    def of(cls, spec: GateSpec) -> ReleaseRule:
        return cls(spec.aggregate_ordinary, spec.aggregate_safety)


@dataclass(frozen=True)
class Cells:
    """The graded repetitions of one run on the campaign's cases, and how many passed."""

    graded: int
    passing: int

    @property
    def share(self) -> Fraction:
        """The mean, exactly: a key compared with another or with `release.min_key`."""
        return ratio(self.passing, self.graded)

    @property
    def mean(self) -> float:
        return float(self.share)


@dataclass(frozen=True)
class Gaps:
    """How a candidate's repetitions differ from the campaign's grid: each case of the incumbent's
    as many times as the incumbent ran it, and at least `release.repetitions` times. What one
    candidate runs beyond it is its own gap, never its rivals' (issue 28: an extra repetition,
    counted into everyone's grid, made every rival incomplete and its holder won)."""

    missing_cases: int
    missing_reps: int  # absent repetitions, those of the missing cases included
    infra_reps: int  # present, but not graded
    extra_reps: int  # beyond the grid: judged on other cells than the incumbent it must beat

    @property
    def complete(self) -> bool:
        return self.missing_reps == 0 and self.infra_reps == 0 and self.extra_reps == 0


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
    # P(at least c fixes | no change), one-sided, the gate's test and flips; None when the
    # comparison is INVALID: there is nothing to test
    improvement_p: float | None
    # the same, Holm-adjusted across the family (the complete candidates with a valid
    # comparison); None outside it
    improvement_p_holm: float | None
    alpha: float
    by: ReleaseKey = "resolved"
    group: int | None = None  # its tie group among the complete candidates (separation.py)

    @property
    def evidence(self) -> bool:
        """Evidence that it beats the incumbent: the Holm-adjusted improvement p within alpha."""
        return self.improvement_p_holm is not None and self.improvement_p_holm <= self.alpha

    @property
    def eligible(self) -> bool:
        return self.gaps.complete

    @property
    def order(self) -> tuple[Fraction, Fraction]:
        """The ranking key, exact: the release key first and the mean to break a tie, or with
        `release.key: mean` the mean first and the cases resolved to break a tie."""
        resolved, mean = Fraction(self.release_key), self.cells.share
        return (mean, resolved) if self.by == "mean" else (resolved, mean)


@dataclass(frozen=True)
class Incumbent:
    run_id: str
    path: Path
    cells: Cells
    release_key: int


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
    incumbent_mean: float
    by: ReleaseKey = "resolved"  # which of the two is the key
    min_key: float | None = None  # `release.min_key`: the least key that may replace


@dataclass(frozen=True)
class Disagreement:
    """The mean and the release key pick differently: `best` holds the highest mean (the first
    named when tied), and `winner` is the winner by the key."""

    code: DisagreementCode
    best: str
    winner: str


@dataclass(frozen=True)
class Ranking:
    incumbent: Incumbent
    standings: tuple[Standing, ...]  # the eligible by key, then the incomplete
    cases: int  # the cases a key counts: graded for the incumbent, not flaky-listed
    repetitions: int  # the repetitions asked of each candidate: see Gaps
    rule: ReleaseRule
    alpha: float
    highest_mean: tuple[str, ...]  # several when tied
    winner: str | None
    clearance: Clearance  # whether the winner clears the incumbent, and why
    disagreement: Disagreement | None  # when the mean and the release key pick differently
    lead: Lead | None  # the winner against the runner-up; None without both
    release: Release = field(default_factory=Release)
    # incomplete candidates whose key is above the winner's (or, in a tie, the first complete
    # ones'): each said to be passed over, and why
    passed_over: tuple[str, ...] = ()
    leads: tuple[Lead, ...] = ()  # each complete candidate against the next: the tie groups

    @property
    def clears(self) -> bool:
        return self.clearance.code == "clears"

    @property
    def family(self) -> tuple[str, ...]:
        """The candidates whose improvement claims Holm's correction covers."""
        return tuple(s.name for s in self.standings if s.improvement_p_holm is not None)

    @property
    def tie_groups(self) -> tuple[tuple[str, ...], ...]:
        """The complete candidates by tie group, in rank order (`A > B = C`: (A,), (B, C))."""
        groups: dict[int, list[str]] = {}
        for s in self.standings:
            if s.group is not None:
                groups.setdefault(s.group, []).append(s.name)
        return tuple(tuple(group) for group in groups.values())

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


def _gaps(
    everyone: pl.DataFrame, incumbent: pl.DataFrame, least: int | None
) -> tuple[dict[str, Gaps], int]:
    """Each candidate's gaps (`everyone`: name, case, rep, status) and the grid's size: each case
    the incumbent holds as many times as it ran it, and at least `least` times (the release
    rule's). A case the incumbent never had is in no key, and no gap."""
    asked = (
        incumbent.group_by("case")
        .agg(pl.col("rep").n_unique().alias("asked"))
        .with_columns(pl.max_horizontal("asked", pl.lit(least or 0)))
    )
    held = everyone.group_by("name", "case").agg(
        pl.col("rep").n_unique().alias("held"), (pl.col("status") == "infra").sum().alias("infra")
    )
    per_case = (
        everyone.select("name")
        .unique()
        .join(asked, how="cross")
        .join(held, on=["name", "case"], how="left")
        # counts are unsigned: a difference below zero must not wrap around
        .with_columns(pl.col("asked", "held", "infra").fill_null(0).cast(pl.Int64))
    )
    counts = per_case.group_by("name").agg(
        (pl.col("held") == 0).sum(),
        (pl.col("asked") - pl.col("held")).clip(lower_bound=0).sum().alias("missing"),
        pl.col("infra").sum(),
        (pl.col("held") - pl.col("asked")).clip(lower_bound=0).sum().alias("extra"),
    )
    gaps = {name: Gaps(*map(int, row)) for name, *row in counts.iter_rows()}
    return gaps, int(asked["asked"].sum())


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
    campaign_cases = everyone.select(pl.col("case").unique())["case"]
    # The cases a key counts: the campaign's, graded for the incumbent, not flaky-listed. A case
    # the incumbent has no graded result for is new or unpaired, in neither b nor c of the gate,
    # and in no key: no candidate gains on a case the incumbent was never judged on.
    base_reps, base_verdicts = incumbent_arm
    in_campaign = pl.col("case").is_in(campaign_cases.implode())
    gaps, grid = _gaps(everyone, base_reps.filter(in_campaign), spec.release.repetitions)
    counted = base_verdicts.filter(in_campaign & pl.col("passed").is_not_null())
    per_case = {
        m.name: m.verdicts.filter(pl.col("case").is_in(counted["case"].implode())) for m in measured
    }
    standings = []
    for m in measured:
        key = _passing(per_case[m.name])
        valid = m.gate.verdict != "INVALID"
        p = improvement_p(m.gate, spec.test) if valid else None
        by = spec.release.key
        standings.append(
            Standing(
                m.name,
                m.run_id,
                m.path,
                _cells(m.reps),
                key,
                gaps[m.name],
                m.gate,
                p,
                p,
                spec.alpha,
                by,
            )
        )
    standings = _holm(standings)
    standings.sort(key=lambda s: (not s.eligible, [-k for k in s.order], s.name))
    held_by_incumbent = Incumbent(
        incumbent.run_id,
        incumbent.path,
        _cells(base_reps.filter(in_campaign)),
        _passing(counted),
    )
    return _label(held_by_incumbent, standings, per_case, counted.height, grid, spec)


def _holm(standings: list[Standing]) -> list[Standing]:
    """Holm's correction across the candidates that could win: complete, with a valid comparison.
    An incomplete or INVALID one would only make the correction harsher for the others."""
    family = [s for s in standings if s.eligible and s.improvement_p is not None]
    adjusted = dict(
        zip(
            (s.name for s in family),
            holm([s.improvement_p for s in family if s.improvement_p is not None]),
            strict=True,
        )
    )
    return [replace(s, improvement_p_holm=adjusted.get(s.name)) for s in standings]


def _label(
    incumbent: Incumbent,
    ranked: list[Standing],
    verdicts: dict[str, pl.DataFrame],
    cases: int,
    grid: int,
    spec: GateSpec,
) -> Ranking:
    eligible = [s for s in ranked if s.eligible]
    leads = [lead(a.name, b.name, verdicts, spec) for a, b in pairwise(eligible)]
    same = [a.order == b.order for a, b in pairwise(eligible)]
    names = [s.name for s in eligible]
    groups = dict(zip(names, tie_groups(leads, same), strict=True)) if eligible else {}
    standings = tuple(replace(s, group=groups.get(s.name)) for s in ranked)
    top_mean = max(s.cells.share for s in standings)
    highest_mean = tuple(s.name for s in standings if s.cells.share == top_mean)
    tied = [s for s in eligible if s.order == eligible[0].order]
    winner = eligible[0] if len(tied) == 1 else None
    top = eligible[0].order if eligible else None
    passed_over = tuple(
        s.name for s in standings if not s.eligible and top is not None and s.order > top
    )
    return Ranking(
        incumbent=incumbent,
        standings=standings,
        cases=cases,
        repetitions=grid,
        rule=ReleaseRule.of(spec),
        alpha=spec.alpha,
        highest_mean=highest_mean,
        winner=winner.name if winner else None,
        clearance=_clearance(winner, tied, incumbent, spec.release),
        disagreement=_disagreement(standings, highest_mean, winner),
        lead=leads[0] if winner is not None and leads else None,
        release=spec.release,
        passed_over=passed_over,
        leads=tuple(leads),
    )


def _reaches(winner: Standing, release: Release) -> bool:
    """Whether the winner's key reaches `release.min_key`, compared exactly, inclusive."""
    if release.min_key is None:
        return True
    key = winner.cells.share if release.key == "mean" else Fraction(winner.release_key)
    return key >= written(release.min_key)


def _clearance(
    winner: Standing | None, tied: list[Standing], incumbent: Incumbent, release: Release
) -> Clearance:
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
    elif (
        winner.cells.share <= incumbent.cells.share
        if release.key == "mean"
        else winner.release_key <= incumbent.release_key
    ):
        code = "not_better"
    elif not _reaches(winner, release):
        code = "below_minimum"
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
        incumbent.cells.mean,
        release.key,
        release.min_key,
    )


def own_clearance(ranking: Ranking, name: str) -> Clearance:
    """Whether candidate `name` on its own would clear the incumbent, as if it were the winner:
    what a person's choice of it after a tie is told (the ranking's `clearance` is the
    winner's, or `tied`)."""
    standing = ranking.standing(name)
    alone = [standing] if standing.eligible else []
    return _clearance(standing if alone else None, alone, ranking.incumbent, ranking.release)


def _disagreement(
    standings: tuple[Standing, ...], highest_mean: tuple[str, ...], winner: Standing | None
) -> Disagreement | None:
    if winner is None or winner.name in highest_mean:
        return None
    best = next(s for s in standings if s.name == highest_mean[0])
    code: DisagreementCode = "release_key_decides" if best.eligible else "highest_mean_incomplete"
    return Disagreement(code, best.name, winner.name)


__all__ = [
    "Cells",
    "Clearance",
    "Disagreement",
    "Gaps",
    "Incumbent",
    "Lead",
    "Ranking",
    "ReleaseRule",
    "Standing",
    "holm",
    "own_clearance",
    "rank",
]
