"""The walk a reviewer takes from the overview of an INCONCLUSIVE gate: the rerun results loaded
beside the first verdict, the triage checklist, and the flaky list, then back to the overview."""

from __future__ import annotations

from pathlib import Path

from flipgate.tui.screens.flaky import FlakyScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets import VerdictBanner
from tests.conftest import copy_sample
from tests.tui.conftest import open_app, settled
from tests.tui.test_app import plain


async def test_reruns_then_triage_then_flaky_list(tmp_path: Path, notices: list[str]) -> None:
    workspace = copy_sample("agent-suite", tmp_path / "ws")
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        first = app.screen
        assert isinstance(first, OverviewScreen) and first.comparison.result.b == 9

        await pilot.press("l")  # the rerun results in reruns/ replace the flipped cases
        await settled(pilot)
        second = app.screen
        assert isinstance(second, OverviewScreen)
        result = second.comparison.result
        assert (result.verdict, result.b, result.c) == ("INCONCLUSIVE", 7, 2)
        banner = plain(second.query_one(VerdictBanner).render())
        assert "first verdict was INCONCLUSIVE (b 9, c 3, p 0.250)" in banner

        await pilot.press("l")  # the rule is applied twice at most
        assert app.screen is second
        assert "already applied twice" in notices[-1]

        await pilot.press("c")
        assert isinstance(app.screen, TriageScreen)
        await pilot.press("escape")
        await pilot.press("f")
        await settled(pilot)
        assert isinstance(app.screen, FlakyScreen)
        await pilot.press("escape")
        await settled(pilot)  # the gate is applied again with the list as it now is
        assert isinstance(app.screen, OverviewScreen) and app.screen is not second
        assert app.screen.comparison.result.previous is not None  # still the second verdict
