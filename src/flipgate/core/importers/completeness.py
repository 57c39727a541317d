"""Whether an imported run finished, and per case how many repetitions it holds of those planned.

Every importer states it from the log's own structure: Inspect's `status` and each sample's
`epochs` over `dataset.sample_ids`, promptfoo's tests x prompts x providers x `repeat` against
its rows, lm-eval's `n-samples` against its documents. The run carries it as data, in
`run.yaml`'s `completeness` (written by `Completeness.to_manifest`, read back by
`Completeness.from_manifest`), so a run written by `flipgate import` keeps it:

```yaml
completeness:
  finished: false          # true, false, or null when the tool's log does not say
  status: error            # the tool's own word for how the run ended
  detail: "RuntimeError('help desk returned HTTP 500')"   # the tool's message, when it gave one
  totals: {expected: 24, present: 4, errored: 2, excluded: 0, missing: 20}
  cases:                   # only the cases not whole: a repetition errored, excluded or missing
    "3": {expected: 3, present: 1, errored: 1, excluded: 0, missing: 2}
    "9": {expected: 3, present: 0, errored: 0, excluded: 0, missing: 3}
  exclusions:              # who took a repetition out of the measurement, and why
    - {case: "20", rep: 0, by: qa@example.com, reason: ticket text leaked the answer, at: ...}
```

For each case, `expected = present + excluded + missing`; `errored` counts the present
repetitions that are infra (an error, a time limit). A case of the run not listed under `cases`
is whole: its repetitions are all present and none errored. A case listed with `present: 0`
has no line in the results at all: it is known only from here.

This module imports pydantic: import it where a run's completeness is needed, not at start-up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import Field

from flipgate.core.importers.schema import Model, read_value

MANIFEST_KEY = "completeness"
# The status of a run whose tool states none: nothing planned is missing, or (the plan being
# only what the log holds) nothing seen is missing.
COMPLETE, NOT_STATED = "complete", "not stated"


@dataclass(frozen=True)
class Tally:
    """The repetitions of one case, or of a whole run."""

    expected: int
    present: int
    errored: int = 0
    excluded: int = 0

    @property
    def missing(self) -> int:
        return max(0, self.expected - self.present - self.excluded)

    @property
    def whole(self) -> bool:
        return self.missing == 0 and self.excluded == 0 and self.errored == 0

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "missing": self.missing}


@dataclass(frozen=True)
class Exclusion:
    """A repetition taken out of the measurement after the run, with who did it and why."""

    case: str
    rep: int
    by: str | None = None
    reason: str | None = None
    at: str | None = None


@dataclass(frozen=True)
class Completeness:
    finished: bool | None  # None: the tool's log does not say
    status: str  # the tool's own word for how the run ended
    totals: Tally
    cases: Mapping[str, Tally] = field(default_factory=dict)  # the cases not whole, by id
    exclusions: tuple[Exclusion, ...] = ()
    detail: str | None = None  # the tool's message on how the run ended

    def to_manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"finished": self.finished, "status": self.status}
        if self.detail:
            out["detail"] = self.detail
        out["totals"] = self.totals.as_dict()
        if self.cases:
            out["cases"] = {case: tally.as_dict() for case, tally in self.cases.items()}
        if self.exclusions:
            out["exclusions"] = [
                {k: v for k, v in asdict(e).items() if v is not None} for e in self.exclusions
            ]
        return out

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any], path: Path) -> Completeness | None:
        """The `completeness` of a run.yaml (None when it has none); a malformed one is an
        InputError naming its field."""
        value = manifest.get(MANIFEST_KEY)
        if value is None:
            return None
        return read_value(_Stated, value, path, MANIFEST_KEY).completeness()


def account(
    records: Iterable[Mapping[str, Any]],
    planned: Mapping[str, int],
    *,
    finished: bool | None,
    status: str,
    detail: str | None = None,
    exclusions: Iterable[Exclusion] = (),
) -> Completeness:
    """Tally `records` (results.jsonl records) against `planned` (case -> repetitions planned).

    A case with records but no plan was planned as it ran (its own count); repetitions excluded
    count towards their case's plan."""
    exclusions = tuple(exclusions)
    present: Counter[str] = Counter()
    errored: Counter[str] = Counter()
    for record in records:
        present[record["case"]] += 1
        if record.get("status") == "infra":
            errored[record["case"]] += 1
    excluded = Counter(e.case for e in exclusions)
    cases: dict[str, Tally] = {}
    expected_total = 0
    for case in dict.fromkeys([*planned, *present, *excluded]):
        expected = max(planned.get(case, 0), present[case] + excluded[case])
        expected_total += expected
        tally = Tally(expected, present[case], errored[case], excluded[case])
        if not tally.whole:
            cases[case] = tally
    totals = Tally(
        expected_total, sum(present.values()), sum(errored.values()), sum(excluded.values())
    )
    return Completeness(finished, status, totals, cases, exclusions, detail)


def by_plan(
    records: Iterable[Mapping[str, Any]],
    planned: Mapping[str, int],
    *,
    plan_known: bool,
    when_missing: str,
) -> Completeness:
    """For a tool that states no status: the run finished when nothing planned is missing;
    when the plan is only what the log holds (`plan_known` false), a run missing nothing may
    still have lost whole cases, so whether it finished is not known."""
    tally = account(records, planned, finished=None, status=NOT_STATED)
    lost = tally.totals.missing > 0
    finished = False if lost else (True if plan_known else None)
    status = when_missing if lost else (COMPLETE if finished else NOT_STATED)
    return replace(tally, finished=finished, status=status)


# --- reading a stated completeness back (the ledger reads run.yaml through this) -------------


class _StatedTally(Model):
    expected: int = Field(ge=0)
    present: int = Field(ge=0)
    errored: int = Field(default=0, ge=0)
    excluded: int = Field(default=0, ge=0)
    missing: int | None = Field(default=None, ge=0)  # derived; written for the reader's sake

    def tally(self) -> Tally:
        return Tally(self.expected, self.present, self.errored, self.excluded)


class _StatedExclusion(Model):
    case: str
    rep: int = Field(ge=0)
    by: str | None = None
    reason: str | None = None
    at: str | None = None


class _Stated(Model):
    finished: bool | None
    status: str
    detail: str | None = None
    totals: _StatedTally
    cases: dict[str, _StatedTally] = {}
    exclusions: list[_StatedExclusion] = []

    def completeness(self) -> Completeness:
        return Completeness(
            self.finished,
            self.status,
            self.totals.tally(),
            {case: tally.tally() for case, tally in self.cases.items()},
            tuple(Exclusion(**e.model_dump()) for e in self.exclusions),
            self.detail,
        )
