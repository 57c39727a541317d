"""The judge's age and version history, audited on the cases' schedule (seed 002).

"Cases added in month 13 with a judge prompt written in month 1 inherit whatever that judge does
badly, and the judge's own version history has to be re-baselined on the same schedule as the
cases." The runs record their judge in the cache key (`key.judge`, SPEC §2), so the history of
runs is the judge's version history: each version, the days it judged between, and the suite
versions it judged. The suite is re-baselined each time its version moves; a judge version that
has judged more than one suite version was not re-baselined with the cases.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl

from flipgate.core.runs.model import Run
from flipgate.core.suite.manifest import MONTH, SuiteManifest
from flipgate.core.suite.workspace import version_of

JUDGE = "judge"  # the key component that names the judge
NO_JUDGE = "none"  # what a run with no judge writes there


@dataclass(frozen=True)
class JudgeVersion:
    version: str
    first: date | None  # the first run it judged
    last: date | None
    runs: int
    suite_versions: tuple[str, ...]  # the suite versions it judged, in the order first judged


@dataclass(frozen=True)
class JudgeHistory:
    as_of: date
    versions: tuple[JudgeVersion, ...]  # oldest first
    current: JudgeVersion  # the judge of today's run
    cases_after: int  # live cases written after the current judge's first run: they inherit it
    live: int

    @property
    def months(self) -> float | None:
        """The current judge's age, from its first run, in months."""
        first = self.current.first
        return None if first is None else (self.as_of - first).days / MONTH

    @property
    def behind(self) -> bool:
        """The cases were re-baselined (a new suite version) while the judge stayed as it was."""
        return len(self.current.suite_versions) > 1


def judge_history(
    runs: tuple[Run, ...], today: Run, manifest: SuiteManifest, as_of: date
) -> JudgeHistory | None:
    """The judge versions of `runs` (oldest first, today's last); None when today's run names no
    judge in its key (or names `none`)."""
    if today.key.get(JUDGE, NO_JUDGE) == NO_JUDGE:
        return None
    versions: dict[str, list[tuple[date | None, str | None]]] = {}
    for run in runs:
        if (judge := run.key.get(JUDGE)) is not None:
            day = run.created.date() if run.created else None
            versions.setdefault(judge, []).append((day, version_of(run)))

    def summary(name: str, seen: list[tuple[date | None, str | None]]) -> JudgeVersion:
        days = [day for day, _ in seen if day is not None]
        suites = tuple(dict.fromkeys(v for _, v in seen if v is not None))
        return JudgeVersion(
            name, min(days, default=None), max(days, default=None), len(seen), suites
        )

    history = sorted(
        (summary(name, seen) for name, seen in versions.items()),
        key=lambda v: (v.first is None, v.first or as_of, v.version),
    )
    current = next(v for v in history if v.version == today.key[JUDGE])
    after = (
        manifest.live.filter(pl.col("added") > current.first).height
        if current.first is not None
        else 0
    )
    return JudgeHistory(as_of, tuple(history), current, after, manifest.live.height)
