"""The suite-health screen: from `flipgate suite open` and from the overview; retiring a case."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Input, Static
from textual_fastdatatable import DataTable

from flipgate.core.gate.evidence import ChangedLate
from flipgate.core.suite.workspace import SuiteInputs, load_suite
from flipgate.present.suite_findings import SECTIONS
from flipgate.tui.factory import make_suite_app
from flipgate.tui.screens import suite as suite_screen
from flipgate.tui.screens.flaky import FlakyForm
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.themes import TEXTUAL_THEMES, THEMES
from flipgate.tui.widgets.progress_line import ProgressLine
from flipgate.tui.widgets.suite_charts import SuiteChart
from tests.conftest import SAMPLES, copy_sample
from tests.tui.conftest import Building, on_top, open_app, settled

SUPPORT = SAMPLES / "support-assistant"
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
            "12 cases held by runs of at least 2 systems and passed in every run holding it",
            "16 retirement proposals",
            "undecided fired in all 5 rejections",
            "csat 4.4 -> 3.8",
        ):
            assert figure in text, figure
        row = ("model-2025-06", "suite@v6", "0.874", "0.612", "85/87", "bar moved")
        assert any(all(cell in line for cell in row) for line in text.splitlines())
        proposals = app.screen.query_one("#suite-proposals", DataTable)
        assert proposals.row_count == 16


async def test_retire_asks_for_the_reason_and_reads_the_audit_again(tmp_path: Path) -> None:
    support = copy_sample("support-assistant", tmp_path / "support-assistant")
    app = make_suite_app(load_suite(support))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        proposals = app.screen.query_one("#suite-proposals", DataTable)
        second = str(proposals.get_row_at(1)[0])
        await pilot.press("r")  # nothing chosen yet: r takes the user into the table
        await pilot.pause()
        assert isinstance(app.screen, SuiteScreen) and proposals.has_focus
        await pilot.press("down", "r")
        await pilot.pause()
        assert isinstance(app.screen, FlakyForm) and second in app.screen.form_title
        form = app.screen.query_one(Input)
        await pilot.press("enter")  # an empty reason is refused: the form stays
        assert app.screen.query_one(Input) is form
        form.value = "the endpoint was deleted in January"
        await pilot.press("enter")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        assert screen.result is not None and screen.result.stale is not None
        assert screen.result.stale.proposals.height == 15
    archive = yaml.safe_load((support / "suite.yaml").read_text())["archive"]
    assert archive[-1]["case"] == second and archive[-1]["retired"] == date.today()
    assert archive[-1]["reason"] == "the endpoint was deleted in January"


async def test_the_overview_opens_it_and_applies_the_gate_again_after_a_retirement(
    tmp_path: Path,
) -> None:
    support = copy_sample("support-assistant", tmp_path / "support-assistant")
    app = open_app(support)
    async with app.run_test(size=WIDE) as pilot:
        await settled(pilot)
        overview = app.screen
        assert isinstance(overview, OverviewScreen)
        before = overview.comparison.result
        assert [r.case for r in before.retired] == ["sa-024", "sa-045"]
        await pilot.press("h")
        await settled(pilot)
        assert isinstance(app.screen, SuiteScreen)
        await pilot.press("r", "r")  # into the proposals, then retire the first
        await pilot.pause()
        app.screen.query_one(Input).value = "the lookup endpoint is gone"
        await pilot.press("enter")
        await settled(pilot)
        await pilot.press("escape")
        await settled(pilot)
        again = on_top(app)
        assert isinstance(again, OverviewScreen)
        after = again.comparison.result
        assert "sa-001" in {r.case for r in after.retired}
        assert after.paired == before.paired - 1  # left out of the cells
        late = [w for w in after.warnings if isinstance(w, ChangedLate)]
        assert any(w.code == "retired_late" and "sa-001" in w.cases for w in late)


async def test_the_audit_runs_in_a_worker_with_its_progress_on_the_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each step of reading the workspace waits until the test lets it go: meanwhile the screen
    is up, says which step it is on, and its keys (but back) wait. The read is made inside
    `building` (the collector's full passes over it stalled the screen 0.3 s at 100,000 cases)."""
    go_on = threading.Semaphore(0)
    building = Building()
    depths: list[int] = []

    def held(path: Path, progress: Callable[[str], None]) -> SuiteInputs:
        def step(description: str) -> None:
            progress(description)
            depths.append(building.depth)
            assert go_on.acquire(timeout=30)

        return load_suite(path, step)

    monkeypatch.setattr(suite_screen, "read_suite", held)
    monkeypatch.setattr(suite_screen, "building", building)
    app = open_app(SUPPORT)
    async with app.run_test(size=WIDE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("h")
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        line = screen.query_one(ProgressLine)
        while not line.busy:
            await pilot.pause()
        said = str(line.query_one(Static).render())
        assert "reading the suite manifest and 15 runs of the history" in said
        assert "(step 1 of 4)" in said
        assert screen.check_action("retire", ()) is None  # shown dimmed, waiting
        assert not screen.query(SuiteChart)
        for _ in range(3):
            go_on.release()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not line.busy
        assert len(screen.query(SuiteChart)) == len(SECTIONS)
        assert screen.query_one("#suite-proposals", DataTable).row_count == 16
        assert screen.check_action("retire", ()) is True
        assert depths == [1, 1, 1]


async def test_a_broken_file_of_the_workspace_is_named_on_the_screen(tmp_path: Path) -> None:
    support = copy_sample("support-assistant", tmp_path / "support-assistant")
    traffic = support / "traffic.yaml"
    traffic.write_text(traffic.read_text().replace("multi_turn_ops: 0.221", "multi_turn_ops: lots"))
    app = open_app(support)
    async with app.run_test(size=WIDE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SuiteScreen)
        problem = str(screen.query_one("#suite-problem", Static).render())
        assert "traffic.yaml" in problem and "intents.multi_turn_ops" in problem
        assert not screen.query_one(ProgressLine).busy
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SuiteScreen)


@pytest.mark.parametrize(
    ("theme", "size"),
    [("dark", WIDE), ("light", NARROW), ("high-contrast", WIDE), ("dark", NARROW), ("light", WIDE)],
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else v,
)
def test_snapshot(snap_compare: Any, theme: str, size: tuple[int, int]) -> None:
    app = make_suite_app(load_suite(SUPPORT), theme=theme)
    assert snap_compare(app, terminal_size=size)


def _muted(theme: str) -> str:
    """The theme's `$muted`."""
    return TEXTUAL_THEMES[theme].variables["muted"]


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


@pytest.mark.parametrize("theme", THEMES)
async def test_the_retire_form_shows_the_screen_beneath_it_dimmed(theme: str) -> None:
    app = make_suite_app(load_suite(SUPPORT), theme=theme)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        app.screen.query_one("#suite-proposals", DataTable).focus()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, FlakyForm)
        assert 0 < app.screen.styles.background.a < 1
        assert "upload_v1_flow" in app.export_screenshot()  # the proposals, beneath
