"""The overview's effect and power panel, its drill into the clones' template, the red-case
table's per-template flips, and the calibration screen from baseline-repeats/."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from textual.widgets import Static

from flipgate.tui.screens.calibration import CalibrationScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.widgets import PowerPanel, VerdictBanner
from tests.tui.conftest import open_app, settled
from tests.tui.test_app import plain

SAMPLES = Path(__file__).parents[2] / "sample_runs"


async def test_the_effect_and_what_the_gate_can_see_on_the_overview() -> None:
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        assert "p 0.073   effect -3.0 pts [-7.1, +0.5]" in banner
        panel = plain(app.screen.query_one(PowerPanel).render())
        assert "-3.0 points  95% CI -7.1 to +0.5  Tango's score interval" in panel
        assert "-5 points" in panel and "89%" in panel
        assert "blocked 80% of the time from -4.6 points" in panel
        assert "p 0.073 by case, 0.250 by template" in panel
        assert "refund-limit holds 5 of 12 flips" in panel


async def test_a_pass_says_what_it_is_worth() -> None:
    app = open_app(SAMPLES / "listing-reviewer")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        assert "what this PASS is worth: a regression of 8.9 points or more would have" in banner


async def test_enter_on_the_panel_lists_the_clones_with_their_flips() -> None:
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        app.screen.query_one(PowerPanel).focus()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RedCasesScreen)
        assert screen.case_query.template == "refund-limit"
        assert screen.table.view["case"].to_list() == [f"case-06{i}" for i in range(1, 6)]
        header = plain(screen.query_one("#red-header", Static).content)
        assert "5 broke, 0 fixed here (net +5) ⚠ clones flip together" in header
        assert "p 0.073 counted by case, 0.250 by template" in header


async def test_calibration_from_baseline_repeats_writes_a_new_file(tmp_path: Path) -> None:
    workspace = Path(shutil.copytree(SAMPLES / "agent-suite", tmp_path / "agent-suite"))
    gate = (workspace / "gate.yaml").read_bytes()
    app = open_app(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("k")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CalibrationScreen)
        await settled(pilot)
        body = plain(screen.query_one("#calibration-body", Static).content)
        assert "BLOCK 0 and INCONCLUSIVE 0 times of 6" in body
        assert "flip cap 10 -> 4" in body
        await pilot.press("w")
        await pilot.press("w")
        await pilot.pause()
    proposals = sorted(p.name for p in workspace.glob("gate.calibrated*.yaml"))
    assert proposals == ["gate.calibrated-2.yaml", "gate.calibrated.yaml"]
    assert yaml.safe_load((workspace / "gate.calibrated.yaml").read_text())["sets"]["full"] == {
        "margin": 2,
        "flip_cap": 4,
    }
    assert (workspace / "gate.yaml").read_bytes() == gate


async def test_calibration_without_repeats_says_where_to_put_them() -> None:
    app = open_app(SAMPLES / "listing-reviewer")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        await pilot.press("k")
        await pilot.pause()
        body = plain(app.screen.query_one("#calibration-body", Static).content)
        assert "No identical baseline runs to compare" in body and "baseline-repeats/" in body
