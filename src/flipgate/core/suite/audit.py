"""Is the suite still measuring the product? The five diagnostics of seed 002, and what they need.

- coverage: which intents of today's traffic have at least `min_cases` live cases; the gaps,
  by share, and the share of traffic covered;
- case age: the median age, how many were written in the suite's first six weeks, the last
  addition, additions per month against the intake quota;
- free passes: cases that passed on every system of the history, and what they add to a pass rate;
- stale references: cases that point at a flag or an endpoint the registry no longer has;
- the counterfactual: old runs re-scored against today's expected labels, on the cases both hold;
- rejection reasons: the signed decisions' classes and the gate rules that fired;
- the production signal: a flat suite pass rate while what it should predict moves.

Everything is computed on polars frames of cases and verdicts; nothing here prints.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date, timedelta

import polars as pl

from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.spec import GateSpec
from flipgate.core.order import natural_sort
from flipgate.core.runs.model import Run
from flipgate.core.suite.manifest import REFERENCES, Quotas, SuiteManifest
from flipgate.core.suite.registry import KINDS, Registry
from flipgate.core.suite.signal import PASS_RATE, Production
from flipgate.core.suite.traffic import Traffic
from flipgate.core.suite.workspace import (
    HistoryRun,
    SignedDecision,
    SuiteInputs,
    system_of,
    version_of,
)
from flipgate.core.vocab import Reading

MONTH = 365.25 / 12  # days: case ages are told in months
FIRST_WEEKS = 6  # the seed's "written in the first six weeks of the suite's life"
RECENT_MONTHS = 6  # additions against the quota are counted over this many recent months
FREE_PASS_SYSTEMS = 2  # a case passed by one system only is not yet a free pass
BAR_MOVED = 0.05  # an old run re-scored this much lower (or higher): the bar moved
FLAT = 0.05  # a suite pass rate within this range over the periods is flat
SIGNAL_MOVED = 0.05  # a signal that changed by this share of its first value moved
ONE_RULE_REJECTIONS = 3  # this many rejections, all on one gate rule: one rule does all the work


# --------------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class Coverage:
    min_cases: int
    intents: pl.DataFrame  # intent, share, cases, covered; by share, largest first
    covered_share: float
    unclassified: float  # traffic with no intent
    untrafficked: pl.DataFrame  # intent, cases: live cases on intents today's traffic lacks

    @property
    def gaps(self) -> pl.DataFrame:
        return self.intents.filter(~pl.col("covered"))


def coverage(manifest: SuiteManifest, traffic: Traffic) -> Coverage:
    counts = manifest.live.group_by("intent").agg(pl.len().cast(pl.Int64).alias("cases"))
    intents = (
        traffic.shares.join(counts, on="intent", how="left")
        .with_columns(pl.col("cases").fill_null(0))
        .with_columns(covered=pl.col("cases") >= manifest.min_cases)
        .sort(["share", "intent"], descending=[True, False])
    )
    untrafficked = counts.join(traffic.shares, on="intent", how="anti").sort(
        ["cases", "intent"], descending=[True, False]
    )
    covered = float(intents.filter(pl.col("covered"))["share"].sum())
    return Coverage(manifest.min_cases, intents, covered, traffic.unclassified, untrafficked)


# --------------------------------------------------------------------------- case age


@dataclass(frozen=True)
class CaseAge:
    as_of: date
    started: date
    live: int
    median_months: float
    first_weeks: int  # live cases added in the suite's first six weeks
    last_added: date
    quotas: Quotas
    recent_added: int  # cases added in the last RECENT_MONTHS months
    recent_retired: int
    monthly: pl.DataFrame  # month (its first day), added, retired: every month from the start
    histogram: pl.DataFrame  # months (whole months of age), cases: every age up to the oldest

    @property
    def months_since_last(self) -> float:
        return (self.as_of - self.last_added).days / MONTH


def case_age(manifest: SuiteManifest, as_of: date) -> CaseAge | None:
    live = manifest.live
    started = manifest.first_day
    if live.height == 0 or started is None:
        return None
    # A case dated after the audit's day (an `--as-of` in the past) counts as new, not negative.
    age_days = (pl.lit(as_of) - pl.col("added")).dt.total_days().clip(lower_bound=0)
    ages = live.select(
        months=(age_days / MONTH).floor().cast(pl.Int64),
        days=age_days,
        early=pl.col("added") < pl.lit(started + timedelta(weeks=FIRST_WEEKS)),
    )
    oldest = int(ages["months"].max())  # type: ignore[arg-type]
    histogram = (
        pl.DataFrame({"months": range(oldest + 1)}, schema={"months": pl.Int64})
        .join(
            ages.group_by("months").agg(pl.len().cast(pl.Int64).alias("cases")),
            on="months",
            how="left",
        )
        .with_columns(pl.col("cases").fill_null(0))
    )
    months = pl.date_range(started.replace(day=1), as_of.replace(day=1), "1mo", eager=True).alias(
        "month"
    )

    def per_month(column: str, name: str) -> pl.DataFrame:
        return (
            manifest.cases.filter(pl.col(column).is_not_null())
            .group_by(pl.col(column).dt.truncate("1mo").alias("month"))
            .agg(pl.len().cast(pl.Int64).alias(name))
        )

    monthly = (
        months.to_frame()
        .join(per_month("added", "added"), on="month", how="left")
        .join(per_month("retired", "retired"), on="month", how="left")
        .with_columns(pl.col("added", "retired").fill_null(0))
    )
    since = as_of - timedelta(days=round(RECENT_MONTHS * MONTH))
    recent = manifest.cases.select(
        added=(pl.col("added") > since).sum(), retired=(pl.col("retired") > since).sum()
    )
    return CaseAge(
        as_of=as_of,
        started=started,
        live=live.height,
        median_months=float(ages["days"].median()) / MONTH,  # type: ignore[arg-type]
        first_weeks=int(ages["early"].sum()),
        last_added=live["added"].max(),  # type: ignore[arg-type]
        quotas=manifest.quotas,
        recent_added=int(recent["added"][0]),
        recent_retired=int(recent["retired"][0]),
        monthly=monthly,
        histogram=histogram,
    )


# --------------------------------------------------------------------------- free passes


@dataclass(frozen=True)
class FreePasses:
    cases: tuple[str, ...]
    systems: int  # systems in the history
    runs: pl.DataFrame  # run_id, system, created, cases, pass_rate, pass_rate_without, points

    @property
    def points(self) -> tuple[float, float]:
        """The least and most a run's pass rate was raised by them, in points."""
        if self.runs.height == 0:
            return (0.0, 0.0)
        return (float(self.runs["points"].min()), float(self.runs["points"].max()))  # type: ignore[arg-type]


