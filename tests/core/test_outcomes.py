"""The outcome classifier on all nine label pairs, and the seed's listing-reviewer arithmetic."""

from __future__ import annotations

from itertools import product

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgate.core.gate.outcomes import (
    OutcomeSummary,
    classify,
    classify_frame,
    judge_decided,
    summarize,
)
from flipgate.core.gate.spec import GateSpec, default_spec
from flipgate.core.runs.model import Labels, decided_from_long
from flipgate.core.vocab import OUTCOMES

NINE = {
    ("approve", "approve"): "agreement",
    ("reject", "reject"): "agreement",
    ("escalate", "escalate"): "agreement",
    ("escalate", "approve"): "mirror",
    ("escalate", "reject"): "mirror",
    ("approve", "escalate"): "inconclusive",
    ("reject", "escalate"): "inconclusive",
    ("reject", "approve"): "false_negative",
    ("approve", "reject"): "false_positive",
}


def test_nine_pairs_exhaustively() -> None:
    labels = ("approve", "reject", "escalate")
    assert set(product(labels, labels)) == set(NINE)
    for (expected, actual), outcome in NINE.items():
        assert classify(expected, actual) == outcome


def test_vectorised_classifier_agrees_with_the_function() -> None:
    frame = pl.DataFrame(
        {
            "expected": [e for e, _ in NINE],
            "actual": [a for _, a in NINE],
            "case": list("abcdefghi"),
        }
    )
    classified = classify_frame(frame, Labels(), default_spec())
    assert classified["outcome"].cast(pl.String).to_list() == list(NINE.values())


def test_custom_labels() -> None:
    labels = Labels(negative="allow", positive="block", abstain="review")
    assert classify("block", "allow", labels) == "false_negative"
    assert classify("review", "block", labels) == "mirror"
    with pytest.raises(ValueError, match="unknown label"):
        classify("approve", "allow", labels)


def test_label_outside_three_is_an_error() -> None:
    with pytest.raises(ValueError):
        classify("approve", "maybe")


def test_mirror_priced_by_direction() -> None:
    spec = default_spec()
    frame = pl.DataFrame(
        {
            "case": ["a", "b"],
            "rep": [0, 0],
            "rule": ["prohibited_items", "prohibited_items"],
            "expected": ["escalate", "escalate"],
            "actual": ["approve", "reject"],
        }
    )
    classified = classify_frame(frame, Labels(), spec)
    assert classified["price"].to_list() == [400.0, 15.0]
    summary = _summary(frame, spec)
    assert (summary.mirror_approved, summary.mirror_rejected) == (1, 1)
    assert summary.cost == 415.0


def _summary(decisions: pl.DataFrame, spec: GateSpec) -> OutcomeSummary:
    """`summarize` on decisions one row each (case, rep, rule, expected, actual), each its own
    line: a repetition may hold a rule twice here."""
    numbered = decisions.with_columns(
        line=pl.int_range(1, pl.len() + 1, dtype=pl.Int64), reason=pl.lit(None, pl.String)
    )
    classified = classify_frame(numbered, Labels(), spec)
    per_case = classified.group_by("case").agg(
        pl.len().alias("decisions"), (pl.col("outcome") != "agreement").sum().alias("wrong")
    )
    judged = judge_decided(decided_from_long(numbered), Labels())
    return summarize(judged, Labels(), spec, per_case)


def _seed_frame(wrong_per_red_case: list[list[str]], cases: int, rules: int = 4) -> pl.DataFrame:
    """A one-rep run: red cases holding the given wrong outcomes, the rest agreements."""
    pairs = {v: k for k, v in NINE.items() if v != "agreement"}
    pairs["mirror_rejected"] = ("escalate", "reject")
    rows = []
    for i in range(cases):
        wrong = wrong_per_red_case[i] if i < len(wrong_per_red_case) else []
        for r in range(rules):
            expected, actual = pairs[wrong[r]] if r < len(wrong) else ("approve", "approve")
            rows.append(
                {"case": f"c{i}", "rep": 0, "rule": f"r{r}", "expected": expected, "actual": actual}
            )
    return pl.DataFrame(rows)


