"""The suite-health screen: from `flipgate suite open` and from the overview; retiring a case."""

from __future__ import annotations

import io
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

from flipgate.core.suite.workspace import load_suite
from flipgate.tui.app import THEMES, THEMES_DIR, make_app_for_workspace, make_suite_app
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.widgets.suite_charts import SuiteChart

SUPPORT = Path(__file__).resolve().parents[2] / "sample_runs" / "support-assistant"
WIDE, NARROW = (140, 45), (80, 24)


def screen_text(pilot: Pilot[Any]) -> str:
    screen = pilot.app.screen
    assert isinstance(screen, SuiteScreen)
    console = Console(width=136, record=True, file=io.StringIO())
    for chart in screen.query(SuiteChart):
        console.print(chart.render())
    return console.export_text()


async def test_every_figure_is_on_screen_as_text() -> None:
    app = make_suite_app(load_suite(SUPPORT))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        text = screen_text(pilot)
        for figure in (
            "GAP multi_turn_ops: 22.1% of traffic, 1 case",
            "covered: 41.3% of traffic",
            "71 of 112 live cases",
            "median case age 14.0 months",
            "12 cases passed on every run",
            "16 retirement proposals",
            "outcome_limit fired in all 5 rejections",
            "csat 4.4 -> 3.8",
        ):
            assert figure in text, figure
        row = ("model-2025-06", "suite@v6", "0.874", "0.612", "85/87", "bar moved")
        assert any(all(cell in line for cell in row) for line in text.splitlines())
        proposals = app.screen.query_one("#suite-proposals", DataTable)
        assert proposals.row_count == 16


async def test_retire_asks_for_the_reason_and_reads_the_audit_again(tmp_path: Path) -> None:
    support = Path(shutil.copytree(SUPPORT, tmp_path / "support-assistant"))
    app = make_suite_app(load_suite(support))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        first = str(app.screen.query_one("#suite-proposals", DataTable).get_row_at(0)[0])
        await pilot.press("r")
        await pilot.pause()
        form = app.screen.query_one(Input)
        await pilot.press("enter")  # an empty reason is refused: the form stays
        assert app.screen.query_one(Input) is form
        form.value = "the endpoint was deleted in January"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        assert screen.result.stale is not None and screen.result.stale.proposals.height == 15
    archive = yaml.safe_load((support / "suite.yaml").read_text())["archive"]
    assert archive[-1]["case"] == first and archive[-1]["retired"] == date.today()
    assert archive[-1]["reason"] == "the endpoint was deleted in January"


async def test_the_overview_opens_it_and_applies_the_gate_again_after_a_retirement(
    tmp_path: Path,
) -> None:
    support = Path(shutil.copytree(SUPPORT, tmp_path / "support-assistant"))
    app = make_app_for_workspace(support)
    async with app.run_test(size=WIDE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        before = app.screen.comparison.result
        assert [r.case for r in before.retired] == ["sa-024", "sa-045"]
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, SuiteScreen)
        await pilot.press("r")
        await pilot.pause()
        app.screen.query_one(Input).value = "the lookup endpoint is gone"
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        after = app.screen.comparison.result
        assert "sa-001" in {r.case for r in after.retired}
        assert after.paired == before.paired - 1  # left out of the cells
        assert any("retired after the baseline run" in w for w in after.warnings)


@pytest.mark.parametrize(
    ("theme", "size"),
    [("dark", WIDE), ("light", NARROW), ("high-contrast", WIDE), ("dark", NARROW)],
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v,
)
def test_snapshot(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    app = make_suite_app(load_suite(SUPPORT), theme=theme)
    assert snap_compare(app, terminal_size=size)


def _muted(theme: str) -> str:
    """The theme file's `$muted`."""
    text = (THEMES_DIR / f"{theme}.tcss").read_text()
    return next(line for line in text.splitlines() if line.startswith("$muted:")).split()[1][:-1]


@pytest.mark.parametrize("theme", THEMES)
async def test_the_charts_headings_are_readable_in_each_theme(theme: str) -> None:
    """Textual's muted text is `auto 60%`: as a component style it came out white, and the
    `intent` and `age` headings vanished on the light theme's white."""
    app = make_suite_app(load_suite(SUPPORT), theme=theme)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        heading = app.screen.query_one(SuiteChart).style("muted").color
        assert heading is not None and heading.triplet is not None
        assert heading.triplet.hex == _muted(theme)
