"""The user's keymap: read from the settings file and checked like every input, then honoured by
the bindings, the footer, the help screen and every key a screen names in its text."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Button, Input, Static

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.tui.bindings import KEY_BINDINGS, WHERE, check_keymap
from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.settings import default_settings_path, load_settings
from flipgate.tui.widgets.key_bar import KeyBar
from tests.conftest import REPO, SAMPLES, copy_sample
from tests.tui.test_app import plain

from .conftest import open_app, settled


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return path


def test_a_keymap_is_read_with_keys_as_written(tmp_path: Path) -> None:
    path = write(tmp_path, "keymap:\n  triage-cause: k\n  red-pass-fail: 7\n  help: ' ?, f2 '\n")
    assert load_settings(path).keymap == {"triage-cause": "k", "red-pass-fail": "7", "help": "?,f2"}
    assert load_settings(write(tmp_path, "# nothing yet\n")).keymap == {}


def test_the_settings_live_in_the_xdg_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert default_settings_path({"XDG_CONFIG_HOME": "/etc/xdg-here"}) == Path(
        "/etc/xdg-here/flipgate/config.yaml"
    )
    home = Path("~/.config/flipgate/config.yaml").expanduser()
    assert default_settings_path({}) == home
    assert default_settings_path({"XDG_CONFIG_HOME": "relative"}) == home  # ignored, per XDG
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert load_settings().keymap == {}  # no file there: no settings
    (tmp_path / "flipgate").mkdir()
    (tmp_path / "flipgate" / "config.yaml").write_text("keymap:\n  quit: ctrl+q\n")
    assert load_settings().keymap == {"quit": "ctrl+q"}


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("keymap:\n  quit: q\n  nope: k\n", 3, "keymap.nope", "no key binding has this id"),
        ("keymap:\n  quit: ctrl+qq\n", 2, "keymap.quit", "'ctrl+qq' is not a key"),
        ("keymap:\n  quit: cmd+q\n", 2, "keymap.quit", "'cmd' is not a modifier"),
        (
            "keymap:\n  quit: ctrl+ctrl+q\n",
            2,
            "keymap.quit",
            "'ctrl' is given twice in 'ctrl+ctrl+q'",
        ),
        ("keymap:\n  quit: ''\n", 2, "keymap.quit", "give the keys as text"),
        ("keymap:\n  quit: [q]\n", 2, "keymap.quit", "give the keys as text"),
        (
            "keymap:\n  triage-cause: o\n",
            2,
            "keymap.triage-cause",
            "'o' is already the key of 'triage-ruled-out' (triage checklist)",
        ),
        (
            "keymap:\n  red-search: '1'\n",
            2,
            "keymap.red-search",
            "'1' is already the key of 'red-pass-fail' (red cases)",
        ),
        (
            "keymap:\n  red-sort-worst: z\n  red-clear: z\n",
            2,
            "keymap.red-sort-worst",
            "'z' is already the key of 'red-clear'",
        ),
        ("keymap: [quit]\n", 1, "keymap", "keymap must map binding ids to keys"),
        ("theme: light\n", 1, "theme", "unknown setting (known: keymap)"),
        ("- keymap\n", 1, None, "settings must be a mapping"),
        ("keymap:\n  quit: q\n  quit: x\n", 3, "keymap.quit", "given twice"),
    ],
)
def test_a_wrong_settings_file_names_its_line_and_field(
    tmp_path: Path, text: str, line: int, field: str | None, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        load_settings(write(tmp_path, text))
    assert caught.value.line == line
    assert caught.value.field == field
    assert message in caught.value.message


def test_the_defaults_have_no_clash() -> None:
    assert check_keymap({}) is None


def test_a_wrong_keymap_stops_flipgate_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "keymap:\n  quit: q\n  triage-cause: u\n")
    assert main(["open", str(SAMPLES / "agent-suite"), "--config", str(path)]) == 2
    error = capsys.readouterr().err
    assert f"{path}:3: field 'keymap.triage-cause': 'u' is already the key of" in error
    assert main(["open", str(SAMPLES / "agent-suite"), "--config", str(tmp_path / "no")]) == 2


async def test_remapped_keys_work_and_show_where_the_old_ones_did(tmp_path: Path) -> None:
    workspace = copy_sample("agent-suite", tmp_path / "ws")
    keymap = {
        "triage": "k",
        "triage-cause": "x",
        "triage-note": "ctrl+n",
        "quit": "ctrl+q",
        "export-plan": "E",
    }
    app = open_app(workspace, keymap=keymap)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert "E prices and writes rerun-plan.yaml" in plain(
            app.screen.query_one("#escalation").render()
        )
        await pilot.press("c")  # no longer triage
        assert not isinstance(app.screen, TriageScreen)
        await pilot.press("k")
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert str(screen.query_one("#cause", Button).label) == "cause (x)"
        assert "(ctrl+n)" in screen.query_one("#note", Input).placeholder
        bar = plain(screen.query_one(KeyBar).render())
        assert "x Cause" in bar and "^q Quit" in bar
        await pilot.press("x")
        assert screen.walk is not None and screen.walk.findings["infra"].finding == "cause"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        shown = plain(app.screen.query_one(Static).content)
        assert "ctrl+q" in shown and "Cause" in shown
        await pilot.press("escape", "q")  # q quits no more
        assert app.is_running
        await pilot.press("ctrl+q")
    assert not app.is_running


def test_docs_list_every_binding_with_its_id_and_default_keys() -> None:
    doc = (REPO / "docs" / "keys.md").read_text()
    for entry in KEY_BINDINGS:
        where = WHERE.get(entry.screen, entry.screen)
        row = f"| `{entry.id}` | `{entry.key}` | {entry.description} | {where} |"
        assert row in doc


def test_suite_open_takes_the_keymap_and_refuses_a_wrong_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28 item 17: `suite open` read no settings: a keymap was ignored, a bad one too."""
    from flipgate.tui import factory
    from flipgate.tui.app import FlipgateApp

    opened: list[FlipgateApp] = []

    def run_app(app: FlipgateApp) -> int:
        opened.append(app)
        return 0

    monkeypatch.setattr(factory, "run_app", run_app)
    support = str(SAMPLES / "support-assistant")
    bad = write(tmp_path, "keymap:\n  suite-retire: ctrl+ctrl+x\n")
    assert main(["suite", "open", support, "--config", str(bad)]) == 2
    assert f"{bad}:2: field 'keymap.suite-retire'" in capsys.readouterr().err and not opened
    good = write(tmp_path, "keymap:\n  suite-retire: x\n")
    assert main(["suite", "open", support, "--config", str(good)]) == 0
    assert [app.user_keymap for app in opened] == [{"suite-retire": "x"}]
