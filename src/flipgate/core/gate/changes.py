"""What the change under test did to the suite itself (seed 001's FORBIDDEN list, SPEC §3.5 line 2).

The flip count is evidence only while both arms ran the same cases, graded the same way, live:

- a case **edited** between the arms (its expected labels, its safety flag, its set of rules and
  checks) measures two different questions;
- a case **deleted** (lines in the baseline, none in the candidate) takes its flip with it: a case
  that broke, deleted, is a regression no one counts;
- a **cached** repetition is a stored answer, not a measurement: never in the candidate, and never
  on a safety case in either arm.

A case only in the candidate is **new**: listed, not counted, until a rebaseline counts it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from flipgate.core.runs.model import Run, out_of_case_order, rep_rows

CHECK = "check"  # what a rule asks when it is a pass/fail check rather than a labelled decision
ONE_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # place -> its bit in a word


def edited_cases(baseline: Questions, candidate: Questions) -> dict[str, list[str]]:
    """case graded in both arms -> what differs, rule by rule, in words; sorted by case.

    Most comparisons edit nothing, so the words are found only for the cases whose sets of
    questions (`Questions.asked`) differ, and safety flags compared only on the cases that are a
    safety case in an arm: wording every case of 100,000 took a second."""
    arms = (baseline, candidate)
    layout = Layout(
        rules=Runs.vocabulary(runs for arm in arms for runs in (arm.rules, arm.checks)),
        labels=Runs.vocabulary(arm.labels for arm in arms),
    )
    base, cand = (arm.asked(layout) for arm in arms)
    differs = base.join(cand, on="case", suffix="_cand").filter(
        pl.any_horizontal(pl.col(word) != pl.col(f"{word}_cand") for word in layout.words)
    )
    edits = edited_rules(baseline.run, candidate.run, differs["case"]) if differs.height else {}
    for case, was in _moved_safety(baseline.run, candidate.run):
        edits.setdefault(case, []).append(
            f"safety: {'a safety case' if was else 'ordinary'} in the baseline, "
            f"{'ordinary' if was else 'a safety case'} in the candidate"
        )
    return dict(sorted(edits.items()))


@dataclass(frozen=True)
class Runs:
    """A column as its runs of equal values. The readers write decisions rule by rule, so a
    rule column is a few runs, and its distinct values and codes cost a pass over the runs."""

    values: pl.Series
    lengths: np.ndarray

    @classmethod
    def of(cls, column: pl.Series) -> Runs:
        runs = column.rle().struct
        return cls(runs.field("value"), runs.field("len").to_numpy())

    @staticmethod
    def vocabulary(columns: Iterable[Runs]) -> tuple[str, ...]:
        """The values of every column, sorted, nulls left out."""
        return tuple(sorted(pl.concat([c.values for c in columns]).drop_nulls().unique()))

    def codes(self, vocabulary: tuple[str, ...]) -> np.ndarray:
        """Each row's value as its place in `vocabulary`; a null is `len(vocabulary)`."""
        place = self.values.cast(pl.Enum(vocabulary)).to_physical().cast(pl.Int32)
        return np.repeat(place.fill_null(len(vocabulary)).to_numpy(), self.lengths)


