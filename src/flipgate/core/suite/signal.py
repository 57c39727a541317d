"""`production.yaml`: the figures the suite is meant to predict, period by period, beside the
suite's own pass rate.

    signals:
      csat: {better: higher, about: mean satisfaction rating, 1-5}
      escalation_rate: {better: lower}
    periods:
      - {period: 2025-Q3, suite_pass_rate: 0.88, csat: 4.4, escalation_rate: 0.09}
      - {period: 2025-Q4, suite_pass_rate: 0.86, csat: 4.2, escalation_rate: 0.11,
         run: sa-2025-12-31-quarterly}   # optional: the history run the figure was read from
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from flipgate.core.suite.fields import load_mapping

PRODUCTION = "production.yaml"
PASS_RATE = "suite_pass_rate"
DIRECTIONS = ("higher", "lower")
SIGNAL_FIELDS = ("better", "about")


@dataclass(frozen=True)
class Signal:
    name: str
    better: str  # higher | lower
    about: str | None


@dataclass(frozen=True)
class Production:
    signals: tuple[Signal, ...]
    # period, suite_pass_rate, run (the history run it was read from, or null), one column per
    # signal (null: not measured)
    periods: pl.DataFrame


def load_production(path: Path) -> Production:
    data, check = load_mapping(
        path, ("signals", "periods"), "production has `signals` and `periods`"
    )
    raw_signals = data.get("signals")
    if not isinstance(raw_signals, dict) or not raw_signals:
        raise check.bad("signals", "a mapping of signal name -> {better: higher|lower}")
    signals = []
    for name, raw in raw_signals.items():
        at = f"signals.{name}"
        if name in (PASS_RATE, "run", "period"):
            raise check.bad(at, f"{name} is a field of every period, not a signal")
        spec = check.mapping(raw, at, SIGNAL_FIELDS)
        better = spec.get("better")
        if better not in DIRECTIONS:
            raise check.bad(f"{at}.better", f"higher or lower, not {better!r}")
        about = check.text(spec["about"], f"{at}.about") if "about" in spec else None
        signals.append(Signal(str(name), better, about))
    periods = data.get("periods")
    if not isinstance(periods, list) or len(periods) < 2:
        raise check.bad("periods", "a list of at least two periods")
    names = [s.name for s in signals]
    rows = []
    for i, raw in enumerate(periods):
        at = f"periods.{i}"
        period = check.mapping(raw, at, ("period", PASS_RATE, "run", *names))
        run = period.get("run")
        rows.append(
            (
                check.text(str(period["period"]) if "period" in period else None, f"{at}.period"),
                check.share(period.get(PASS_RATE), f"{at}.{PASS_RATE}"),
                None if run is None else check.text(run, f"{at}.run"),
                *(
                    check.number(period[n], f"{at}.{n}") if period.get(n) is not None else None
                    for n in names
                ),
            )
        )
    schema = {"period": pl.String, PASS_RATE: pl.Float64, "run": pl.String}
    schema |= dict.fromkeys(names, pl.Float64)
    return Production(tuple(signals), pl.DataFrame(rows, schema=schema, orient="row"))