def free_passes(manifest: SuiteManifest, verdicts: pl.DataFrame) -> FreePasses:
    live = manifest.live.select("case")
    per_case = (
        verdicts.join(live, on="case", how="semi")
        .group_by("case")
        .agg(systems=pl.col("system").n_unique(), all_passed=pl.col("passed").all())
    )
    free = natural_sort(
        per_case.filter(pl.col("all_passed") & (pl.col("systems") >= FREE_PASS_SYSTEMS))
    )["case"]
    is_free = pl.col("case").is_in(free.implode())
    runs = (
        verdicts.group_by("run_id", "system", "created", maintain_order=True)
        .agg(
            cases=pl.len().cast(pl.Int64),
            pass_rate=pl.col("passed").mean(),
            pass_rate_without=pl.col("passed").filter(~is_free).mean(),
        )
        .with_columns(points=(pl.col("pass_rate") - pl.col("pass_rate_without")) * 100)
    )
    return FreePasses(tuple(free.to_list()), verdicts["system"].n_unique(), runs)


# --------------------------------------------------------------------------- stale references


@dataclass(frozen=True)
class StaleReferences:
    references: pl.DataFrame  # kind, name, removed (null: never in the registry), cases (list)
    proposals: pl.DataFrame  # case, intent, reason: a retirement proposal per case


