"""A budget's metric is the team's own field, named as the team likes (issue 28 item 11): a name
polars or a regular expression would read as a pattern (`a(b`, `*`, `^$`, `[x`) is a name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run


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
            ),
            keep=frozenset({name}),
        )
        for arm, slower in (("b", False), ("c", worse))
    ]
    gate = tmp_path / "gate.yaml"
    gate.write_text(json.dumps({"budgets": {name: {"stat": "mean", "max": 5}}}))
    (check,) = compare(runs[0], runs[1], load_spec(gate), FlakyList()).result.budgets
    assert (check.baseline, check.candidate) == (2.5, 7.5 if worse else 2.5)
    assert check.exceeded is worse
