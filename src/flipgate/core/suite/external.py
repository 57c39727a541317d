"""External calibration (seed 002's fourth diagnostic): what comparable teams adopted, beside what
our suite says of it.

"If a candidate has been adopted widely by teams doing similar work, and your suite says it is
worse, your suite should be able to explain the discrepancy in specific terms ... An unexplained
divergence from everyone else is not proof you are wrong, and it is a strong prompt to go and
look." And "the external calibration needs a record of what you read and when": `external.yaml`.

    records:
      - system: candidate-2026-04      # as the runs' key.model names it
        read: 2026-05-02               # the day it was read
        source: three support teams we compared notes with run it in production
        explanation: our suite has 1 multi-turn case where 22% of traffic is multi-turn

Our suite says a system is worse when a signed decision rejected a run of it, or when its newest
run scored below the incumbent's newest run on the same suite version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

import polars as pl

from flipgate.core.suite.fields import load_mapping

EXTERNAL = "external.yaml"
RECORD_FIELDS = ("system", "read", "source", "explanation")
# What our suite says of a system teams adopted: the same, otherwise (with the reason written
# down or not), or nothing (no run of it here).
Standing = Literal["agrees", "explained", "unexplained", "not_run"]


@dataclass(frozen=True)
class Adoption:
    """One record: a system others adopted, when and where it was read, and our explanation."""

    system: str
    read: date
    source: str
    explanation: str | None


def load_external(path: Path) -> tuple[Adoption, ...]:
    data, check = load_mapping(path, ("records",), "external calibration has `records`")
    records = data.get("records")
    if not isinstance(records, list) or not records:
        raise check.bad("records", "a list of records: {system, read, source, explanation}")
    adoptions = []
    for i, raw in enumerate(records):
        at = f"records.{i}"
        record = check.mapping(raw, at, RECORD_FIELDS)
        explanation = record.get("explanation")
        adoptions.append(
            Adoption(
                check.text(record.get("system"), f"{at}.system"),
                check.day(record.get("read"), f"{at}.read"),
                check.text(record.get("source"), f"{at}.source"),
                None if explanation is None else check.text(explanation, f"{at}.explanation"),
            )
        )
    return tuple(adoptions)


@dataclass(frozen=True)
class Calibration:
    """One adoption against our suite's view of the system."""

    adoption: Adoption
    rejected: tuple[str, ...]  # its runs that a signed decision rejected
    run_id: str | None  # its newest run
    score: float | None
    incumbent_run: str | None  # the incumbent's newest run on the same suite version
    incumbent_score: float | None

    @property
    def worse(self) -> bool:
        below = (
            self.score is not None
            and self.incumbent_score is not None
            and self.score < self.incumbent_score
        )
        return bool(self.rejected) or below

    @property
    def standing(self) -> Standing:
        if self.run_id is None:
            return "not_run"
        if not self.worse:
            return "agrees"
        return "explained" if self.adoption.explanation else "unexplained"


def calibrate(
    adoptions: tuple[Adoption, ...],
    verdicts: pl.DataFrame,
    rejected: frozenset[str],
    incumbent: str | None,
    as_of: date,
) -> tuple[Calibration, ...]:
    """Each record read by `as_of` against `verdicts` (the history's, one row per run and case)
    and `rejected`, the candidate runs signed decisions rejected; `incumbent`: the system of
    today's run."""
    runs = (
        verdicts.group_by("run_id", "system", "version", "created", maintain_order=True)
        .agg(score=pl.col("passed").mean())
        .sort("created", nulls_last=False, maintain_order=True)
    )
    found = []
    for adoption in (a for a in adoptions if a.read <= as_of):
        own = runs.filter(pl.col("system") == adoption.system)
        newest = own.row(own.height - 1, named=True) if own.height else None
        against = None
        if newest is not None and incumbent is not None:
            same = runs.filter(
                (pl.col("system") == incumbent) & (pl.col("version") == newest["version"])
            )
            against = same.row(same.height - 1, named=True) if same.height else None
        found.append(
            Calibration(
                adoption,
                tuple(r for r in own["run_id"].to_list() if r in rejected),
                None if newest is None else newest["run_id"],
                None if newest is None else newest["score"],
                None if against is None else against["run_id"],
                None if against is None else against["score"],
            )
        )
    return tuple(found)
