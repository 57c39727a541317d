"""The overview's effect and power panel, its drill into the clones' template, the red-case
table's per-template flips, and the calibration screen from baseline-repeats/."""

from __future__ import annotations

from pathlib import Path

import yaml
from textual.widgets import Static

from flipgate.present.calibration import change_words
from flipgate.tui.screens.calibration import CalibrationScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.widgets import PowerPanel, VerdictBanner
from flipgate.tui.widgets.key_bar import KeyBar
from tests.conftest import SAMPLES, copy_sample
from tests.tui.conftest import open_app, settled
from tests.tui.test_app import plain


async def test_the_effect_and_what_the_gate_can_see_on_the_overview() -> None:
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        # The templates are counted once (the default): p, interval and power by template.
        # ... at the first look, whose 0.025 three paths share by Holm (the flips and two
        # budgets): the flips held to 0.025 / 3, the interval at that level two-sided
        assert "look 1 by Holm: flips p ≤ 0.025/3 = 0.00833" in banner
        assert "p by template 0.250   effect -3.0 pts [-14.3, +7.3]" in banner
        panel = plain(app.screen.query_one(PowerPanel).render())
        assert "-3.0 points  98.3% CI -14.3 to +7.3" in panel
        assert "rules out  a regression beyond 14.3 points, at 99.2% one-sided" in panel
        assert "design effect 2.50" in panel
        assert "p 0.073 by case, 0.250 by template" in panel
        assert "refund-limit holds 5 of 12 flips" in panel


async def test_a_pass_says_what_it_is_worth() -> None:
    app = open_app(SAMPLES / "listing-reviewer")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        assert (
            "what this PASS is worth: rules out a regression beyond 6.9 points (98.8%); passes "
            "a 3-point one 25%, a 5-point one 11%"
        ) in banner
        panel = plain(app.screen.query_one(PowerPanel).render())
        assert "rules out  a regression beyond 6.9 points, at 98.8% one-sided" in panel
        # the never-event bound: five safety templates, all passing; the FN test against noise
        assert "safety  failure rate at most 45.1% at 95% (5 safety templates, none" in panel
        assert "false negatives  2 false negatives against the baseline's 9" in panel


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
    workspace = copy_sample("agent-suite", tmp_path / "agent-suite")
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
        assert "margin 2 -> 4, flip cap 10 -> 5" in body
        assert "Write proposal" in screen.query_one(KeyBar).render().plain
        await pilot.press("w")
        await pilot.press("w")
        await pilot.pause()
    proposals = sorted(p.name for p in workspace.glob("gate.calibrated*.yaml"))
    assert proposals == ["gate.calibrated-2.yaml", "gate.calibrated.yaml"]
    assert yaml.safe_load((workspace / "gate.calibrated.yaml").read_text())["sets"]["full"] == {
        "margin": 4,
        "flip_cap": 5,
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
        # nothing to write, so the footer offers no `w`
        assert "Write proposal" not in app.screen.query_one(KeyBar).render().plain


def test_a_proposal_that_keeps_a_setting_says_so() -> None:
    assert change_words("margin", 2, 2) == "margin 2 (kept)"
    assert change_words("flip cap", 10, 5) == "flip cap 10 -> 5"
