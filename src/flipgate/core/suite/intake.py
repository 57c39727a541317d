"""Intake that follows traffic (seed 002): the month's sampled cases drawn by intent share.

"Stratifying the traffic sample by intent share means drawing the eight cases so that each kind
of request contributes in proportion to how often it actually occurs." So `sampled_per_month` is
apportioned over the intents of `traffic.yaml` by their shares (the largest remainder method,
on the shares as written, ties to the larger share and then the name): next month's proposed
draws. The same apportionment of the last six months' sampled intake is each intent's quota, and
an intent that got fewer additions than its quota is short. Traffic with no intent draws nothing:
there is no intent to write its case for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import polars as pl

from flipgate.core.exact import written
from flipgate.core.suite.manifest import SuiteManifest
from flipgate.core.suite.traffic import Traffic


def apportion(total: int, shares: dict[str, float]) -> dict[str, int]:
    """`total` split over `shares` in proportion (Hamilton's largest remainder method): each gets
    the whole part of its exact quota, then the largest remainders one more each."""
    whole = sum((written(s) for s in shares.values()), Fraction(0))
    if total == 0 or whole == 0:
        return dict.fromkeys(shares, 0)
    quotas = {name: total * written(share) / whole for name, share in shares.items()}
    given = {name: math.floor(q) for name, q in quotas.items()}
    left = total - sum(given.values())
    by_remainder = sorted(
        quotas, key=lambda name: (-(quotas[name] - given[name]), -quotas[name], name)
    )
    for name in by_remainder[:left]:
        given[name] += 1
    return given


@dataclass(frozen=True)
class Intake:
    """Each intent's share of the sampled intake, against what the suite took in."""

    per_month: int  # `intake.sampled_per_month`
    months: int  # the window the quota counts over
    # intent, share, quota (the window's sampled intake apportioned), added (in the window),
    # short (added below quota), draws (next month's sampled cases, apportioned); by share
    intents: pl.DataFrame

    @property
    def short(self) -> pl.DataFrame:
        return self.intents.filter(pl.col("short"))


def intake(manifest: SuiteManifest, traffic: Traffic, since: date, months: int) -> Intake | None:
    """The intake by intent over the `months` before the audit (cases added after `since`);
    None when the manifest sets no sampled intake."""
    per_month = manifest.quotas.sampled_per_month
    if per_month == 0:
        return None
    shares = dict(traffic.shares.select("intent", "share").iter_rows())
    quota = apportion(per_month * months, shares)
    draws = apportion(per_month, shares)
    added = dict(
        manifest.cases.filter(pl.col("added") > since).group_by("intent").len().iter_rows()
    )
    rows = [
        (intent, share, quota[intent], added.get(intent, 0), draws[intent])
        for intent, share in shares.items()
    ]
    frame = pl.DataFrame(
        rows,
        schema={
            "intent": pl.String,
            "share": pl.Float64,
            "quota": pl.Int64,
            "added": pl.Int64,
            "draws": pl.Int64,
        },
        orient="row",
    ).with_columns(short=pl.col("added") < pl.col("quota"))
    return Intake(per_month, months, frame.sort(["share", "intent"], descending=[True, False]))
