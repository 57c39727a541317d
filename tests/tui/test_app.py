"""The app shell: the factory, loading (progress and errors), themes, help, palette, quit, and
untrusted text shown literally."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from flipgate.core.errors import InputError
from flipgate.core.gate.rules import BY_NAME
from flipgate.tui.app import GateApp
from flipgate.tui.bindings import KEY_BINDINGS, key_bindings
from flipgate.tui.format import case_ids, literal, safe
from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.widgets import FlipMatrix, KeyDiff, TitleBar, VerdictBanner
from flipgate.tui.widgets.case_format import Palette
from flipgate.tui.widgets.case_table import CaseTable
from flipgate.tui.widgets.key_bar import KeyBar
from flipgate.tui.widgets.trajectory import TrajectoryView
from flipgate.tui.widgets.verdict import SAFETY_SHOWN
from tests.conftest import SAMPLES, passfail_rows, write_run
from tests.tui.conftest import open_app, settled

WORKSPACES = Path(__file__).parent / "workspaces"
HOSTILE = "[bold red]boom[/] [link=https://evil.example]click[/link] \x1b[31mred\x1b[0m"


def plain(renderable: object, width: int = 200) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_format_literal_never_reads_markup_or_escapes() -> None:
    text = literal(HOSTILE)
    assert text.plain == "[bold red]boom[/] [link=https://evil.example]click[/link] ␛[31mred␛[0m"
    assert text.spans == []
    assert safe("a\x9bb\x7fc\td") == "a\\u009bb␡c␉d"
    assert safe("a\x9bb\x7fc\td", lines=True) == "a\\u009bb␡c\td"


def test_factory_rejects_a_folder_that_is_not_a_workspace(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a workspace"):
        open_app(tmp_path)
    with pytest.raises(ValueError, match="unknown theme"):
        open_app(WORKSPACES / "block", theme="sepia")


def test_plan_folder_is_the_workspace_or_beside_the_candidate(tmp_path: Path) -> None:
    assert open_app(WORKSPACES / "block").request.folder == WORKSPACES / "block"
    for run in ("a/base", "b/cand"):
        (tmp_path / run).mkdir(parents=True)
    app = open_app(tmp_path / "a" / "base", tmp_path / "b" / "cand")
    assert app.request.folder == tmp_path / "b"
    log = tmp_path / "b" / "cand" / "run.yaml"  # a run given by its manifest: same folder
    assert open_app(tmp_path / "a" / "base", log).request.folder == tmp_path / "b"


async def test_opens_on_the_overview_with_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    app = open_app(WORKSPACES / "inconclusive")
    steps: list[str] = []
    original = LoadingScreen.show_progress

    def record(screen: LoadingScreen, step: int, total: int, description: str) -> None:
        steps.append(description)
        original(screen, step, total, description)

    monkeypatch.setattr(LoadingScreen, "show_progress", record)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert isinstance(app.screen, OverviewScreen)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        assert "? INCONCLUSIVE" in banner
        assert f"rule {BY_NAME['undecided'].number} · undecided" in banner
        assert (
            "6 cases broke, 2 were fixed; p = 0.188 by template > 0.0125, but net 4 > margin 2"
            in banner
        )
        assert "margin 2" in banner and "flip cap 10" in banner and "alpha 0.05" in banner
        assert app.screen.focused is app.screen.query_one(FlipMatrix)
    assert steps[0] == "reading the gate spec"
    assert "reading baseline/results.jsonl" in steps
    assert "checking candidate" in steps
    assert steps[-1] == "pairing the cases and counting the flips"


async def test_bad_input_shows_file_line_and_field_and_quits() -> None:
    app = open_app(WORKSPACES / "bad")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert isinstance(app.screen, LoadingScreen)
        error = plain(app.screen.query_one("#error", Static).content)
        assert "file  " in error and "bad/candidate/results.jsonl" in error
        assert "line  3" in error
        assert "field  actual.prohibited_items" in error
        assert "label 'maybe' is not one of the run's labels" in error
        await pilot.press("q")
    assert isinstance(app.load_error, InputError)
    assert app.load_error.line == 3


async def test_the_loading_screen_names_the_runs_and_says_the_keys_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Painted before anything is read (at a million cases the gate takes its seconds): the runs
    named, and a key of the overview pressed meanwhile said not to work yet, not ignored."""
    release = threading.Event()
    read = GateApp.read

    def held(app: GateApp) -> Message:
        assert release.wait(30)
        return read(app)

    monkeypatch.setattr(GateApp, "read", held)
    app = open_app(SAMPLES / "agent-suite")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen)
        runs = plain(app.screen.query_one("#runs", Static).content)
        assert "baseline" in runs and "agent-suite/candidate" in runs
        await pilot.press("r")
        assert isinstance(app.screen, LoadingScreen)
        [said] = [n.message for n in app._notifications]
        assert said.startswith("Not yet: the runs are still being read and gated.")
        release.set()
        await settled(pilot)
        assert isinstance(app.screen, OverviewScreen)


