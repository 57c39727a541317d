"""The flaky screen: accept a proposal with owner and reason, retire an entry with a note."""

from __future__ import annotations

import errno
import os
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.app import App
from textual.widgets import DataTable, Static

import flipgate.core.io.atomic as atomic
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import run_from_records
from flipgate.tui.screens.flaky import FlakyForm, FlakyScreen
from tests.conftest import copy_sample
from tests.tui.test_app import plain

from .conftest import keys, on_top, open_app, settled

TODAY = date(2026, 11, 24)
KEY = {"model": "m1"}


def make_run(run_id: str, failing: set[str], *, safety: frozenset[str] = frozenset()) -> Run:
    """40 cases of one pass/fail check, 3 repetitions; `failing` cases fail every repetition."""
    records: list[dict[str, Any]] = [
        {
            "case": f"case-{i:03d}",
            "rep": rep,
            "passed": f"case-{i:03d}" not in failing,
            "safety": f"case-{i:03d}" in safety,
        }
        for i in range(40)
        for rep in range(3)
    ]
    return run_from_records({"run_id": run_id, "key": KEY}, records, source=Path(run_id))


FLAKY = """\
entries:
  - case: case-001
    owner: qa-oncall
    added: 2026-11-01
    reason: "[bold red]judge[/] wording"
    evidence: flipped in 2 of 4 identical baseline runs
"""


class ScreenApp(App[None]):
    def __init__(self, screen: FlakyScreen) -> None:
        super().__init__()
        self.flaky_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.flaky_screen)


def make_screen(tmp_path: Path) -> tuple[FlakyScreen, Path]:
    path = tmp_path / "flaky.yaml"
    path.write_text(FLAKY)
    danger = frozenset({"case-039"})
    baseline = make_run("base", {"case-001"}, safety=danger)
    candidate = make_run("cand", set(), safety=danger)
    repeats = [
        make_run("base-r2", {"case-007", "case-039"}, safety=danger),
        make_run("base-r3", {"case-001", "case-007"}, safety=danger),
    ]
    screen = FlakyScreen(path, [baseline, candidate], repeats, default_spec(), today=TODAY)
    return screen, path


async def test_accept_a_proposal_then_retire_an_entry(tmp_path: Path) -> None:
    screen, path = make_screen(tmp_path)
    async with ScreenApp(screen).run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        entries = screen.query_one("#flaky-entries", DataTable)
        proposals = screen.query_one("#flaky-proposals", DataTable)
        assert entries.row_count == 1 and proposals.row_count == 1
        row = entries.get_row_at(0)
        assert row[3].plain == "flipped in this run"
        assert row[4].plain == "[bold red]judge[/] wording"  # shown literally, not as markup
        caption = screen.query_one("#proposals-caption", Static).content
        assert "case-039" in str(caption)  # the safety case is a finding, not a proposal

        await pilot.press("tab", "a")
        form = pilot.app.screen
        assert isinstance(form, FlakyForm)
        await pilot.press("enter")  # nothing typed: stays open, nothing written
        assert pilot.app.screen is form and path.read_text() == FLAKY
        await pilot.press(*"sam", "enter", *"order", "enter")
        await settled(pilot)  # the form's worker writes, the screen's reviews the list again
        assert on_top(pilot.app) is screen
        data = yaml.safe_load(path.read_text())
        added = data["entries"][1]
        assert (added["case"], added["owner"], added["reason"]) == (
            "case-007",
            "sam",
            "order",
        )
        assert added["evidence"] == (
            "flipped in 1 of 3 identical baseline runs: base pass, base-r2 fail, base-r3 fail"
        )
        assert added["history"] == [{"event": "added", "date": TODAY, "by": "sam"}]
        assert entries.row_count == 2 and proposals.row_count == 0

        entries.focus()
        await pilot.press("r")
        assert isinstance(pilot.app.screen, FlakyForm)
        await pilot.press(*"fixed", "enter")
        await settled(pilot)
        data = yaml.safe_load(path.read_text())
        assert [e["case"] for e in data["entries"]] == ["case-007"]
        assert data["retired"][0]["case"] == "case-001"
        assert data["retired"][0]["history"][-1] == {
            "event": "retired",
            "date": TODAY,
            "by": "qa-oncall",
            "note": "fixed",
        }
        assert entries.row_count == 1


async def test_a_refused_change_is_shown_and_nothing_is_written(tmp_path: Path) -> None:
    screen, path = make_screen(tmp_path)
    path.write_text(FLAKY.replace("qa-oncall", "x") + "  - case: case-002\n")  # malformed entry
    before = path.read_bytes()
    async with ScreenApp(screen).run_test(size=(80, 24)) as pilot:
        await settled(pilot)
        status = str(screen.query_one("#flaky-status", Static).content)
        assert "field 'entries.1.owner': required" in status
        await pilot.press("r")
        assert pilot.app.screen is screen  # nothing to retire from an unreadable list
    assert path.read_bytes() == before


async def test_a_full_disk_is_shown_in_the_form_and_the_app_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(fd: int, payload: bytes) -> None:
        os.close(fd)
        raise OSError(errno.ENOSPC, "No space left on device")

    screen, path = make_screen(tmp_path)
    monkeypatch.setattr(atomic, "_write_synced", disk_full)
    async with ScreenApp(screen).run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("tab", "a", *"sam", "enter", *"order", "enter")
        await settled(pilot)
        form = pilot.app.screen
        assert isinstance(form, FlakyForm)  # still open, with what was typed
        error = str(form.query_one("#form-error", Static).content)
        assert error == f"{path}: cannot be written: No space left on device"
        assert pilot.app.is_running
    assert path.read_text() == FLAKY
    assert [p.name for p in tmp_path.iterdir()] == ["flaky.yaml"]


async def test_free_text_is_cut_with_an_ellipsis_to_the_width_and_shown_whole_on_focus(
    tmp_path: Path,
) -> None:
    """Issue 29: at 80 columns the reason ran off the screen, cut with no sign of it."""
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=(80, 24)) as pilot:
        await keys("f")(pilot)
        screen = app.screen
        assert isinstance(screen, FlakyScreen) and screen.report is not None
        reason = screen.report.entries[0].entry.reason
        entries = screen.query_one("#flaky-entries", DataTable)
        proposals = screen.query_one("#flaky-proposals", DataTable)
        shown = entries.get_row_at(0)[4].plain
        assert shown.endswith("…") and reason.startswith(shown[:-1])
        assert proposals.get_row_at(0)[2].plain.endswith("…")
        assert entries.max_scroll_x == proposals.max_scroll_x == 0  # nothing off the screen
        assert reason in plain(screen.query_one("#flaky-detail", Static).content)
        await pilot.resize_terminal(140, 45)
        await settled(pilot)
        assert entries.get_row_at(0)[4].plain == reason  # room for it whole now
