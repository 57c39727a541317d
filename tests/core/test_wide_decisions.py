"""The decisions as read, a row per repetition and a column per rule (issue 25 item 1): the gate's
steps on them give what a plain count over the decisions one row each gives, and `flipgate gate`
never makes the rows one per decision."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from flipgate.cli import main
from flipgate.core.gate import collapse
from flipgate.core.gate import compare as compare_module
from flipgate.core.gate.compare import compare, judge_arm
from flipgate.core.gate.excess import false_negative_test, mirror_approval_tests
from flipgate.core.gate.outcomes import SEVERITY, classify
from flipgate.core.gate.spec import GateSpec, default_spec
from flipgate.core.runs import model
from flipgate.core.runs.model import Run, decided_from_long, long_decisions
from flipgate.core.runs.reading import load_run, run_from_records
from flipgate.core.vocab import ARMS
from tests.conftest import copy_sample, write_run

LABELS = ("approve", "reject", "escalate")
KEY = {"model": "m1", "prompt": "p1"}


def _records(rng: np.random.Generator, rules: tuple[str, ...]) -> list[dict[str, Any]]:
    """A random run: rules missing on some lines, abstentions, infra repetitions (a decision
    half-written on some), checks-only lines, cases with uneven repetitions."""
    rows: list[dict[str, Any]] = []
    for case in range(int(rng.integers(1, 14))):
        for rep in range(int(rng.integers(1, 4))):
            row: dict[str, Any] = {"case": f"case-{case:02}", "rep": rep}
            kind = rng.random()
            if kind < 0.15:
                row |= {"status": "infra", "infra": "timeout"}
                if rng.random() < 0.5:  # a half-written decision: no error on an infra line
                    row["expected"] = {rules[0]: "approve"}
            elif kind < 0.25:
                row["passed"] = {"format": bool(rng.random() < 0.7)}
            else:
                held = [rule for rule in rules if rng.random() < 0.75] or [rules[0]]
                row["expected"] = {rule: str(rng.choice(LABELS)) for rule in held}
                row["actual"] = {rule: str(rng.choice(LABELS)) for rule in held}
                row["reasons"] = {held[0]: "because"}
                if rng.random() < 0.2:
                    row["passed"] = {"format": bool(rng.random() < 0.7)}
            rows.append(row)
    return rows


def _runs(tmp_path: Path, seed: int, columnar: bool) -> tuple[Run, Run]:
    """Two arms; the candidate has a rule the baseline lacks."""
    rng = np.random.default_rng(seed)
    arms = {"base": ("r1", "r2"), "cand": ("r1", "r2", "r3")}
    found = []
    for name, rules in arms.items():
        rows = _records(rng, rules)
        if columnar:
            found.append(load_run(write_run(tmp_path / name, rows, run_id=name, key=KEY)))
        else:
            manifest = {"run_id": name, "key": KEY}
            found.append(run_from_records(manifest, rows, source=tmp_path / name))
    return found[0], found[1]


def _plain_reps(run: Run) -> dict[int, tuple[int, int, int, float, bool]]:
    """line -> (worst rank, decisions, wrong, cost, failed) from the decisions one row each."""
    spec = default_spec()
    infra = set(run.reps.filter(pl.col("status") == "infra")["line"])
    found: dict[int, list[Any]] = {}
    for _, _, _, expected, actual, _, line in run.decisions.iter_rows():
        if line in infra:
            continue
        outcome = classify(expected, actual)
        price = spec.price(outcome)
        if outcome == "mirror":
            price = spec.price("false_negative" if actual == "approve" else "false_positive")
        rank, n, wrong, cost, failed = found.setdefault(line, [len(SEVERITY), 0, 0, 0.0, False])
        found[line] = [
            min(rank, SEVERITY.index(outcome)),
            n + 1,
            wrong + (outcome != "agreement"),
            cost + price,
            failed or outcome in spec.fail_on,
        ]
    for line, passed in run.checks.select("line", "passed").iter_rows():
        if not passed:
            found.setdefault(line, [len(SEVERITY), 0, 0, 0.0, False])[4] = True
    return {line: tuple(values) for line, values in found.items()}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("columnar", [True, False])
def test_each_repetition_and_the_outcomes_are_the_plain_counts(
    tmp_path: Path, seed: int, columnar: bool
) -> None:
    spec = default_spec()
    for run in _runs(tmp_path, seed, columnar):
        judged = judge_arm("candidate", run, spec)
        plain = _plain_reps(run)
        for line, status, decisions, wrong, rank, cost, passed in judged.reps.select(
            "line", "status", "decisions", "wrong", "worst_rank", "cost", "passed"
        ).iter_rows():
            if status == "infra":
                assert passed is None
                continue
            want = plain.get(line, (len(SEVERITY), 0, 0, 0.0, False))
            assert (rank, decisions, wrong, passed) == (want[0], want[1], want[2], not want[4])
            assert cost == pytest.approx(want[3])
        classified = judged.decisions  # the long view, classified
        outcomes = judged.outcomes
        counts = Counter(classified["outcome"].cast(pl.String))
        assert {outcome: n for outcome, n in outcomes.counts.items() if n} == dict(counts)
        assert outcomes.cost == pytest.approx(classified["price"].sum())
        mirrors = classified.filter(pl.col("outcome") == "mirror")
        approved = mirrors.filter(pl.col("actual") == "approve")
        assert outcomes.mirror_approved == approved.height
        assert outcomes.mirror_rejected == mirrors.height - approved.height
        assert outcomes.mirror_approved_by_rule == dict(
            Counter(approved["rule"].cast(pl.String)).most_common()
        )
        fn = classified.filter(pl.col("outcome") == "false_negative")
        assert outcomes.false_negatives_by_rule == dict(Counter(fn["rule"].cast(pl.String)))
        escalated = Counter(classified.filter(pl.col("actual") == "escalate")["rep"])
        assert (outcomes.escalated, outcomes.queue) == (
            sum(escalated.values()),
            max(escalated.values(), default=0),
        )
        assert outcomes.repetitions == classified["rep"].n_unique()
        assert outcomes.rules == tuple(sorted(set(classified["rule"].cast(pl.String))))


def _plain_matched_count(comparison: Any, count: Any) -> tuple[int, int]:
    """(baseline, candidate) of the decisions `count` counts, on the paired cases' matched
    repetitions (each case's first min(n_baseline, n_candidate) gradable ones), row by row."""
    paired = set(comparison.cases.filter(pl.col("unpaired").is_null())["case"])
    graded = {
        arm: {
            case: sorted(reps)
            for case, reps in comparison.reps[arm]
            .filter(pl.col("status") == "ok")
            .group_by("case")
            .agg("rep")
            .iter_rows()
        }
        for arm in ("baseline", "candidate")
    }
    totals = []
    for arm, other in (("baseline", "candidate"), ("candidate", "baseline")):
        total = 0
        for case in paired:
            mine, theirs = graded[arm].get(case, []), graded[other].get(case, [])
            matched = set(mine[: min(len(mine), len(theirs))])
            rows = comparison.decisions[arm].filter(
                (pl.col("case") == case) & pl.col("rep").is_in(sorted(matched))
            )
            total += sum(count(row) for row in rows.iter_rows(named=True))
        totals.append(total)
    return totals[0], totals[1]


@pytest.mark.parametrize("seed", range(8))
def test_the_tests_against_the_noise_count_what_a_plain_count_counts(
    tmp_path: Path, seed: int
) -> None:
    baseline, candidate = _runs(tmp_path, seed, columnar=True)
    spec = default_spec()
    comparison = compare(baseline, candidate, spec)
    paired = comparison.cases.filter(pl.col("unpaired").is_null()).select(
        "case", cluster=pl.col("case")
    )
    judged: dict[str, pl.DataFrame] = {
        arm: found.judged for arm, found in zip(ARMS, comparison.judged, strict=True)
    }
    fn = false_negative_test(comparison.reps, judged, paired)
    plain = _plain_matched_count(comparison, lambda row: row["outcome"] == "false_negative")
    assert (fn.baseline, fn.candidate) == plain
    tests = mirror_approval_tests(comparison.reps, judged, paired, ("escalate", "approve"))
    borderline = {
        rule
        for arm in ("baseline", "candidate")
        for rule in comparison.decisions[arm]
        .filter(pl.col("expected") == "escalate")["rule"]
        .cast(pl.String)
    }
    assert set(tests) == borderline
    for rule, found in tests.items():

        def approval(row: dict[str, Any], rule: str = rule) -> bool:
            found = (row["rule"], row["outcome"], row["actual"])
            return bool(found == (rule, "mirror", "approve"))

        assert (found.baseline, found.candidate) == _plain_matched_count(comparison, approval)


@pytest.mark.parametrize("seed", range(6))
def test_the_long_view_round_trips_through_the_wide_frame(tmp_path: Path, seed: int) -> None:
    """Decisions one row each made wide (`decided_from_long`) and long again are the same rows."""
    for run in _runs(tmp_path, seed, columnar=True):
        again = long_decisions(decided_from_long(run.decisions))
        key = ["line", "rule"]
        assert again.sort(key).rows() == run.decisions.sort(key).rows()
        assert again.schema == run.decisions.schema


def test_the_gate_never_makes_the_decisions_one_row_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`flipgate gate` reads the decisions as read: neither a run's decisions one row each nor
    the classified ones are made, on its text and its JSON report, with both tests against the
    noise and a zero-false-negative rule on."""
    workspace = copy_sample("listing-reviewer", tmp_path / "ws")
    gate = workspace / "gate.yaml"
    text = gate.read_text()
    assert "false_negative_max: baseline" in text
    gate.write_text(
        text.replace(
            "false_negative_max: baseline",
            "false_negative_max: baseline\n    mirror_approved_max: baseline",
            1,
        )
    )
    made: list[int] = []
    real = model.long_decisions

    def counted(decided: pl.DataFrame) -> pl.DataFrame:
        made.append(decided.height)
        return real(decided)

    monkeypatch.setattr(model, "long_decisions", counted)
    real_classified = collapse.classified_decisions

    def classified(run: Run, spec: GateSpec) -> pl.DataFrame:
        made.append(-1)
        return real_classified(run, spec)

    monkeypatch.setattr(compare_module, "classified_decisions", classified)
    for form in ("json", "text"):
        main(["gate", str(workspace), "--format", form])
        out, _ = capsys.readouterr()
        assert out.strip()
    assert made == []
