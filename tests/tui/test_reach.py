"""What a reviewer takes from any screen: go to a case by id, copy, the pager, export, the theme
remembered, and a case opened wherever its id is listed."""

from __future__ import annotations

import contextlib
import csv
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, OptionList, Static

from flipgate.present.glossary import GLOSSARY
from flipgate.present.reasons import summary
from flipgate.present.search import cases_holding
from flipgate.tui.reach import EXPORTS, GoToCase, TextViewer
from flipgate.tui.screens import (
    calibration,
    candidates,
    case,
    decision,
    flaky,
    overview,
    red_cases,
    triage,
)
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from flipgate.tui.settings import load_settings
from flipgate.tui.widgets.case_table import CaseTable
from flipgate.tui.widgets.key_bar import KeyBar
from tests.conftest import SAMPLES
from tests.tui.conftest import open_app, settled
from tests.tui.test_app import plain

WORKSPACES = Path(__file__).parent / "workspaces"

SIZE = (140, 45)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The agent suite, copied: exports are written into the workspace."""
    return Path(shutil.copytree(SAMPLES / "agent-suite", tmp_path / "ws"))


async def test_go_to_a_case_by_id_with_completion(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("colon")
        assert isinstance(app.screen, GoToCase)
        await pilot.press(*"case-06")
        listed = app.screen.query_one(OptionList)
        ids = [str(listed.get_option_at_index(i).id) for i in range(listed.option_count)]
        assert ids and all(case.startswith("case-06") for case in ids)
        await pilot.press("right")  # takes the completion: the first id that starts so
        assert app.screen.query_one(Input).value == ids[0]
        await pilot.press("enter")
        await settled(pilot)
        assert isinstance(app.screen, CaseScreen) and app.screen.detail.case == ids[0]
        await pilot.press("colon", *"no-such", "enter")
        assert "no case" in str(app.screen.query_one("#go-note").render())
        await pilot.press("escape")
        assert isinstance(app.screen, CaseScreen)


async def test_y_copies_the_reason_in_focus_and_the_case_id(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("colon", *"case-061", "enter")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        assert app.focused is screen.query_one("#cause")  # the cause leads, in focus
        await pilot.press("y")
        reason = screen.focused_text().text
        assert app.clipboard == reason and "goodwill" in reason
        await pilot.press("escape", "r")
        await settled(pilot)
        assert isinstance(app.screen, RedCasesScreen)
        await pilot.press("y")
        case = app.screen.query_one(CaseTable).case_at(0)
        assert case is not None and app.clipboard == case


async def test_o_hands_the_text_to_the_pager_literally(
    workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "paged.txt"
    script = tmp_path / "pager.py"  # a pager that keeps what it was given
    script.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(record)!r})\n")
    pager = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    monkeypatch.setenv("PAGER", pager)
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        # the test's terminal cannot be handed over; the pager runs as it would after it is
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        await settled(pilot)
        await pilot.press("colon", *"case-061", "enter")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, CaseScreen)
        await pilot.press("o")
        await settled(pilot)
        assert record.read_text(encoding="utf-8") == screen.focused_text().text
        assert isinstance(app.screen, CaseScreen)  # nothing shown in the app instead


async def test_without_a_terminal_the_text_opens_in_the_apps_viewer(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("colon", *"case-061", "enter")
        await settled(pilot)
        await pilot.press("o")
        await settled(pilot)
        assert isinstance(app.screen, TextViewer)
        await pilot.press("escape")
        assert isinstance(app.screen, CaseScreen)


async def test_x_exports_the_case_list_as_shown(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("r")
        await settled(pilot)
        await pilot.press("1", "x")  # pass→fail only, as CSV
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, RedCasesScreen)
        written = sorted((workspace / EXPORTS).glob("cases-*.csv"))
        assert len(written) == 1
        rows = list(csv.DictReader(written[0].open(encoding="utf-8")))
        assert [row["case"] for row in rows] == screen.query_one(CaseTable).view["case"].to_list()
        assert rows and {row["direction"] for row in rows} == {"↓ pass→fail"}
        await pilot.press("X")
        await settled(pilot)
        markdown = next((workspace / EXPORTS).glob("cases-*.md")).read_text(encoding="utf-8")
        assert markdown.startswith("| case | direction |")


async def test_a_widens_the_case_list_to_every_case(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("r")
        await settled(pilot)
        table = app.screen.query_one(CaseTable)
        to_review = table.view.height
        await pilot.press("a")
        every = table.view.height
        assert isinstance(app.screen, RedCasesScreen)
        assert every == app.screen.comparison.cases.height > to_review
        assert f"{every} cases" in str(app.screen.query_one("#red-header").render())
        await pilot.press("a")
        assert table.view.height == to_review


async def test_t_says_the_theme_and_the_next_start_remembers_it(
    no_user_environment: Path, notices: list[str]
) -> None:
    app = open_app(WORKSPACES / "block")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("t")
        assert app.flipgate_theme == "light"
    settings = no_user_environment / "flipgate" / "config.yaml"
    assert any(n.startswith("Theme light, remembered in") for n in notices)
    assert load_settings(settings).theme == "light"
    # a keymap written by hand stays as written beside the theme
    settings.write_text("keymap:\n  quit: ctrl+q  # mine\ntheme: light\n", encoding="utf-8")
    app = open_app(WORKSPACES / "block", theme=load_settings(settings).theme or "dark")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert app.flipgate_theme == "light"
        await pilot.press("t")
    assert settings.read_text(encoding="utf-8") == (
        "keymap:\n  quit: ctrl+q  # mine\ntheme: high-contrast\n"
    )


async def test_the_overview_copies_its_verdict_and_offers_no_plan_it_has_not(
    workspace: Path,
) -> None:
    app = open_app(WORKSPACES / "block")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, OverviewScreen)
        await pilot.press("y")
        assert app.clipboard == summary(screen.comparison.result)
        assert app.clipboard.startswith("BLOCK: ")
        assert not screen.offers("export_plan")
        assert "Rerun plan" not in screen.query_one(KeyBar).render().plain
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        assert "Rerun plan" in app.screen.query_one(KeyBar).render().plain


def test_every_screens_words_are_defined_once() -> None:
    screens: list[Any] = [
        calibration.CalibrationScreen,
        candidates.CandidatesScreen,
        case.CaseScreen,
        decision.DecisionScreen,
        flaky.FlakyScreen,
        overview.OverviewScreen,
        red_cases.RedCasesScreen,
        triage.TriageScreen,
    ]
    for screen in screens:
        terms = screen.TERMS
        assert terms and set(terms) <= set(GLOSSARY), screen


async def test_help_puts_the_screens_keys_first_then_its_words() -> None:
    app = open_app(WORKSPACES / "inconclusive")
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("question_mark")
        text = plain(app.screen.query_one("#help Static", Static).content)
        here, everywhere = text.index("keys on this screen"), text.index("keys everywhere")
        words, others = text.index("words on this screen"), text.index("keys of the other screens")
        assert here < everywhere < words < others
        assert "flip cap" in text[words:others] and "Holm" not in text[words:others]


async def test_slash_then_enter_searches_outputs_and_reasons_too(workspace: Path) -> None:
    app = open_app(workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("slash", *"GOODWILL")  # in no case id
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, RedCasesScreen)
        table = screen.query_one(CaseTable)
        assert table.view.height == 0
        await pilot.press("enter")
        shown = table.view["case"].to_list()
        assert "case-061" in shown
        expected = cases_holding(screen.comparison, "goodwill") & set(screen.red["case"])
        assert set(shown) == expected
        assert "in ids, outputs, reasons" in str(screen.query_one("#red-header").render())
        assert cases_holding(screen.comparison, "(.*") == frozenset()  # taken literally