@dataclass(frozen=True)
class Layout:
    """Where each question has its bit, the same in both arms: rule by rule, one bit per
    expected label, one for a decision with no expected label, one for a pass/fail check."""

    rules: tuple[str, ...]
    labels: tuple[str, ...]

    @property
    def width(self) -> int:
        return len(self.labels) + 2

    @property
    def words(self) -> list[str]:
        """The 64-bit columns the bits take (one at least)."""
        return [f"asks{i}" for i in range(max(1, -(-len(self.rules) * self.width // 64)))]


@dataclass(frozen=True, eq=False)
class Questions:
    """What one arm's lines ask: its decisions' rules and expected labels, its checks' rules.
    Made once per arm with its judgement (compare.judge_arm), so that a ranking compares the
    incumbent's questions with each candidate's without finding them again."""

    run: Run
    rules: Runs
    labels: Runs
    checks: Runs
    _asked: dict[Layout, pl.DataFrame] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def of(cls, run: Run) -> Questions:
        decisions = run.decisions
        return cls(
            run,
            Runs.of(decisions["rule"]),
            Runs.of(decisions["expected"]),
            Runs.of(run.checks["rule"]),
        )

    def asked(self, layout: Layout) -> pl.DataFrame:
        """case -> what it asks over its gradable repetitions, as a set of bits in `layout`'s
        words; a case that nothing grades is absent. Equal sets are worded alike by
        `definitions`, and an OR per repetition, then per case, costs a pass where deduplicating
        the decisions sorts them."""
        if layout not in self._asked:
            self._asked[layout] = self._bits(layout)
        return self._asked[layout]

    def _bits(self, layout: Layout) -> pl.DataFrame:
        run, width = self.run, layout.width
        at = rep_rows(run.reps)
        bits = np.zeros((run.reps.height, len(layout.words)), dtype=np.uint64)
        decided: np.ndarray = self.rules.codes(layout.rules) * width
        checked: np.ndarray = self.checks.codes(layout.rules) * width + width - 1
        for lines, bit in (
            (run.decisions["line"], decided + self.labels.codes(layout.labels)),
            (run.checks["line"], checked),
        ):
            word, place = np.divmod(bit, 64)
            np.bitwise_or.at(bits, (at[lines.to_numpy()], word), ONE_BIT[place])
        gradable = (
            run.reps.select("case", "rep", "status")
            .with_columns(pl.Series(word, bits[:, i]) for i, word in enumerate(layout.words))
            .filter(pl.col("status") != "infra")
        )
        if not gradable.select(out_of_case_order().any()).item():
            gradable = gradable.with_columns(pl.col("case").set_sorted())  # grouped, not hashed
        return (
            gradable.group_by("case")
            .agg(pl.col(word).bitwise_or() for word in layout.words)
            .filter(pl.any_horizontal(pl.col(word) != 0 for word in layout.words))
        )


def definitions(run: Run, cases: pl.Series) -> pl.DataFrame:
    """case, rule -> what the case asks on that rule over its gradable repetitions, for `cases`:
    its expected labels (`a|b` when the repetitions disagree), or `check` for a pass/fail check
    (labels first, when a rule is both)."""
    infra = run.reps.filter(pl.col("status") == "infra")["line"].implode()
    kept = pl.col("case").is_in(cases.implode()) & ~pl.col("line").is_in(infra)
    labelled = (
        run.decisions.filter(kept)
        .select("case", "rule", "expected")
        .unique()
        .sort("case", "rule", "expected", nulls_last=True)
        .group_by("case", "rule", maintain_order=True)
        .agg(pl.col("expected").drop_nulls().str.join("|").alias("asks"))
    )
    checked = (
        run.checks.filter(kept).select("case", "rule").unique().with_columns(asks=pl.lit(CHECK))
    )
    return pl.concat([labelled, checked.select(labelled.columns)]).unique(
        ["case", "rule"], keep="first", maintain_order=True
    )


def edited_rules(baseline: Run, candidate: Run, cases: pl.Series) -> dict[str, list[str]]:
    """case -> what differs on its rules, in words, for `cases` (each graded in both arms)."""
    rules = (
        definitions(baseline, cases)
        .join(
            definitions(candidate, cases),
            on=["case", "rule"],
            how="full",
            coalesce=True,
            suffix="_cand",
        )
        .filter(pl.col("asks").ne_missing(pl.col("asks_cand")))
        .sort("case", "rule")
    )
    edits: dict[str, list[str]] = {}
    for case, rule, was, now in rules.select("case", "rule", "asks", "asks_cand").iter_rows():
        now_words = _asks(now)
        if _asks(was).startswith("expected") and now_words.startswith("expected"):
            now_words = now_words.removeprefix("expected ")  # `expected approve ..., reject ...`
        edits.setdefault(case, []).append(
            f"{rule}: {_asks(was)} in the baseline, {now_words} in the candidate"
        )
    return edits


def _moved_safety(baseline: Run, candidate: Run) -> list[tuple[str, bool]]:
    """(case, its baseline flag) of the cases in both arms whose safety flag differs. Only a case
    with a safety repetition in an arm can differ: the rest are ordinary in both."""
    arms = (baseline, candidate)
    flagged = pl.concat([run.reps.filter(pl.col("safety"))["case"] for run in arms]).implode()
    safety = [
        run.reps.filter(pl.col("case").is_in(flagged))
        .group_by("case")
        .agg(pl.col("safety").first())
        for run in arms
    ]
    moved = (
        safety[0]
        .join(safety[1], on="case", suffix="_cand")
        .filter(pl.col("safety") != pl.col("safety_cand"))
    )
    return list(moved.select("case", "safety").iter_rows())


def _asks(what: str | None) -> str:
    if what is None:
        return "absent"
    if what == CHECK:
        return "a pass/fail check"
    return f"expected {' or '.join(what.split('|'))}"


def cached_cases(run: Run, *, safety_only: bool) -> dict[str, tuple[int, int]]:
    """case -> (cached repetitions, repetitions) of the cases with a cached repetition."""
    reps = run.reps.filter(pl.col("safety")) if safety_only else run.reps
    if not reps["cached"].any():
        return {}
    per_case = (
        reps.group_by("case")
        .agg(pl.col("cached").sum().alias("cached"), pl.len().alias("reps"))
        .filter(pl.col("cached") > 0)
        .sort("case")
    )
    return {case: (int(n), int(of)) for case, n, of in per_case.iter_rows()}


@dataclass(frozen=True)
class SuiteChanges:
    """What the change under test did to the suite, as the verdict and the reports read it."""

    edited: dict[str, tuple[str, ...]]  # case -> what differs, rule by rule
    deleted: tuple[str, ...]  # lines in the baseline, none in the candidate
    new: tuple[str, ...]  # lines in the candidate only: listed, not counted
    cached: dict[str, dict[str, tuple[int, int]]]  # arm -> case -> (cached reps, reps)


def suite_changes(
    baseline: Questions,
    candidate: Questions,
    cases: pl.DataFrame,
    retired: frozenset[str] = frozenset(),
) -> SuiteChanges:
    """Measured once per comparison from both arms' questions (their runs with them) and the
    paired table (pairing.py). A case the suite retired is no deletion: retiring is the reviewed
    way to take a case out."""
    gone = cases.filter(~pl.col("case").is_in(sorted(retired)))
    only = {
        arm: tuple(gone.filter(pl.col("unpaired") == f"only in {arm}")["case"].to_list())
        for arm in ("baseline", "candidate")
    }
    cached = {
        "candidate": cached_cases(candidate.run, safety_only=False),
        "baseline": cached_cases(baseline.run, safety_only=True),
    }
    return SuiteChanges(
        edited={case: tuple(whats) for case, whats in edited_cases(baseline, candidate).items()},
        deleted=only["baseline"],
        new=only["candidate"],
        cached={arm: found for arm, found in cached.items() if found},
    )
