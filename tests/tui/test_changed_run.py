"""A run's texts are read when a case is opened: a results file changed on disk since the app read
it is a message naming it, never another run's texts on the screen."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from flipgate.tui.screens import case as case_screen
from flipgate.tui.screens.case import CaseScreen
from tests.conftest import SAMPLES
from tests.tui.conftest import open_app, settled


@pytest.mark.parametrize("big", [False, True], ids=["at-once", "looked-up-in-a-worker"])
async def test_a_case_of_a_run_changed_since_it_was_read_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, big: bool
) -> None:
    if big:  # a comparison past which the case screen looks the case up in a worker
        monkeypatch.setattr(case_screen, "BIG_COMPARISON", 0)
    workspace = Path(shutil.copytree(SAMPLES / "agent-suite", tmp_path / "ws"))
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        results = workspace / "baseline" / "results.jsonl"
        stat = results.stat()
        os.utime(results, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        await pilot.press("colon", *"case-061", "enter")
        await settled(pilot)
        assert not isinstance(app.screen, CaseScreen)
        said = [n.message for n in app._notifications]
        assert any("results.jsonl" in m and "changed on disk" in m for m in said)
