"""The suite audit's limits at their edges (issue 26, defects 6 and 7): each documented limit is
inclusive as written and compared on exact decimals, and an audit as of a past day re-scores
against the suite as it stood then. Each figure below is one where the floats say otherwise."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import polars as pl
import pytest

from flipgate.cli import main
from flipgate.cli.arguments import share
from flipgate.core.suite.audit import audit
from flipgate.core.suite.counterfactual import Rescore
from flipgate.core.suite.production import SignalTrend
from flipgate.core.suite.workspace import load_suite
from tests.conftest import SAMPLES

SUPPORT = SAMPLES / "support-assistant"


def covered_workspace(tmp_path: Path) -> Path:
    """Two covered intents whose shares, 0.204 and 0.244, add up to 0.448 (as floats,
    0.44799999999999995) and one gap."""
    cases = "".join(
        f"  - {{case: {intent}-{i}, intent: {intent}, added: 2026-01-02}}\n"
        for intent in ("a", "b")
        for i in range(3)
    )
    (tmp_path / "suite.yaml").write_text(f"suite: s\ncases:\n{cases}")
    (tmp_path / "traffic.yaml").write_text(
        "window: {from: 2026-01-01, to: 2026-03-31}\nintents: {a: 0.204, b: 0.244, c: 0.5}\n"
    )
    return tmp_path


@pytest.mark.parametrize("limit", ["0.448", "44.8%"])
def test_fail_under_is_inclusive_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], limit: str
) -> None:
    result = audit(load_suite(covered_workspace(tmp_path)))
    assert result.coverage is not None and 0.204 + 0.244 < 0.448  # the floats' sum is below
    assert not result.below(share(limit))
    assert result.below(share("0.4481")) and result.below(share("44.81%"))
    assert main(["suite", "audit", str(tmp_path), "--fail-under", limit]) == 0
    assert "below --fail-under" not in capsys.readouterr().err


def test_fail_under_says_the_share_on_its_side_of_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["suite", "audit", str(covered_workspace(tmp_path)), "--fail-under", "44.85%"]) == 1
    assert "covered traffic 44.8% is below --fail-under 44.85%" in capsys.readouterr().err
    assert main(["suite", "audit", str(tmp_path), "--fail-under", "0.4481"]) == 1
    assert "covered traffic 44.8% is below --fail-under 44.81%" in capsys.readouterr().err


def test_a_share_given_as_a_percent_is_the_decimal_written() -> None:
    assert share("44.8%") == 0.448 == share("0.448")
    assert share("6.5%") == 0.065
    for bad in ("nan", "inf", "1e400%", "x%"):
        with pytest.raises(Exception, match="not a share"):
            share(bad)


def test_flat_within_five_points_includes_five() -> None:
    """0.55 - 0.50 is 0.050000000000000044 as floats: still within 5 points."""

    from flipgate.core.suite.production import ProductionCheck

    check = ProductionCheck(pl.DataFrame({"period": ["Q1", "Q2"]}), 0.50, 0.55, ())
    assert check.flat
    assert not ProductionCheck(check.periods, 0.50, 0.5501, ()).flat
    assert ProductionCheck(check.periods, 0.86, 0.91, ()).flat  # the 0.86 -> 0.91


def test_a_signal_that_moved_exactly_five_percent_moved() -> None:
    """1.01 -> 0.9595 is -5% exactly; as floats -0.04999999999999999."""
    trend = SignalTrend("csat", "higher", 1.01, 0.9595)
    assert trend.moved and trend.change == pytest.approx(-0.05)
    assert not SignalTrend("csat", "higher", 1.01, 0.9596).moved


def test_a_bar_five_points_lower_moved() -> None:
    """43 of 50 then (0.86), 81 of 100 now (0.81): exactly 5 points, -0.04999999999999993 as
    the floats subtract."""

    def rescore(passed_now: int) -> Rescore:
        return Rescore("r", "m", None, "v1", 50, 43, 100, passed_now)

    assert rescore(81).reading == "bar_moved"
    assert rescore(82).reading == "bar_stood_still"
    assert Rescore("r", "m", None, "v1", 50, 43, 100, 91).reading == "bar_got_easier"
    assert Rescore("r", "m", None, "v1", 50, 43, 0, 0).reading == "no_overlap"


def test_an_audit_as_of_a_past_day_rescores_against_the_suite_of_that_day() -> None:
    """baseline/ was run on 2026-08-03 on suite@v14: on 2026-01-01 the newest run of the suite
    was the December quarterly, on suite@v10."""
    inputs = load_suite(SUPPORT)
    assert inputs.today is not None and inputs.today.created is not None
    assert inputs.today.created.date() == date(2026, 8, 3)
    then = audit(inputs, date(2026, 1, 1)).counterfactual
    assert then is not None
    assert (then.today_run, then.today_version) != (inputs.today.run_id, "suite@v14")
    assert then.today_version == "suite@v10"
    newest = [
        h.run for h in inputs.history if h.run.created and h.run.created.date() <= date(2026, 1, 1)
    ]
    assert then.today_run == newest[-1].run_id
    # every run then was on v6 or v10: only the v6 run is re-scored, against v10's labels
    assert [r.version for r in then.rescores] == ["suite@v6"]
