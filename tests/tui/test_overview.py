"""The overview: panels show the core's figures, keys drill into the red cases, the rerun plan
is exported atomically and never overwritten silently, and narrow terminals stack the panels."""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

import flipgate.core.io.atomic as atomic
from flipgate.tui.screens import overview
from flipgate.tui.screens.overview import ConfirmPlanScreen
from flipgate.tui.screens.rerun_plan import RerunPlanScreen
from flipgate.tui.widgets import (
    FlipMatrix,
    InfraPanel,
    KeyDiff,
    LeftOutPanel,
    OutcomesPanel,
    PowerPanel,
    ReconciliationPanel,
    VerdictBanner,
)
from tests.conftest import SAMPLES
from tests.tui.conftest import open_app, settled
from tests.tui.test_app import WORKSPACES, plain


class FakeRedCases(Screen[None]):
    """Stands in for the red-case table so these tests pin the overview's side of the contract."""

    opened: ClassVar[list[tuple[str | None, bool]]] = []

    def __init__(self, comparison: object, filter: str | None = None) -> None:
        super().__init__()
        self.filter = filter
        FakeRedCases.opened.append((filter, False))

    def action_search(self) -> None:
        FakeRedCases.opened[-1] = (self.filter, True)


@pytest.fixture
def red_cases(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, bool]]:
    monkeypatch.setattr(overview, "RedCasesScreen", FakeRedCases)
    FakeRedCases.opened = []
    return FakeRedCases.opened


async def test_panels_show_the_core_figures() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        screen = app.screen
        matrix = plain(screen.query_one(FlipMatrix).render())
        assert "both pass" in matrix and "18  66.7%" in matrix
        assert "b  pass → fail" in matrix and "6  22.2%" in matrix
        assert "c  fail → pass" in matrix and "2  7.4%" in matrix
        assert "27 paired cases counted" in matrix
        keys = plain(screen.query_one(KeyDiff).render())
        assert "model" in keys and "lr-2026-09" in keys and "lr-2026-10" in keys
        assert "≠ yes" in keys and "✓ yes" in keys
        outcomes = plain(screen.query_one(OutcomesPanel).render())
        assert "✗ false negative" in outcomes and "⇄ mirror" in outcomes
        assert "419" in outcomes and "846" in outcomes and "+427" in outcomes
        # the mirrors by the way they decided, named by the runs' labels, each with its cost
        assert re.search(r"decided approve +400 +0 +0 +1 +400 +\+1", outcomes)
        assert '"approve" is priced as a false negative' in outcomes
        reconciliation = plain(screen.query_one(ReconciliationPanel).render())
        assert "red: at least one wrong decision" in reconciliation
        assert "agreements in red cases" in reconciliation and "in green cases" in reconciliation
        assert "a case fails (the flip matrix)" in reconciliation
        infra = plain(screen.query_one(InfraPanel).render())
        assert "baseline  1 repetition of 29  3.4%\n          by kind: rate_limit 1" in infra
        left_out = plain(screen.query_one(LeftOutPanel).render())
        assert "1 case listed, 1 of them flipped" in left_out
        assert "flipped: listing-025" in left_out
        assert "new in the candidate (1): listing-029" in left_out
        assert "all infra in the baseline (1): listing-012" in left_out
        assert "candidate 30 cases = 28 paired + 1 new + 1 all infra" in left_out


async def test_pass_fail_runs_say_so_instead_of_zeros() -> None:
    app = open_app(WORKSPACES / "passfail")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        outcomes = plain(app.screen.query_one(OutcomesPanel).render())
        assert "pass/fail checks only" in outcomes
        assert not app.screen.query(ReconciliationPanel)


async def test_enter_on_a_cell_opens_its_red_cases(
    red_cases: list[tuple[str | None, bool]],
) -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        matrix = app.screen.query_one(FlipMatrix)
        assert matrix.cell == "pass_to_fail"  # the cursor starts on b
        await pilot.press("enter")
        assert isinstance(app.screen, FakeRedCases)
        app.pop_screen()
        await pilot.pause()
        await pilot.press("down", "enter")  # fail -> fail
        app.pop_screen()
        await pilot.pause()
        await pilot.press("left", "enter")  # fail -> pass: c
        app.pop_screen()
        await pilot.pause()
        await pilot.press("r")
        app.pop_screen()
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
    assert red_cases == [
        ("pass_to_fail", False),
        ("both_fail", False),
        ("fail_to_pass", False),
        (None, False),
        (None, True),
    ]


async def test_arrows_leave_the_matrix_for_the_next_panel(
    red_cases: list[tuple[str | None, bool]],
) -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("right")  # on to what the gate can see, then the cache key
        assert isinstance(app.screen.focused, PowerPanel)
        await pilot.press("right")
        assert isinstance(app.screen.focused, KeyDiff)
        for _ in range(4):
            await pilot.press("tab")
        assert isinstance(app.screen.focused, LeftOutPanel)
        await pilot.press("enter")
    assert red_cases == [("unpaired", False)]


async def export(pilot: Pilot[Any], *keys: str) -> None:
    """`e` shows the priced plan, enter writes it (then `keys`, when a plan is there)."""
    await pilot.press("e")
    await settled(pilot)
    await pilot.press("enter", *keys)
    await pilot.pause()


