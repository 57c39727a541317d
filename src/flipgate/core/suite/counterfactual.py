"""The counterfactual re-run (seed 002's third diagnostic): each system's oldest run, its stored
decisions against today's expected labels.

"Take the model you were using a year ago, run it against today's suite version, and look at
what it scores. If the year-old model now fails cases it used to pass, the bar has moved with the
product." The runs store their decisions, so a retired model is re-scored without running it:
on the (case, rule) pairs both hold, live cases only. Five points lower (inclusive, on the
counts) is a bar that moved; within five points, one that stood still.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import polars as pl

from flipgate.core.exact import ratio
from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run, with_decisions
from flipgate.core.suite.manifest import SuiteManifest
from flipgate.core.suite.workspace import HistoryRun, system_of, version_of
from flipgate.core.vocab import Reading

BAR_MOVED = Fraction(5, 100)  # an old run re-scored this much lower (or higher): the bar moved


@dataclass(frozen=True)
class Rescore:
    """One old run, as it scored then and as today's expected labels score its stored labels."""

    run_id: str
    system: str
    created: date | None
    version: str | None
    cases_then: int
    passed_then: int
    overlap: int  # cases it holds that today's suite holds too
    passed_now: int

    @property
    def score_then(self) -> float:
        return float(ratio(self.passed_then, self.cases_then))

    @property
    def score_now(self) -> float | None:
        return float(ratio(self.passed_now, self.overlap)) if self.overlap else None

    @property
    def reading(self) -> Reading:
        if not self.overlap:
            return "no_overlap"
        change = ratio(self.passed_now, self.overlap) - ratio(self.passed_then, self.cases_then)
        if change <= -BAR_MOVED:
            return "bar_moved"
        return "bar_got_easier" if change >= BAR_MOVED else "bar_stood_still"


@dataclass(frozen=True)
class Counterfactual:
    today_run: str
    today_version: str | None
    rescores: tuple[Rescore, ...]  # oldest first: the first is the headline


def counterfactual(
    history: tuple[HistoryRun, ...],
    today: Run,
    manifest: SuiteManifest,
    spec: GateSpec,
    version: str | None = None,
) -> Counterfactual:
    """Re-score each system's oldest history run made on another suite version than today's
    (`version`, else the run's)."""
    version = version or version_of(today)
    oldest: dict[str, HistoryRun] = {}
    for old in history:  # oldest first
        if old.run is not today and version_of(old.run) != version:
            oldest.setdefault(system_of(old.run), old)
    # Today's expected labels and cases, once for every old run re-scored against them.
    expected_now = (
        today.decisions.select("case", "rule", pl.col("expected").alias("expected_now"))
        .unique(["case", "rule"], keep="first")
        .join(manifest.live.select("case"), on="case", how="semi")
    )
    today_cases = today.reps.select("case").unique().join(manifest.live, on="case", how="semi")
    return Counterfactual(
        today.run_id,
        version,
        tuple(rescore(old, expected_now, today_cases, spec) for old in oldest.values()),
    )


def rescore(
    old: HistoryRun, expected_now: pl.DataFrame, today_cases: pl.DataFrame, spec: GateSpec
) -> Rescore:
    """`old`'s stored labels against today's expected ones (case, rule, expected_now), on the
    (case, rule)s both hold; `today_cases` (case): the live cases today's run holds.

    Pass/fail checks carry no label to re-score: they count as they were graded then.
    """
    run, then = old.run, old.verdicts
    decisions = (
        run.decisions.join(expected_now, on=["case", "rule"], how="inner")
        .with_columns(pl.col("expected_now").alias("expected"))
        .drop("expected_now")
    )
    checks = run.checks.join(today_cases, on="case", how="semi")
    held = pl.concat([decisions.select("case", "rep"), checks.select("case", "rep")]).unique()
    rescored = with_decisions(
        run, decisions, reps=run.reps.join(held, on=["case", "rep"], how="semi"), checks=checks
    )
    now = collapsed_verdicts(rescored, spec).filter(pl.col("passed").is_not_null())
    return Rescore(
        run_id=run.run_id,
        system=system_of(run),
        created=run.created.date() if run.created else None,
        version=version_of(run),
        cases_then=then.height,
        passed_then=int(then["passed"].sum()),
        overlap=now.height,
        passed_now=int(now["passed"].sum()),
    )
