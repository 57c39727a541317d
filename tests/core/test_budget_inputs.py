"""Budgets on inputs the first rounds did not try (issue 28): a metric named as the team likes
(item 11: a name polars or a regular expression would read as a pattern, `a(b`, `*`, `^$`, `[x`,
is a name), a metric below zero (item 2), an arm that measures nothing (item 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run
from tests.core.test_guards import BASE_LATENCY, metric_rows, run, spec_from


@pytest.mark.parametrize("name", ["a(b", "*", "^$", "^a$", "[x", "é\\", "a.b"])
@pytest.mark.parametrize("worse", [False, True])
def test_a_metric_named_like_a_pattern_is_read_as_its_name(
    tmp_path: Path, name: str, worse: bool
) -> None:
    runs = [
        load_run(
            write_run(
                tmp_path / arm,
                [
                    {"case": f"c{i}", "passed": True, name: float(i) * (3 if slower else 1)}
                    for i in range(6)
                ],
            )
        )
        for arm, slower in (("b", False), ("c", worse))
    ]
    gate = tmp_path / "gate.yaml"
    gate.write_text(json.dumps({"budgets": {name: {"stat": "mean", "max": 5}}}))
    (check,) = compare(runs[0], runs[1], load_spec(gate), FlakyList()).result.budgets
    assert (check.baseline, check.candidate) == (2.5, 7.5 if worse else 2.5)
    assert check.exceeded is worse


# a reward that is negative: higher is a rise whatever its sign, and +10% of -10 is -9
REWARD = {case: [-v / 100 for v in reps] for case, reps in BASE_LATENCY.items()}


@pytest.mark.parametrize(
    ("scale", "max_increase", "exceeded"),
    [
        (1.0, 0.10, False),  # the same in both arms
        (0.4, 0.10, True),  # 60% higher against a +10% budget
        (0.5, -0.10, True),  # 50% higher where the budget asks for 10% lower
        (1.5, -0.10, False),  # 50% lower where the budget asks for 10% lower
    ],
)
def test_a_relative_budget_on_a_negative_metric_reads_a_rise_as_a_rise(
    tmp_path: Path, scale: float, max_increase: float, exceeded: bool
) -> None:
    """Issue 28 item 2: the ratio candidate / baseline turned around below zero: a reward of -10
    in both arms read as over a limit of -11, and a budget asking for an improvement let a
    worsening through."""
    cand = {case: [v * scale for v in reps] for case, reps in REWARD.items()}
    spec = spec_from(
        tmp_path, {"budgets": {"reward": {"stat": "mean", "max_increase": max_increase}}}
    )
    result = compare(
        run("b", metric_rows(REWARD, "reward")), run("c", metric_rows(cand, "reward")), spec
    ).result
    (check,) = result.budgets
    assert check.exceeded is exceeded and (result.rule == "budget") is exceeded
    assert (check.candidate > check.limit) is exceeded
    assert check.noise is not None
    assert check.noise.ratio == pytest.approx(1 + (scale - 1) * -1)  # -10 -> -4: ratio 1.6


def test_an_all_infra_candidate_with_a_budget_is_invalid_not_bad_input(tmp_path: Path) -> None:
    """Issue 28 item 13: the budget found no candidate repetition that records latency_ms and
    called gate.yaml bad input (exit 2), where without the budget the verdict is INVALID (4)."""
    infra = [
        {"case": row["case"], "rep": row["rep"], "status": "infra", "infra": "timeout"}
        for row in metric_rows(BASE_LATENCY)
    ]
    spec = spec_from(tmp_path, {"budgets": {"latency_ms": {"stat": "p95", "max_increase": 0.1}}})
    result = compare(run("b", metric_rows(BASE_LATENCY)), run("c", infra), spec).result
    assert (result.verdict, result.budgets) == ("INVALID", ())
    assert "infra_share" in {reason.code for reason in result.invalid_reasons}
