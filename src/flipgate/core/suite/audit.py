"""Is the suite still measuring the product? The diagnostics of seed 002, and what they need.

- coverage: which intents of today's traffic have at least `min_cases` live cases; the gaps,
  by share, and the share of traffic covered;
- intake by intent: the sampled intake apportioned by traffic share (`intake.py`);
- case age: the median age, how many were written in the suite's first six weeks, the last
  addition, additions per month against the intake quota;
- free passes: cases passed in every run holding them, by at least two systems, and what they
  add to a pass rate (weighted too, by the manifest's case weights);
- stale references: cases that point at a flag or an endpoint the registry no longer has;
- the counterfactual: old runs re-scored against today's expected labels (`counterfactual.py`),
  and the frozen anchor on every suite version (`anchor.py`);
- rejection reasons: the signed decisions' classes and the gate rules that fired;
- external calibration: what comparable teams adopted against our view of it (`external.py`);
- the production signal: a flat suite pass rate while what it should predict moves, and the
  typed pass rates checked against the runs (`production.py`);
- the judge's version history on the cases' schedule (`judge.py`), and what a re-baseline run
  costs (`rebaseline.py`).

Everything is computed on polars frames of cases and verdicts; nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from fractions import Fraction

import polars as pl

from flipgate.core.exact import total, written
from flipgate.core.order import natural_sort
from flipgate.core.suite.anchor import Anchor, anchor
from flipgate.core.suite.counterfactual import Counterfactual, counterfactual
from flipgate.core.suite.external import Calibration, calibrate
from flipgate.core.suite.intake import Intake, intake
from flipgate.core.suite.judge import JudgeHistory, judge_history
from flipgate.core.suite.manifest import MONTH, REFERENCES, Quotas, SuiteManifest
from flipgate.core.suite.production import ProductionCheck, production_check
from flipgate.core.suite.rebaseline import Rebaseline, rebaseline
from flipgate.core.suite.registry import KINDS, Registry
from flipgate.core.suite.traffic import Traffic
from flipgate.core.suite.workspace import (
    SignedDecision,
    SuiteInputs,
    system_of,
    version_of,
)

FIRST_WEEKS = 6  # the seed's "written in the first six weeks of the suite's life"
RECENT_MONTHS = 6  # additions against the quota are counted over this many recent months
FREE_PASS_SYSTEMS = 2  # a case passed by one system only is not yet a free pass
ONE_RULE_REJECTIONS = 3  # this many rejections, all on one gate rule: one rule does all the work


# --------------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class Coverage:
    min_cases: int
    intents: pl.DataFrame  # intent, share, cases, covered; by share, largest first
    covered: Fraction  # the share of traffic covered, exactly: the shares as written, added
    unclassified: float  # traffic with no intent
    untrafficked: pl.DataFrame  # intent, cases: live cases on intents today's traffic lacks

    @property
    def gaps(self) -> pl.DataFrame:
        return self.intents.filter(~pl.col("covered"))

    @property
    def covered_share(self) -> float:
        return float(self.covered)


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
    covered = total(intents.filter(pl.col("covered"))["share"].to_list())
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


def shifted(day: date, days: int) -> date:
    """`day` moved by `days`, stopping at the calendar's ends: a case added on 9999-12-31 still
    has a first six weeks, one added on 0001-01-01 a last six months."""
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def recent_since(as_of: date) -> date:
    """The day before the recent months: additions after it are counted against the quotas."""
    return shifted(as_of, -round(RECENT_MONTHS * MONTH))


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
        early=pl.col("added") < pl.lit(shifted(started, FIRST_WEEKS * 7)),
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
    since = recent_since(as_of)
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
    # run_id, system, created, cases, pass_rate, pass_rate_without, weighted_pass_rate,
    # weighted_pass_rate_without, points
    runs: pl.DataFrame

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
        weighed(verdicts, manifest)
        .group_by("run_id", "system", "created", maintain_order=True)
        .agg(
            cases=pl.len().cast(pl.Int64),
            pass_rate=pl.col("passed").mean(),
            pass_rate_without=pl.col("passed").filter(~is_free).mean(),
            weighted_pass_rate=weighted_rate(),
            weighted_pass_rate_without=weighted_rate(~is_free),
        )
        .with_columns(points=(pl.col("pass_rate") - pl.col("pass_rate_without")) * 100)
    )
    return FreePasses(tuple(free.to_list()), verdicts["system"].n_unique(), runs)


def weighed(verdicts: pl.DataFrame, manifest: SuiteManifest) -> pl.DataFrame:
    """`verdicts` with each case's `weight` from the manifest (a case it does not hold: 1)."""
    weights = manifest.cases.select("case", "weight")
    return verdicts.join(weights, on="case", how="left").with_columns(
        pl.col("weight").fill_null(1.0)
    )


def weighted_rate(where: pl.Expr | None = None) -> pl.Expr:
    """The weighted pass rate of a group: its passing cases' weight over all its weight."""
    weight, passed = pl.col("weight"), pl.col("passed")
    if where is not None:
        weight, passed = weight.filter(where), passed.filter(where)
    return (weight * passed.cast(pl.Float64)).sum() / weight.sum()


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
    intake: Intake | None = None  # None: no traffic.yaml, or no sampled intake set
    anchor: Anchor | None = None  # None: suite.yaml names no anchor, or no run
    judge: JudgeHistory | None = None  # None: today's run names no judge in its key
    rebaseline: Rebaseline | None = None  # None: no run of today's suite
    external: tuple[Calibration, ...] | None = None  # None: no external.yaml

    def below(self, share: float) -> bool:
        """Covered traffic below `share` (for `--fail-under`, which needs traffic to measure: the
        command line refuses it without), exactly: a limit is inclusive as written, so 0.448
        covered is not below 0.448 or 44.8%. No traffic file counts as below."""
        return self.coverage is None or self.coverage.covered < written(share)


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
    # Today's suite as it stood on the day: a run made after it cannot re-score anything then.
    today = inputs.today
    version = manifest.version
    if today is not None and not by_then(today.created.date() if today.created else None):
        today = history[-1].run if history else None
        version = version_of(today) if today is not None else None
    return SuiteAudit(
        inputs=inputs,
        as_of=day,
        manifest=manifest,
        coverage=coverage(manifest, inputs.traffic) if inputs.traffic else None,
        age=case_age(manifest, day),
        free=free_passes(manifest, verdicts) if verdicts.height else None,
        stale=stale_references(manifest, inputs.registry) if inputs.registry else None,
        counterfactual=counterfactual(history, today, manifest, inputs.spec, version)
        if history and today is not None
        else None,
        rejections=rejections(decisions),
        production=production_check(inputs.production, verdicts, manifest)
        if inputs.production
        else None,
        intake=intake(manifest, inputs.traffic, recent_since(day), RECENT_MONTHS)
        if inputs.traffic
        else None,
        anchor=anchor(manifest.anchor, history, today) if manifest.anchor else None,
        judge=judge_history((*(h.run for h in history), today), today, manifest, day)
        if today is not None
        else None,
        rebaseline=rebaseline(today) if today is not None else None,
        external=calibrate(
            inputs.external,
            verdicts,
            frozenset(
                d.record.candidate.run_id for d in decisions if d.record.decision == "reject"
            ),
            system_of(today) if today is not None else None,
            day,
        )
        if inputs.external is not None
        else None,
    )
