"""The rerun plan's chance is taken at the flips' share of the next look's boundary (issue 25
item 1): the looks share alpha (looks.py) and, at that look, the paths to BLOCK share its
boundary by Holm (family.py), so a gate with a second path prices the plan at Holm's share."""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.family import holm_boundaries
from flipgate.core.gate.power import FlipRule
from flipgate.core.gate.rerun_price import price
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.runs.reading import load_run
from flipgate.session import priced
from tests.conftest import write_run

RIGHT = {"r1": "approve", "r2": "reject"}
MISSED = {"r1": "approve", "r2": "approve"}  # r2 approved what it should reject
WRONG = {"r1": "reject", "r2": "reject"}


def _labelled(tmp_path: Path, spec: GateSpec) -> Comparison:
    """Six cases broken, four by a false negative, and one fixed, among forty: the flips' p is
    1/16, and the false negatives' too, neither at or below its share of the first look's 0.025
    (nor the false negatives' at alpha on its own): so INCONCLUSIVE, with the false-negative
    limit a second path to BLOCK."""
    broken = [MISSED] * 4 + [WRONG] * 2
    rows = {
        "baseline": [(f"c{i}", RIGHT) for i in range(40)] + [("g0", WRONG)],
        "candidate": [(f"c{i}", RIGHT) for i in range(6, 40)] + [("g0", RIGHT)],
    }
    rows["candidate"] += [(f"c{i}", actual) for i, actual in enumerate(broken)]
    baseline, candidate = (
        load_run(
            write_run(
                tmp_path / arm,
                ({"case": case, "expected": RIGHT, "actual": actual} for case, actual in cases),
            )
        )
        for arm, cases in rows.items()
    )
    return compare(baseline, candidate, spec)


def test_a_second_path_prices_the_plan_at_holm_s_share(tmp_path: Path) -> None:
    comparison = _labelled(tmp_path, default_spec())
    result = comparison.result
    assert result.verdict == "INCONCLUSIVE" and result.family is not None
    assert [path.kind for path in result.family.paths] == ["significance", "false_negatives"]
    level = comparison.spec.boundary(2)  # the next look's: 0.0125
    # What family.py holds the flips to at that look when the other path does not block
    share = holm_boundaries([0.5, 1.0], level)[0]
    assert share == pytest.approx(0.00625)
    plan = priced(comparison, 0.8).rerun_price
    assert plan is not None and plan.alpha == pytest.approx(share)
    rule = FlipRule(share, result.margin, result.flip_cap)
    flipped = [case for case, _ in result.flipped]
    runs = {"baseline": comparison.baseline, "candidate": comparison.candidate}
    at_share = price(runs, comparison.cases, flipped, 5, rule, 0.8)
    assert plan.plan.chance == at_share.plan.chance


def test_per_path_prices_the_plan_at_the_whole_boundary(tmp_path: Path) -> None:
    """`family: per_path` holds the flips to the look's whole boundary, and so the price."""
    spec_path = tmp_path / "gate.yaml"
    spec_path.write_text("family: per_path\n")
    comparison = _labelled(tmp_path, load_spec(spec_path))
    assert comparison.result.verdict == "INCONCLUSIVE"
    plan = priced(comparison, 0.8).rerun_price
    assert plan is not None and plan.alpha == pytest.approx(comparison.spec.boundary(2))