def test_seed_000_new_model_reconciles() -> None:
    # 33 red cases: 29 with one wrong decision, 3 with two, 1 with three (listing-071);
    # 2 FN, 3 FP, 30 inconclusive, 3 mirror (confident rejections) = 38 wrong decisions.
    singles = (
        [["false_negative"]] * 1
        + [["false_positive"]] * 3
        + [["mirror_rejected"]] * 3
        + [["inconclusive"]] * 22
    )
    doubles = [["inconclusive", "inconclusive"]] * 3
    triple = [["false_negative", "inconclusive", "inconclusive"]]
    frame = _seed_frame(singles + doubles + triple, cases=120)
    summary = _summary(frame, default_spec())
    assert summary.counts == {
        "agreement": 442,
        "false_negative": 2,
        "false_positive": 3,
        "inconclusive": 30,
        "mirror": 3,
    }
    assert summary.cost == 1010
    rec = summary.reconciliation
    assert (rec.red_cases, rec.wrong_decisions, rec.decisions) == (33, 38, 480)
    assert rec.red_by_wrong == {1: 29, 2: 3, 3: 1}
    assert rec.decisions_in_green_cases == 348 and rec.agreements_in_red_cases == 94


def test_seed_000_old_model_reconciles() -> None:
    singles = [["false_negative"]] * 7 + [["false_positive"]] * 4 + [["inconclusive"]] * 6
    doubles = [["false_negative", "inconclusive"]] * 2
    frame = _seed_frame(singles + doubles, cases=120)
    summary = _summary(frame, default_spec())
    assert summary.counts["agreement"] == 459
    assert (summary.counts["false_negative"], summary.counts["false_positive"]) == (9, 4)
    assert summary.counts["inconclusive"] == 8 and summary.counts["mirror"] == 0
    assert summary.cost == 3692
    assert summary.reconciliation.red_by_wrong == {1: 17, 2: 2}


label = st.sampled_from(["approve", "reject", "escalate"])


@given(st.lists(st.tuples(st.integers(0, 30), label, label), min_size=1, max_size=200))
def test_outcomes_add_up_to_the_decisions(decisions: list[tuple[int, str, str]]) -> None:
    frame = pl.DataFrame(
        {
            "case": [f"c{c}" for c, _, _ in decisions],
            "rep": [0] * len(decisions),
            "rule": ["r"] * len(decisions),
            "expected": [e for _, e, _ in decisions],
            "actual": [a for _, _, a in decisions],
        }
    )
    summary = _summary(frame, default_spec())
    assert sum(summary.counts[o] for o in OUTCOMES) == summary.decisions == len(decisions)
    assert summary.wrong == summary.reconciliation.wrong_decisions
    summary.reconciliation.check()


@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["r1", "r2"]), label, label), max_size=100
    )
)
def test_mirrors_and_the_reviewers_queue_are_the_plain_counts(
    decisions: list[tuple[int, str, str, str]],
) -> None:
    frame = pl.DataFrame(
        {
            "case": ["c"] * len(decisions),
            "rep": [rep for rep, _, _, _ in decisions],
            "rule": [rule for _, rule, _, _ in decisions],
            "expected": [e for _, _, e, _ in decisions],
            "actual": [a for _, _, _, a in decisions],
        },
        schema={"case": pl.String, "rep": pl.Int64, "rule": pl.String}
        | dict.fromkeys(("expected", "actual"), pl.String),
    )
    summary = _summary(frame, default_spec())
    mirrors = [(rule, a) for _, rule, e, a in decisions if e == "escalate" != a]
    approved = [rule for rule, a in mirrors if a == "approve"]
    escalated = [rep for rep, _, _, a in decisions if a == "escalate"]
    assert summary.mirror_approved == len(approved)
    assert summary.mirror_rejected == len(mirrors) - len(approved)
    assert summary.mirror_approved_by_rule == {r: approved.count(r) for r in sorted(set(approved))}
    assert summary.escalated == len(escalated)
    assert summary.queue == max((escalated.count(rep) for rep in escalated), default=0)
    assert summary.repetitions == len({rep for rep, _, _, _ in decisions})
