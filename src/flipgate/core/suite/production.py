"""The production signal (seed 002's fifth diagnostic), and the typed figures checked against the
runs.

"A suite whose score is flat while CSAT falls six points, or while escalation rate rises, has
broken the correlation that made it worth running." The suite's pass rate over the periods is
flat when it stays within 5 points; a signal that moved by 5% or more of its first value while
the suite stayed flat has come apart from it. Both limits are inclusive, on the figures as
written.

The pass rates in `production.yaml` are typed by hand, from quarterly reports; the runs of
`history/` measured them. Each period's typed figure is checked against the (weighted) pass rate
of the history's runs made in that period (`2025-Q3`, `2025-07`, `2025-H2` or `2025`), or of
the run the period names (`run: RUN_ID`): it agrees when one of them rounds to it, within half a
unit of its last written decimal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

import polars as pl

from flipgate.core.exact import written
from flipgate.core.suite.manifest import SuiteManifest
from flipgate.core.suite.signal import PASS_RATE, Production

FLAT = Fraction(5, 100)  # a suite pass rate within this range over the periods is flat
SIGNAL_MOVED = Fraction(5, 100)  # a signal that changed by this share of its first value moved
PERIOD = re.compile(r"^(\d{4})(?:-(?:Q([1-4])|H([12])|(0[1-9]|1[0-2])))?$")


@dataclass(frozen=True)
class SignalTrend:
    name: str
    better: str
    first: float
    last: float

    @property
    def exact_change(self) -> Fraction:
        """Relative to the first period's value, on the figures as written."""
        first, last = written(self.first), written(self.last)
        return (last - first) / abs(first) if first else Fraction(0)

    @property
    def change(self) -> float:
        return float(self.exact_change)

    @property
    def worse(self) -> bool:
        return (self.last < self.first) == (self.better == "higher")

    @property
    def moved(self) -> bool:
        return abs(self.exact_change) >= SIGNAL_MOVED


@dataclass(frozen=True)
class TypedFigure:
    """One period's typed pass rate beside the runs that measured it."""

    period: str
    typed: float
    measured: tuple[tuple[str, float], ...]  # (run_id, its pass rate): the period's runs
    agrees_with: str | None  # the run whose pass rate rounds to the typed figure

    @property
    def checked(self) -> bool:
        return bool(self.measured)


@dataclass(frozen=True)
class ProductionCheck:
    periods: pl.DataFrame
    low: float  # the suite pass rate's range over the periods
    high: float
    trends: tuple[SignalTrend, ...]
    typed: tuple[TypedFigure, ...] = ()  # each period's typed pass rate against history/
    weighted: bool = False  # the pass rates checked against are weighted (suite.yaml weights)

    @property
    def flat(self) -> bool:
        return written(self.high) - written(self.low) <= FLAT

    @property
    def broken(self) -> tuple[SignalTrend, ...]:
        """Signals that moved while the suite stayed flat: the link the suite exists for."""
        return tuple(t for t in self.trends if self.flat and t.moved)

    @property
    def mismatched(self) -> tuple[TypedFigure, ...]:
        """Typed figures no run of their period measured."""
        return tuple(t for t in self.typed if t.checked and t.agrees_with is None)


def period_days(period: str) -> tuple[date, date] | None:
    """The first and last day of `2025-Q3`, `2025-07`, `2025-H2` or `2025`; None otherwise."""
    found = PERIOD.match(period.strip())
    if found is None:
        return None
    year, quarter, half, month = found.groups()
    first_month, months = (
        (3 * int(quarter) - 2, 3)
        if quarter
        else (6 * int(half) - 5, 6)
        if half
        else (int(month), 1)
        if month
        else (1, 12)
    )
    start = date(int(year), first_month, 1)
    end_month = first_month + months
    end = (
        date(int(year) + 1, 1, 1) if end_month > 12 else date(int(year), end_month, 1)
    ) - timedelta(days=1)
    return start, end


def rounds_to(measured: Fraction, typed: float) -> bool:
    """`measured` is within half a unit of `typed`'s last written decimal (inclusive)."""
    places = -Decimal(repr(typed)).as_tuple().exponent  # type: ignore[operator]
    return abs(measured - written(typed)) <= Fraction(1, 2 * 10 ** max(places, 0))


def run_rates(
    verdicts: pl.DataFrame, manifest: SuiteManifest
) -> dict[str, tuple[date | None, Fraction]]:
    """Each history run's weighted pass rate, exactly: the weights as written (default 1)."""
    weights = dict(manifest.cases.select("case", "weight").iter_rows())
    rates: dict[str, tuple[date | None, Fraction]] = {}
    sums: dict[str, tuple[Fraction, Fraction]] = {}
    made: dict[str, date | None] = {}
    for run_id, created, case, passed in verdicts.select(
        "run_id", "created", "case", "passed"
    ).iter_rows():
        weight = written(weights.get(case, 1))
        got, whole = sums.get(run_id, (Fraction(0), Fraction(0)))
        sums[run_id] = (got + (weight if passed else 0), whole + weight)
        made[run_id] = created
    for run_id, (got, whole) in sums.items():
        rates[run_id] = (made[run_id], got / whole if whole else Fraction(0))
    return rates


def typed_figures(
    production: Production, rates: dict[str, tuple[date | None, Fraction]]
) -> tuple[TypedFigure, ...]:
    """Each period's typed pass rate against the runs made in it (or the run it names)."""
    figures = []
    for period, typed, named in production.periods.select("period", PASS_RATE, "run").iter_rows():
        days = period_days(period)
        if named is not None:
            runs = [named] if named in rates else []
        elif days is not None:
            runs = [r for r, (made, _) in rates.items() if made and days[0] <= made <= days[1]]
        else:
            runs = []
        agrees = next((r for r in runs if rounds_to(rates[r][1], typed)), None)
        measured = tuple((r, float(rates[r][1])) for r in runs)
        figures.append(TypedFigure(period, typed, measured, agrees))
    return tuple(figures)


def production_check(
    production: Production,
    verdicts: pl.DataFrame | None = None,
    manifest: SuiteManifest | None = None,
) -> ProductionCheck:
    """The trend of each signal beside the suite's typed pass rate; with the history's verdicts
    and the manifest, each typed figure checked against the runs of its period."""
    periods = production.periods
    trends = []
    for signal in production.signals:
        values = periods[signal.name].drop_nulls()
        if values.len() >= 2:
            trends.append(SignalTrend(signal.name, signal.better, values[0], values[-1]))
    rate = periods[PASS_RATE]
    typed: tuple[TypedFigure, ...] = ()
    if verdicts is not None and manifest is not None and verdicts.height:
        typed = typed_figures(production, run_rates(verdicts, manifest))
    return ProductionCheck(
        periods.drop("run"),
        float(rate.min()),  # type: ignore[arg-type]
        float(rate.max()),  # type: ignore[arg-type]
        tuple(trends),
        typed,
        manifest.weighted if manifest is not None else False,
    )