def stale_references(manifest: SuiteManifest, registry: Registry) -> StaleReferences:
    refs = pl.concat(
        manifest.live.select(
            "case", "intent", pl.lit(KINDS[ref]).alias("kind"), pl.col(ref).alias("name")
        ).explode("name")
        for ref in REFERENCES
    ).drop_nulls("name")
    gone = refs.join(registry.live, on=["kind", "name"], how="anti").join(
        registry.removed, on=["kind", "name"], how="left"
    )
    why = pl.concat_str(
        pl.lit("references "),
        pl.col("kind"),
        pl.lit(" "),
        pl.col("name"),
        pl.when(pl.col("removed").is_null())
        .then(pl.lit(", which the registry does not hold"))
        .otherwise(pl.lit(", removed on ") + pl.col("removed").dt.to_string("%Y-%m-%d")),
    )
    references = (
        natural_sort(gone)
        .group_by("kind", "name", "removed", maintain_order=True)
        .agg("case")
        .rename({"case": "cases"})
        .sort(pl.col("cases").list.len(), "kind", "name", descending=[True, False, False])
    )
    proposals = natural_sort(
        gone.with_columns(reason=why)
        .group_by("case", "intent")
        .agg(pl.col("reason").sort().str.join("; "))
    )
    return StaleReferences(references, proposals)


# --------------------------------------------------------------------------- counterfactual


@dataclass(frozen=True)
class Rescore:
    """One old run, as it scored then and as today's expected labels score its stored labels."""

    run_id: str
    system: str
    created: date | None
    version: str | None
    cases_then: int
    score_then: float
    overlap: int  # cases it holds that today's suite holds too
    score_now: float | None

    @property
    def reading(self) -> Reading:
        if self.score_now is None:
            return "no_overlap"
        change = self.score_now - self.score_then
        if change <= -BAR_MOVED:
            return "bar_moved"
        return "bar_got_easier" if change >= BAR_MOVED else "bar_stood_still"


@dataclass(frozen=True)
class Counterfactual:
    today_run: str
    today_version: str | None
    rescores: tuple[Rescore, ...]  # oldest first: the first is the headline


def counterfactual(
    history: tuple[HistoryRun, ...], today: Run, manifest: SuiteManifest, spec: GateSpec
) -> Counterfactual:
    """Re-score each system's oldest history run made on another suite version than today's."""
    version = manifest.version or version_of(today)
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
    rescored = dataclasses.replace(
        run,
        reps=run.reps.join(held, on=["case", "rep"], how="semi"),
        decisions=decisions,
        checks=checks,
    )
    now = collapsed_verdicts(rescored, spec).filter(pl.col("passed").is_not_null())
    return Rescore(
        run_id=run.run_id,
        system=system_of(run),
        created=run.created.date() if run.created else None,
        version=version_of(run),
        cases_then=then.height,
        score_then=float(then["passed"].mean() or 0.0),  # type: ignore[arg-type]
        overlap=now.height,
        score_now=float(now["passed"].mean()) if now.height else None,  # type: ignore[arg-type]
    )


# --------------------------------------------------------------------------- rejections


@dataclass(frozen=True)
class Rejections:
    decisions: int  # signed decisions read
    by_decision: pl.DataFrame  # decision, count
    by_cause: pl.DataFrame  # cause, count: of the rejections
    by_rule: pl.DataFrame  # rule, count: the gate rule that fired, of the rejections
    rejected: int

    @property
    def one_rule(self) -> str | None:
        """The gate rule behind every rejection, when there are enough to say so."""
        if self.rejected >= ONE_RULE_REJECTIONS and self.by_rule.height == 1:
            return str(self.by_rule["rule"][0])
        return None