async def test_export_rerun_plan_never_overwrites_silently(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "inconclusive", workspace)
    plan = workspace / "rerun-plan.yaml"
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await export(pilot)
        written = yaml.safe_load(plan.read_text())
        assert written["runs"] == 5
        assert written["price"]["plan"]["repetitions"] == 2 * 8 * 5
        assert written["arms"]["candidate"]["run_id"] == "lr-candidate"
        assert [c["case"] for c in written["cases"]] == [
            "listing-001", "listing-002", "listing-003", "listing-005",
            "listing-006", "listing-007", "listing-009", "listing-010",
        ]  # fmt: skip
        plan.write_text("edited by hand\n")

        await pilot.press("e")
        await settled(pilot)
        assert isinstance(app.screen, RerunPlanScreen)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmPlanScreen)
        await pilot.press("escape")  # cancel: nothing written
        await pilot.pause()
        assert plan.read_text() == "edited by hand\n"
        assert sorted(p.name for p in workspace.glob("rerun-plan*")) == ["rerun-plan.yaml"]

        await export(pilot, "n")  # a new name
        assert plan.read_text() == "edited by hand\n"
        assert yaml.safe_load((workspace / "rerun-plan-2.yaml").read_text()) == written

        await export(pilot, "o")  # overwrite, when asked for
        assert yaml.safe_load(plan.read_text()) == written
    assert not list(workspace.glob(".rerun-plan*"))  # no temporary file left behind


async def test_a_plan_the_disk_refuses_is_said_and_the_app_runs_on(
    tmp_path: Path, notices: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(fd: int, payload: bytes) -> None:
        os.close(fd)
        raise OSError(errno.ENOSPC, "No space left on device")

    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "inconclusive", workspace)
    plan = workspace / "rerun-plan.yaml"
    plan.write_text("edited by hand\n")
    monkeypatch.setattr(atomic, "_write_synced", disk_full)
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await export(pilot, "o")  # overwrite, under the file's lock
        assert notices[-1] == f"Not written: {plan}: cannot be written: No space left on device"
        await export(pilot, "n")  # a new file
        assert "rerun-plan-2.yaml: cannot be written: No space left on device" in notices[-1]
        assert app.is_running
    assert plan.read_text() == "edited by hand\n"
    assert sorted(p.name for p in workspace.glob("*rerun-plan*")) == ["rerun-plan.yaml"]


async def test_no_rerun_plan_outside_inconclusive_full_runs(
    tmp_path: Path, notices: list[str]
) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "block", workspace)
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await export(pilot)
        assert "No rerun plan to export: the gate says BLOCK" in notices[-1]
    assert not list(workspace.glob("rerun-plan*"))


async def test_narrow_terminal_stacks_panels_and_scrolls_to_focus() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert screen.has_class("-narrow")
        matrix, keys = screen.query_one(FlipMatrix), screen.query_one(KeyDiff)
        assert matrix.region.width == keys.region.width
        assert keys.region.y > matrix.region.y
        for _ in range(6):
            await pilot.press("tab")
        await pilot.pause()
        focused = screen.focused
        assert isinstance(focused, LeftOutPanel)
        assert 0 <= focused.region.y < 24  # scrolled into view


async def test_clicking_a_cell_selects_it_and_a_second_click_opens_it(
    red_cases: list[tuple[str | None, bool]],
) -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        matrix = app.screen.query_one(FlipMatrix)
        c_cell = (1 + 1 + 17 + 2, 1 + 5)  # border + padding + label column, row "c"
        await pilot.click(FlipMatrix, offset=c_cell)
        assert matrix.cell == "fail_to_pass"
        assert red_cases == []
        await pilot.click(FlipMatrix, offset=c_cell)
    assert red_cases == [("fail_to_pass", False)]


async def test_at_80x24_the_verdict_takes_five_rows_and_the_flip_matrix_shows() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        verdict = app.screen.query_one(VerdictBanner)
        assert verdict.region.height <= 5
        lines = plain(verdict.render(), width=verdict.content_size.width).splitlines()
        assert lines[0].startswith(" ? INCONCLUSIVE")
        assert lines[1].startswith("b\N{NO-BREAK SPACE}6  c\N{NO-BREAK SPACE}2")  # name by value
        matrix = app.screen.query_one(FlipMatrix)
        assert matrix.region.bottom <= 24 - 1  # above the footer, without scrolling
        await pilot.resize_terminal(140, 45)
        await pilot.pause()
        assert verdict.region.height > 5  # a tall terminal has room for every line


async def test_at_80_columns_key_values_are_cut_in_the_middle_and_whole_on_focus() -> None:
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        key = app.screen.query_one(KeyDiff)
        width = key.content_size.width
        cut = plain(key.render(), width=width)
        assert "support-agent-2026-09" not in cut  # too long for its column here
        model = next(line for line in cut.splitlines() if line.startswith(" model"))
        assert re.search(r"support-\S*…\S*2026-09", model)  # both ends kept, on one line
        key.focus()
        await pilot.pause()
        focused = plain(key.render(), width=width)
        assert "…" not in focused and "support-agent" in focused  # whole, folded if it must


async def test_the_rerun_plan_dialog_prices_the_plan_at_the_target() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("e")
        await settled(pilot)
        dialog = app.screen
        assert isinstance(dialog, RerunPlanScreen)
        price = dialog.comparison.rerun_price
        assert price is not None and price.target == 0.8
        await pilot.press("minus", "minus")
        await settled(pilot)
        price = dialog.comparison.rerun_price
        assert price is not None and price.target == pytest.approx(0.7)
        await pilot.press("escape")
        assert not isinstance(app.screen, RerunPlanScreen)
        # closed without writing, the price is kept (at a million cases it took the gate's
        # time): opened again, the plan is shown at once, at the target last chosen
        shown = app.screen
        assert isinstance(shown, overview.OverviewScreen)
        assert shown.comparison.rerun_price is price
        await pilot.press("e")
        await pilot.pause()
        again = app.screen
        assert isinstance(again, RerunPlanScreen) and not again.workers
        assert again.comparison.rerun_price is price and again.target == pytest.approx(0.7)
        assert "pricing" not in plain(again.query_one("#plan-body", Static).content)
