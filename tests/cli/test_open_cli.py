"""`flipgate open`: bad input is an error on the terminal and exit 2: before the app starts when
it is cheap to find (the arguments, the spec), else when the app's loading worker finds it, which
ends the app (run here headless) before the error is said."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from textual.message import Message

import flipgate.tui.factory
from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.tui.app import GateApp
from flipgate.tui.reach import EXPORTS
from tests.cli.headless import headless, until_loaded
from tests.conftest import SAMPLES, write_run


def _no_app(app: object) -> int:
    raise AssertionError("the app must not start on bad input")


def test_a_bad_run_found_while_loading_ends_the_app_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[GateApp] = []

    def run(app: GateApp) -> int:
        started.append(app)
        return headless(app)

    monkeypatch.setattr(flipgate.tui.factory, "run_app", run)
    good = write_run(tmp_path / "good", [{"case": "a", "passed": True}])
    bad = write_run(tmp_path / "bad", [{"case": "a", "passed": True}])
    (bad / "results.jsonl").write_text(json.dumps({"case": 5, "passed": True}) + "\n")
    assert main(["open", str(good), str(bad)]) == 2
    assert f"{bad / 'results.jsonl'}:1: field 'case': must be a string" in capsys.readouterr().err
    [app] = started  # it started, painted its loading screen, and was ended by the error
    assert isinstance(app.load_error, InputError) and not app.is_running
    assert not (tmp_path / "good" / EXPORTS).exists() and not (tmp_path / EXPORTS).exists()


def test_bad_spec_and_missing_workspace_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flipgate.tui.factory, "run_app", _no_app)
    spec = tmp_path / "gate.yaml"
    spec.write_text("alpah: 0.1\n")
    assert main(["open", str(SAMPLES / "agent-suite"), "--gate", str(spec)]) == 2
    assert main(["open", str(tmp_path / "nowhere")]) == 2


def test_a_baseline_repeat_of_another_system_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(flipgate.tui.factory, "run_app", headless)
    workspace = SAMPLES / "agent-suite"
    other = write_run(tmp_path / "other", [{"case": "a", "passed": True}], key={"model": "other"})
    assert main(["open", str(workspace), "--baseline-repeat", str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{other}: field 'key." in err and "not an identical baseline run: key" in err


def test_good_input_starts_the_app_at_once_and_it_reads_the_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[object] = []

    def fake_run(app: GateApp) -> int:
        started.append(app)
        return 0

    monkeypatch.setattr(flipgate.tui.factory, "run_app", fake_run)
    assert main(["open", str(SAMPLES / "agent-suite")]) == 0
    [app] = started
    assert isinstance(app, GateApp) and app.inputs is None and app.quit_on_error
    assert main(["open", str(SAMPLES / "agent-suite")]) == 0


def test_good_input_read_by_the_app_keeps_the_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[GateApp] = []

    def run(app: GateApp) -> int:
        started.append(app)
        return until_loaded(app)

    monkeypatch.setattr(flipgate.tui.factory, "run_app", run)
    assert main(["open", str(SAMPLES / "agent-suite")]) == 0
    [app] = started
    assert app.inputs is not None and len(app.inputs.repeats) == 2  # baseline-repeats/


def test_quitting_while_the_runs_load_does_not_wait_for_the_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a million cases the read and the gate take their seconds in a thread that cannot be
    stopped: quitting meanwhile ends the process at once rather than when they are done."""
    release = threading.Event()
    read = GateApp.read

    def held(app: GateApp) -> Message:
        release.wait(30)
        return read(app)

    def quit_at_once(app: GateApp) -> int:
        app.call_later(app.exit)
        return headless(app)

    exits: list[int] = []
    monkeypatch.setattr(GateApp, "read", held)
    monkeypatch.setattr(os, "_exit", exits.append)
    monkeypatch.setattr(flipgate.tui.factory, "run_app", quit_at_once)
    try:
        main(["open", str(SAMPLES / "agent-suite")])
        assert exits == [0] and not release.is_set()  # ended with the read still under way
    finally:
        release.set()