def rejections(decisions: tuple[SignedDecision, ...]) -> Rejections:
    frame = pl.DataFrame(
        [(d.record.decision, d.record.cause, d.record.gate.rule) for d in decisions],
        schema={"decision": pl.String, "cause": pl.String, "rule": pl.String},
        orient="row",
    )
    rejected = frame.filter(pl.col("decision") == "reject")

    def count(frame: pl.DataFrame, by: str) -> pl.DataFrame:
        return (
            frame.group_by(by)
            .agg(pl.len().cast(pl.Int64).alias("count"))
            .sort(["count", by], descending=[True, False])
        )

    return Rejections(
        frame.height,
        count(frame, "decision"),
        count(rejected, "cause"),
        count(rejected, "rule"),
        rejected.height,
    )


# --------------------------------------------------------------------------- production signal


@dataclass(frozen=True)
class SignalTrend:
    name: str
    better: str
    first: float
    last: float

    @property
    def change(self) -> float:
        """Relative to the first period's value."""
        return (self.last - self.first) / abs(self.first) if self.first else 0.0

    @property
    def worse(self) -> bool:
        return (self.last < self.first) == (self.better == "higher")

    @property
    def moved(self) -> bool:
        return abs(self.change) >= SIGNAL_MOVED


@dataclass(frozen=True)
class ProductionCheck:
    periods: pl.DataFrame
    low: float  # the suite pass rate's range over the periods
    high: float
    trends: tuple[SignalTrend, ...]

    @property
    def flat(self) -> bool:
        return self.high - self.low <= FLAT

    @property
    def broken(self) -> tuple[SignalTrend, ...]:
        """Signals that moved while the suite stayed flat: the link the suite exists for."""
        return tuple(t for t in self.trends if self.flat and t.moved)


def production_check(production: Production) -> ProductionCheck:
    periods = production.periods
    trends = []
    for signal in production.signals:
        values = periods[signal.name].drop_nulls()
        if values.len() >= 2:
            trends.append(SignalTrend(signal.name, signal.better, values[0], values[-1]))
    rate = periods[PASS_RATE]
    return ProductionCheck(periods, float(rate.min()), float(rate.max()), tuple(trends))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the audit


@dataclass(frozen=True)
class SuiteAudit:
    inputs: SuiteInputs
    as_of: date
    manifest: SuiteManifest  # the suite as it stood on `as_of`
    coverage: Coverage | None  # None: no traffic.yaml
    age: CaseAge | None  # None: no live case
    free: FreePasses | None  # None: no history
    stale: StaleReferences | None  # None: no registry.yaml
    counterfactual: Counterfactual | None  # None: no history, or no run of today's suite
    rejections: Rejections
    production: ProductionCheck | None  # None: no production.yaml

    def below(self, share: float) -> bool:
        """Covered traffic below `share` (for `--fail-under`); no traffic file counts as below."""
        return self.coverage is None or self.coverage.covered_share < share


def audit(inputs: SuiteInputs, as_of: date | None = None) -> SuiteAudit:
    """Every diagnostic the inputs allow, on the suite as it stood on `as_of`: by default the
    newest day the workspace records (a run, an addition, a retirement), so that an audit of
    the same files reads the same on any day."""
    day = as_of or inputs.last_day or date.today()
    manifest = inputs.manifest.on(day)

    def by_then(created: date | None) -> bool:
        return created is None or created <= day

    history = tuple(
        h for h in inputs.history if by_then(h.run.created.date() if h.run.created else None)
    )
    verdicts = inputs.verdicts.filter(pl.col("created").is_null() | (pl.col("created") <= day))
    decisions = tuple(d for d in inputs.decisions if by_then(d.record.created.date()))
    today = inputs.today
    return SuiteAudit(
        inputs=inputs,
        as_of=day,
        manifest=manifest,
        coverage=coverage(manifest, inputs.traffic) if inputs.traffic else None,
        age=case_age(manifest, day),
        free=free_passes(manifest, verdicts) if verdicts.height else None,
        stale=stale_references(manifest, inputs.registry) if inputs.registry else None,
        counterfactual=counterfactual(history, today, manifest, inputs.spec)
        if history and today is not None
        else None,
        rejections=rejections(decisions),
        production=production_check(inputs.production) if inputs.production else None,
    )
