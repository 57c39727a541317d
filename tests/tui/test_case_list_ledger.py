"""The case list filtered by ledger state and by divergence (issue 22 item 6), driven with Pilot on
logs the real tools wrote: an Inspect run that errored, gated with `--allow-partial`; a promptfoo
run interrupted with rows missing; Inspect's agent logs, whose pass/pass cases changed tool path.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from textual.app import App

import flipgate.tui.screens.red_cases as red_cases
from flipgate.present.divergence import Progress, diverged
from flipgate.session import Comparison, ImportOptions
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.widgets.case_table import CaseTable
from flipgate.tui.widgets.key_bar import KeyBar

from .conftest import ScreenApp, load_comparison, on_top, settled

SIZE = (140, 45)
FIXTURES = Path(__file__).parents[1] / "fixtures"
INSPECT, PROMPTFOO = FIXTURES / "inspect", FIXTURES / "promptfoo"


def shown(app: App[None], column: str = "case") -> list[str]:
    return list(on_top(app).query_one(CaseTable).view[column])


def header(app: App[None]) -> str:
    return str(on_top(app).query_one("#red-header").render())


async def test_an_interrupted_promptfoo_run_by_ledger_state() -> None:
    """8 of 48 rows exported after Ctrl-C: one case paired, seven whose run did not finish."""
    comparison = load_comparison(
        PROMPTFOO / "file-prompts" / "results.json",
        PROMPTFOO / "interrupted" / "results.json",
        allow_partial=True,
        import_options=ImportOptions(select={"prompt": "v1"}),
    )
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(shown(app)) == 7 and set(shown(app, "state_shown")) == {"run not finished"}
        await pilot.press("a")  # every case: the paired one too
        assert len(shown(app)) == 8
        await pilot.press("l")  # the states these cases are in, in the ledger's order
        assert shown(app) == ["camera crash"] and shown(app, "state_shown") == ["paired"]
        assert header(app).startswith("paired · 1 of 8 cases")
        await pilot.press("l")
        assert len(shown(app)) == 7 and "run not finished · 7 of 8 cases" in header(app)
        await pilot.press("l")  # off
        assert len(shown(app)) == 8


async def test_an_errored_inspect_run_gated_with_allow_partial() -> None:
    """Inspect's run stopped by an error: every case's state is `run not finished`, shown in its
    column and found by the filter; a case still opens, its lacking repetitions said."""
    comparison = load_comparison(
        INSPECT / "baseline.eval", INSPECT / "error.eval", allow_partial=True
    )
    assert comparison.result.verdict != "PASS"
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("l")
        cases = shown(app)
        assert len(cases) == comparison.cases.height == 8
        assert "run not finished · 8 of 8 cases to review" in header(app)
        await pilot.press("enter")
        screen = on_top(app)
        assert isinstance(screen, CaseScreen) and screen.detail.case == cases[0]
        assert screen.detail.unpaired is not None and "did not finish" in screen.detail.unpaired


async def test_a_pass_pass_case_whose_tool_path_changed_is_found_and_opened() -> None:
    comparison = load_comparison(INSPECT / "baseline.eval", INSPECT / "candidate.eval")
    both_pass = set(comparison.cases.filter(pl.col("cell") == "both_pass")["case"])
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("a", "d")  # every case, then those whose arms diverge (in a worker)
        await settled(pilot)
        cases = shown(app)
        assert "arms diverge" in header(app)
        quiet = [case for case in cases if case in both_pass]
        assert quiet and set(cases) < set(comparison.cases["case"])
        table = on_top(app).query_one(CaseTable)
        row = table.row_of(quiet[0])
        assert row is not None
        table.move_cursor(row=row)
        await pilot.press("enter")
        screen = on_top(app)
        assert isinstance(screen, CaseScreen) and screen.detail.case == quiet[0]
        assert screen.detail.kind == "both_pass"
        assert any(
            screen.detail.trajectory(i).divergence is not None
            for i in range(len(screen.detail.reps))
        )
        await pilot.press("escape")
        await settled(pilot)
        await pilot.press("d")  # off: every case again, found once and kept
        assert len(shown(app)) == comparison.cases.height


async def test_the_footer_shows_enter_to_open(comparison: Comparison) -> None:
    """The table's own enter (select, hidden) no longer hides the screen's Open."""
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        footer = str(on_top(app).query_one(KeyBar).render())
        assert "⏎ Open" in footer and "l State" in footer and "d Diverged" in footer


async def test_the_search_for_diverging_arms_looks_at_the_list_and_d_again_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a million cases the search took some 750 s of CPU over every case: it looks at the
    cases listed (those to review), the screen stays usable meanwhile, and `d` again stops it."""
    comparison = load_comparison(INSPECT / "baseline.eval", INSPECT / "candidate.eval")
    asked: list[pl.Series | None] = []
    looking, release = threading.Event(), threading.Event()

    def held(found: Comparison, progress: Progress, among: pl.Series | None = None) -> Any:
        asked.append(among)
        looking.set()
        while not release.wait(0.01):
            progress(0, 10)  # raises once the worker is cancelled
        return diverged(found, progress, among)

    monkeypatch.setattr(red_cases, "diverged", held)
    app = ScreenApp(lambda: RedCasesScreen(comparison))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = on_top(app)
        assert isinstance(screen, RedCasesScreen)
        await pilot.press("d")
        assert looking.wait(10)
        [among] = asked
        assert among is not None and sorted(among) == sorted(screen.red["case"])
        assert len(among) < comparison.cases.height  # those to review, not every case
        await pilot.press("1")  # the screen answers meanwhile
        assert header(app).startswith("pass→fail")
        await pilot.press("d")  # stopped
        await settled(pilot)
        assert screen.diverging is None and "arms diverge" not in header(app)
        assert not screen.workers
    release.set()
