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

from dataclasses import dataclass

import polars as pl

from flipgate.core.runs.model import Run, drop_where

CHECK = "check"  # what a rule asks when it is a pass/fail check rather than a labelled decision


def definitions(run: Run) -> pl.DataFrame:
    """case, rule -> what the case asks on that rule over its gradable repetitions: its expected
    labels (`a|b` when the repetitions disagree), or `check` for a pass/fail check."""
    infra = run.reps.filter(pl.col("status") == "infra")["line"].implode()
    graded = pl.col("line").is_in(infra)
    # Distinct labels first, sorted, then joined per group: a group-by that sorts and dedupes
    # a list in every one of 400,000 groups took 1.7 times as long at 100,000 cases.
    labelled = (
        drop_where(run.decisions, graded)
        .select("case", "rule", "expected")
        .unique()
        .sort("case", "rule", "expected", nulls_last=True)
        .group_by("case", "rule", maintain_order=True)
        .agg(pl.col("expected").drop_nulls().str.join("|").alias("asks"))
    )
    checked = (
        drop_where(run.checks, graded)
        .select("case", "rule")
        .unique()
        .with_columns(asks=pl.lit(CHECK))
    )
    return pl.concat([labelled, checked.select(labelled.columns)]).unique(["case", "rule"])


def edited_cases(baseline: Run, candidate: Run) -> dict[str, list[str]]:
    """case graded in both arms -> what differs, rule by rule, in words; sorted by case."""
    base, cand = definitions(baseline), definitions(candidate)
    both = base.select("case").unique().join(cand.select("case").unique(), on="case")
    rules = (
        base.join(both, on="case")
        .join(
            cand.join(both, on="case"),
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
    safety = [
        run.reps.group_by("case").agg(pl.col("safety").first()) for run in (baseline, candidate)
    ]
    moved = (
        safety[0]
        .join(safety[1], on="case", suffix="_cand")
        .filter(pl.col("safety") != pl.col("safety_cand"))
    )
    for case, was in moved.select("case", "safety").iter_rows():
        edits.setdefault(case, []).append(
            f"safety: {'a safety case' if was else 'ordinary'} in the baseline, "
            f"{'ordinary' if was else 'a safety case'} in the candidate"
        )
    return dict(sorted(edits.items()))


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
    baseline: Run, candidate: Run, cases: pl.DataFrame, retired: frozenset[str] = frozenset()
) -> SuiteChanges:
    """Measured once per comparison from both runs and the paired table (pairing.py). A case
    the suite retired is no deletion: retiring is the reviewed way to take a case out."""
    gone = cases.filter(~pl.col("case").is_in(sorted(retired)))
    only = {
        arm: tuple(gone.filter(pl.col("unpaired") == f"only in {arm}")["case"].to_list())
        for arm in ("baseline", "candidate")
    }
    cached = {
        "candidate": cached_cases(candidate, safety_only=False),
        "baseline": cached_cases(baseline, safety_only=True),
    }
    return SuiteChanges(
        edited={case: tuple(whats) for case, whats in edited_cases(baseline, candidate).items()},
        deleted=only["baseline"],
        new=only["candidate"],
        cached={arm: found for arm, found in cached.items() if found},
    )