async def test_switching_theme_reapplies_the_stylesheet() -> None:
    app = open_app(WORKSPACES / "inconclusive", theme="dark")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        matrix = app.screen.query_one(FlipMatrix)
        assert app.screen.styles.background.hex == "#1A1B26"
        await pilot.press("t")
        assert (app.flipgate_theme, app.theme) == ("light", "flipgate-light")
        assert app.screen.styles.background.hex == "#FAFAFA"
        assert matrix.style("pass").color is not None
        assert matrix.style("pass").color.triplet.hex == "#1a7f37"  # type: ignore[union-attr]
        app.use_theme("high-contrast")
        await pilot.pause()
        assert app.screen.styles.background.hex == "#000000"
        assert matrix.style("b").color.triplet.hex == "#ff8800"  # type: ignore[union-attr]


async def test_a_new_theme_recolours_the_drill_down_and_the_red_cases() -> None:
    """The case screen and the red-case table coloured their text from the theme they opened
    in: after `t`, the turn under the cursor kept dark-theme grey behind light-theme text."""
    app = open_app(SAMPLES / "agent-suite", theme="dark")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        dark = Palette.of(app)
        await pilot.press("r")
        await settled(pilot)
        table = app.screen.query_one(CaseTable)
        assert table.palette == dark
        await pilot.press("enter")
        await settled(pilot)
        await pilot.press("t")
        await settled(pilot)
        light = Palette.of(app)
        assert light.cursor != dark.cursor and light.bad != dark.bad
        trajectory = app.screen.query_one(TrajectoryView)
        row = trajectory.turns.render_line(trajectory.cursor_offset()[0])
        backgrounds = {segment.style.bgcolor for segment in row if segment.style}
        assert light.cursor.bgcolor in backgrounds and dark.cursor.bgcolor not in backgrounds
        header = app.screen.query_one("#case-header", Static).content
        assert isinstance(header, Text) and light.bad in {span.style for span in header.spans}
        await pilot.press("escape")
        await settled(pilot)
        assert table.palette == light


async def test_help_lists_every_binding_and_closes() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listing = plain(app.screen.query_one(Static).content)
        for entry in KEY_BINDINGS:
            assert entry.description in listing
        await pilot.press("escape")
        assert isinstance(app.screen, OverviewScreen)


async def test_key_bar_keeps_the_screens_main_keys_whole_and_clicks() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        bar = app.screen.query_one(KeyBar)
        line = bar.render().plain
        overview = [e for e in key_bindings("overview") if e.show]
        for entry in overview:
            if entry.priority < 3:
                assert entry.description in line
        assert "…" not in line and "⏎ Open" in line and "? Help" in line
        assert line.rstrip().endswith("^p Commands") and len(line) == 140
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = bar.render().plain
        assert len(narrow) == 80 and "…" not in narrow
        for entry in overview:
            if entry.priority == 1:
                assert entry.description in narrow
        assert "? Help" in narrow and narrow.endswith("^p Commands ")
        # what is left out is whole keys of the lowest priority, never a cut label
        assert "Calibrate" not in narrow and "Suite health" not in narrow
        cases = narrow.index("Cases")
        await pilot.click(KeyBar, offset=(cases + 1, 0))
        await pilot.pause()
        assert isinstance(app.screen, RedCasesScreen)


async def test_palette_switches_theme_and_quits() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"high-contrast")
        await settled(pilot)  # the palette searches in a worker
        await pilot.press("enter")
        await pilot.pause()
        assert app.flipgate_theme == "high-contrast"
        await pilot.press("ctrl+p")
        await pilot.press(*"quit")
        await settled(pilot)
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_code == 0
    assert not app.is_running


async def test_q_quits() -> None:
    app = open_app(WORKSPACES / "block")
    async with app.run_test() as pilot:
        await settled(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_untrusted_run_ids_and_key_values_show_literally(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACES / "block", workspace)
    for arm in ("baseline", "candidate"):
        manifest = {
            "run_id": f"{arm} {HOSTILE}",
            "key": {"model": f"m-{arm}", "prompt": HOSTILE},
        }
        if arm == "candidate":
            manifest["change"] = {"keys": ["model"], "summary": HOSTILE}
        (workspace / arm / "run.yaml").write_text(json.dumps(manifest))
    app = open_app(workspace)
    async with app.run_test(size=(200, 45)) as pilot:
        await settled(pilot)
        shown = literal(HOSTILE).plain
        title = app.screen.query_one(TitleBar).render()
        assert f"candidate {shown}" in title.plain  # type: ignore[union-attr]
        keys = plain(app.screen.query_one(KeyDiff).render())
        assert keys.count(shown) == 3  # both arms' prompt, and the change summary
        assert "\x1b" not in keys and "\x1b" not in title.plain  # type: ignore[union-attr]


def test_case_ids_name_the_first_and_count_the_rest() -> None:
    assert case_ids(["a", "b"], 3).plain == "a, b"
    assert case_ids([f"c{i}" for i in range(20)], 2).plain == "c0, c1 … +18"
    assert case_ids(["[bold]x[/]"], 1).plain == "[bold]x[/]"  # ids are read from the run


async def test_the_banner_names_twelve_failed_safety_cases_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    cases = [f"case-{i:02}" for i in range(SAFETY_SHOWN + 8)]
    for arm, passed in (("baseline", True), ("candidate", False)):
        write_run(tmp_path / arm, passfail_rows({c: [passed] for c in cases}, safety=cases))
    app = open_app(tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        banner = plain(app.screen.query_one(VerdictBanner).render())
        assert "⚠ safety failures: case-00, case-01, case-02, " in banner
        assert "case-11 … +8" in banner and "case-12" not in banner
