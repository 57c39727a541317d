"""What the change under test did to the suite itself (seed 001's FORBIDDEN list, SPEC §3.5 line 2).

The flip count is evidence only while both arms ran the same cases, graded the same way, live:

- a case **edited** between the arms (its expected labels, its safety flag, its set of rules and
  checks, its template) measures two different questions; a template is part of the case, since
  `clusters: template` counts each template once: a change that regroups the cases rewrites p;
- a case **deleted** (lines in the baseline, none in the candidate) takes its flip with it: a case
  that broke, deleted, is a regression no one counts;
- a **cached** repetition is a stored answer, not a measurement: never in the candidate, and never
  on a safety case in either arm.

A case only in the candidate is **new**: listed, not counted, until a rebaseline counts it.
Each case touched is an entry with a code (`vocab.ChangeCode`: `CaseEdited` and the rest), an edit a
`RuleEdit`, a `SafetyEdit` or a `TemplateEdit` (`vocab.EditCode`); `present/reasons/` words them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
import polars as pl

from flipgate.core.order import joined_on_case, natural_sort, natural_sorted
from flipgate.core.runs.model import Run, out_of_case_order, rep_rows
from flipgate.core.vocab import Arm, Asks, ChangeCode, EditCode

ONE_BIT = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))  # place -> its bit in a word
WORD_TYPES = (np.uint8, np.uint16, np.uint32, np.uint64)


@dataclass(frozen=True)
class Asked:
    """What one rule of a case asks in one arm, over its gradable repetitions."""

    asks: Asks
    labels: tuple[str, ...] = ()  # the expected labels, sorted: several when repetitions disagree


ABSENT = Asked("absent")


@dataclass(frozen=True)
class RuleEdit:
    """A rule of a case asks another question in the candidate: other expected labels, a
    pass/fail check where there were labels, or a rule one arm does not have."""

    code: ClassVar[EditCode] = "rule_changed"
    rule: str
    baseline: Asked
    candidate: Asked


@dataclass(frozen=True)
class SafetyEdit:
    """A case is a safety case in one arm and ordinary in the other."""

    code: ClassVar[EditCode] = "safety_changed"
    baseline: bool  # a safety case in the baseline
    candidate: bool


@dataclass(frozen=True)
class TemplateEdit:
    """A case belongs to another template in the candidate, or to one in a single arm."""

    code: ClassVar[EditCode] = "template_changed"
    baseline: str | None  # None: no template in that arm
    candidate: str | None


Edit = RuleEdit | SafetyEdit | TemplateEdit


def edited_cases(baseline: Questions, candidate: Questions) -> dict[str, tuple[Edit, ...]]:
    """case graded in both arms -> what differs, rule by rule, then its safety flag, then its
    template; by case.

    Most comparisons edit nothing, so the rules are compared only for the cases whose sets of
    questions (`Questions.asked`) differ, safety flags only on the cases that are a safety case in
    an arm, templates only on cases with one in an arm: comparing every case of 100,000 rule by
    rule took a second."""
    arms = (baseline, candidate)
    layout = Layout(
        rules=Runs.vocabulary(runs for arm in arms for runs in (arm.rules, arm.checks)),
        labels=Runs.vocabulary(arm.labels for arm in arms),
    )
    base, cand = (arm.asked(layout) for arm in arms)
    differs = joined_on_case(base, cand, "inner").filter(
        pl.any_horizontal(pl.col(word) != pl.col(f"{word}_cand") for word in layout.words)
    )
    edits: dict[str, list[Edit]] = {}
    if differs.height:
        for case, found in edited_rules(baseline.run, candidate.run, differs["case"]).items():
            edits[case] = list(found)
    for case, was in _moved_safety(baseline.run, candidate.run):
        edits.setdefault(case, []).append(SafetyEdit(was, not was))
    for case, template, moved_to in _moved_template(baseline.run, candidate.run):
        edits.setdefault(case, []).append(TemplateEdit(template, moved_to))
    return {case: tuple(edits[case]) for case in natural_sorted(edits)}


@dataclass(frozen=True)
class Runs:
    """A column as its runs of equal values. The readers write decisions rule by rule, so a
    rule column is a few runs, and its distinct values and codes cost a pass over the runs."""

    values: pl.Series
    lengths: np.ndarray

    @classmethod
    def of(cls, column: pl.Series) -> Runs:
        runs = column.rle().struct
        return cls(runs.field("value"), runs.field("len").cast(pl.Int64).to_numpy())

    @staticmethod
    def vocabulary(columns: Iterable[Runs]) -> tuple[str, ...]:
        """The values of every column, sorted, nulls left out."""
        return tuple(sorted(pl.concat([c.values for c in columns]).drop_nulls().unique()))

    def places(self, vocabulary: tuple[str, ...]) -> np.ndarray:
        """Each run's value as its place in `vocabulary`; a null is `len(vocabulary)`."""
        place = self.values.cast(pl.Enum(vocabulary)).to_physical().cast(pl.Int32)
        return place.fill_null(len(vocabulary)).to_numpy()

    @property
    def ends(self) -> np.ndarray:
        """The row after each run."""
        return np.cumsum(self.lengths)


def question_runs(
    rules: Runs, labels: Runs | None, layout: Layout
) -> tuple[np.ndarray, np.ndarray]:
    """(bit, rows) of each stretch of a table over which its rule and its expected label stay
    the same: where the two columns' runs end, merged (`labels` None: checks, each its rule's
    last bit). The bits are made per stretch and repeated once into the word each row ORs in:
    repeating each column's codes row by row first allocated four arrays of a million cases'
    12M decisions, and the kernel's time to hand over that memory was most of the step's."""
    width = layout.width
    if labels is None:
        return rules.places(layout.rules) * width + width - 1, rules.lengths
    rule_ends, label_ends = rules.ends, labels.ends
    # two sorted arrays merged (a stable sort of their concatenation is timsort's merge), then
    # each end once: `np.union1d` sorted them afresh, 1.4 s of CPU for 1.3M ends
    ends = np.concatenate([rule_ends, label_ends])
    ends.sort(kind="stable")
    ends = ends[np.diff(ends, prepend=-1) != 0]
    rule = rules.places(layout.rules)[np.searchsorted(rule_ends, ends)]
    label = labels.places(layout.labels)[np.searchsorted(label_ends, ends)]
    return rule * width + label, np.diff(ends, prepend=0)


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
        """The columns the bits take (one at least), each a word of `word_type`."""
        return [f"asks{i}" for i in range(max(1, -(-len(self.rules) * self.width // 64)))]

    @property
    def word_type(self) -> type[np.unsignedinteger[Any]]:
        """The narrowest unsigned integer that holds a word: a value of it is made for each
        decision (12M at a million cases), so a narrower one is less memory to allocate."""
        size = len(self.rules) * self.width
        return next(t for t in WORD_TYPES if size <= np.iinfo(t).bits or t is np.uint64)


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
        words; a case that nothing grades is absent. Two arms' sets are equal exactly when
        `definitions` finds them asking the same, and an OR per repetition, then per case, costs a pass where deduplicating
        the decisions sorts them."""
        if layout not in self._asked:
            self._asked[layout] = self._bits(layout)
        return self._asked[layout]

    def _bits(self, layout: Layout) -> pl.DataFrame:
        run, words, word = self.run, len(layout.words), layout.word_type
        one_bit = ONE_BIT[: np.iinfo(word).bits].astype(word)
        # each repetition's words side by side in one flat table, so that a question's word is
        # an offset and the OR of every decision into its repetition one 1-D `at`
        size = run.reps.height * words
        at = (rep_rows(run.reps) * words).astype(np.int32 if size < 2**31 else np.int64)
        bits = np.zeros(size, dtype=word)
        for table, labels in ((run.decisions, self.labels), (run.checks, None)):
            rules = self.rules if labels is not None else self.checks
            bit, rows = question_runs(rules, labels, layout)
            index = at[table["line"].to_numpy()]
            if words > 1:  # a shift and a mask: `divmod` by 64 took ten times as long
                index += np.repeat((bit >> 6).astype(index.dtype), rows)
            np.bitwise_or.at(bits, index, np.repeat(one_bit[bit & 63], rows))
        bits = bits.reshape(-1, words)
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
    `asks` (`labels`, or `check` for a pass/fail check; labels first, when a rule is both) and
    `labels`, its expected labels, sorted (several when the repetitions disagree)."""
    infra = run.reps.filter(pl.col("status") == "infra")["line"].implode()
    kept = pl.col("case").is_in(cases.implode()) & ~pl.col("line").is_in(infra)
    labelled = (
        run.decisions.filter(kept)
        .select("case", "rule", "expected")
        .unique()
        .sort("case", "rule", "expected", nulls_last=True)
        .group_by("case", "rule", maintain_order=True)
        .agg(pl.col("expected").drop_nulls().cast(pl.String).alias("labels"))
        .with_columns(asks=pl.lit("labels"))
    )
    checked = (
        run.checks.filter(kept)
        .select("case", "rule")
        .unique()
        .with_columns(labels=pl.lit([], dtype=pl.List(pl.String)), asks=pl.lit("check"))
    )
    return pl.concat([labelled, checked.select(labelled.columns)]).unique(
        ["case", "rule"], keep="first", maintain_order=True
    )


def edited_rules(baseline: Run, candidate: Run, cases: pl.Series) -> dict[str, list[RuleEdit]]:
    """case -> the rules that ask another question in the candidate, for `cases` (each graded
    in both arms), by rule."""
    rules = (
        definitions(baseline, cases)
        .join(
            definitions(candidate, cases),
            on=["case", "rule"],
            how="full",
            coalesce=True,
            suffix="_cand",
        )
        .filter(
            pl.col("asks").ne_missing(pl.col("asks_cand"))
            | pl.col("labels").ne_missing(pl.col("labels_cand"))
        )
        .sort("case", "rule")
    )
    edits: dict[str, list[RuleEdit]] = {}
    columns = ("case", "rule", "asks", "labels", "asks_cand", "labels_cand")
    for case, rule, was, was_labels, now, now_labels in rules.select(columns).iter_rows():
        edits.setdefault(case, []).append(
            RuleEdit(rule, _question(was, was_labels), _question(now, now_labels))
        )
    return edits


def _question(asks: Asks | None, labels: list[str] | None) -> Asked:
    return ABSENT if asks is None else Asked(asks, tuple(labels or ()))


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


def _moved_template(baseline: Run, candidate: Run) -> list[tuple[str, str | None, str | None]]:
    """(case, baseline template, candidate template) of the cases in both arms whose template
    differs, one arm's having none included, over their gradable repetitions (one all infra in an
    arm is unpaired, no edit). A run's check holds a case to one template."""
    base, cand = (_gradable_template(run.reps) for run in (baseline, candidate))
    moved = (
        joined_on_case(base, cand, "inner")
        .filter(pl.col("template").ne_missing(pl.col("template_cand")))
        .sort("case")
    )
    return list(moved.select("case", "template", "template_cand").iter_rows())


def _gradable_template(reps: pl.DataFrame) -> pl.DataFrame:
    """case -> its template over its gradable repetitions (null: none), for every case graded.
    Grouped in place when the run is written case by case: picking out the templated cases
    first (a set of a million ids, then a filter by it) took four times as long."""
    gradable = reps.select("case", "rep", "template").filter(reps["status"] != "infra")
    if not gradable.select(out_of_case_order().any()).item():
        gradable = gradable.with_columns(pl.col("case").set_sorted())
    return gradable.group_by("case").agg(pl.col("template").drop_nulls().first())


def cached_cases(run: Run, *, safety_only: bool) -> dict[str, tuple[int, int]]:
    """case -> (cached repetitions, repetitions) of the cases with a cached repetition."""
    reps = run.reps.filter(pl.col("safety")) if safety_only else run.reps
    if not reps["cached"].any():
        return {}
    per_case = natural_sort(
        reps.group_by("case")
        .agg(pl.col("cached").sum().alias("cached"), pl.len().alias("reps"))
        .filter(pl.col("cached") > 0)
    )
    return {case: (int(n), int(of)) for case, n, of in per_case.iter_rows()}


@dataclass(frozen=True)
class CaseEdited:
    code: ClassVar[ChangeCode] = "edited"
    case: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class CaseInOneArm:
    """A case with lines in the baseline only (`deleted`), or in the candidate only (`new`)."""

    code: Literal["deleted", "new"]
    case: str


@dataclass(frozen=True)
class CaseCached:
    code: ClassVar[ChangeCode] = "cached"
    case: str
    arm: Arm
    cached: int  # its cached repetitions
    reps: int  # of its repetitions


CaseChange = CaseEdited | CaseInOneArm | CaseCached
CASE_CHANGES: dict[ChangeCode, type[CaseChange]] = {
    "edited": CaseEdited,
    "deleted": CaseInOneArm,
    "new": CaseInOneArm,
    "cached": CaseCached,
}


@dataclass(frozen=True)
class SuiteChanges:
    """What the change under test did to the suite, as the verdict and the reports read it."""

    edited: dict[str, tuple[Edit, ...]]  # case -> what differs, rule by rule
    deleted: tuple[str, ...]  # lines in the baseline, none in the candidate
    new: tuple[str, ...]  # lines in the candidate only: listed, not counted
    cached: dict[Arm, dict[str, tuple[int, int]]]  # arm -> case -> (cached reps, reps)

    def edited_entries(self) -> tuple[CaseEdited, ...]:
        return tuple(CaseEdited(case, edits) for case, edits in self.edited.items())

    def cached_entries(self, arm: Arm) -> tuple[CaseCached, ...]:
        return tuple(
            CaseCached(case, arm, n, of) for case, (n, of) in self.cached.get(arm, {}).items()
        )

    def entries(self) -> tuple[CaseChange, ...]:
        """Every case the change touched, one entry per case and what: edited, deleted, new,
        then cached (the candidate's, then the baseline's safety cases)."""
        return (
            *self.edited_entries(),
            *(CaseInOneArm("deleted", case) for case in self.deleted),
            *(CaseInOneArm("new", case) for case in self.new),
            *(entry for arm in self.cached for entry in self.cached_entries(arm)),
        )


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
        state: tuple(gone.filter(pl.col("unpaired") == state)["case"].to_list())
        for state in ("deleted", "new")
    }
    cached: dict[Arm, dict[str, tuple[int, int]]] = {
        "candidate": cached_cases(candidate.run, safety_only=False),
        "baseline": cached_cases(baseline.run, safety_only=True),
    }
    return SuiteChanges(
        edited=edited_cases(baseline, candidate),
        deleted=only["deleted"],
        new=only["new"],
        cached={arm: found for arm, found in cached.items() if found},
    )
