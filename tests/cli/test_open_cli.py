"""`flipgate open`: bad input is an error on the terminal and exit 2: before the app starts when
it is cheap to find (the arguments, the spec), else when the app's loading worker finds it, which
ends the app (run here headless) before the error is said."""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

import flipgate.session.reading
import flipgate.tui.factory
from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.runs.reading import load_run
from flipgate.tui.app import GateApp
from flipgate.tui.reach import EXPORTS
from tests.cli.headless import headless, until_loaded
from tests.conftest import SAMPLES, write_run


def _no_app(app: object) -> int:
    raise AssertionError("the app must not start on bad input")


def _started(monkeypatch: pytest.MonkeyPatch, run: Callable[[GateApp], int]) -> list[GateApp]:
    """The apps `flipgate open` starts, each run by `run` (`headless`, `until_loaded`)."""
    started: list[GateApp] = []

    def run_app(app: GateApp) -> int:
        started.append(app)
        return run(app)

    monkeypatch.setattr(flipgate.tui.factory, "run_app", run_app)
    return started


def test_a_bad_run_found_while_loading_ends_the_app_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started = _started(monkeypatch, headless)
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
    started = _started(monkeypatch, until_loaded)
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


def test_the_spec_and_the_lists_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line reads them to say bad ones before the app starts; the app's loading
    worker takes them from it rather than reading them again."""
    reads: Counter[str] = Counter()
    for name in ("load_spec", "load_flaky"):
        read = getattr(flipgate.session.reading, name)

        def counted(*args: object, _name: str = name, _read: Any = read) -> object:
            reads[_name] += 1
            return _read(*args)

        monkeypatch.setattr(flipgate.session.reading, name, counted)
    started = _started(monkeypatch, until_loaded)
    assert main(["open", str(SAMPLES / "agent-suite")]) == 0
    [app] = started
    assert app.inputs is not None and app.inputs.terms is app.terms
    assert reads == {"load_spec": 1, "load_flaky": 1}


def test_a_run_the_system_cannot_read_while_loading_is_bad_input_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An `OSError` reading a run the user named (a permission, a disk error) is exit 2 naming
    the file, as a malformed one is; the app ends first, so the terminal is restored."""
    good = write_run(tmp_path / "good", [{"case": "a", "passed": True}])
    denied = write_run(tmp_path / "denied", [{"case": "a", "passed": True}])

    def refused(path: Path, **options: Any) -> object:
        if path == denied:
            raise PermissionError(errno.EACCES, "Permission denied", str(path / "results.jsonl"))
        return load_run(path, **options)

    monkeypatch.setattr(flipgate.session.reading, "load_run", refused)
    started = _started(monkeypatch, headless)
    assert main(["open", str(good), str(denied)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"flipgate: error: {denied / 'results.jsonl'}: cannot be read: Permission denied\n"
    )
    [app] = started
    assert isinstance(app.load_error, InputError) and not app.is_running


def test_a_bug_while_loading_is_an_internal_error_exit_70_once_the_app_ended(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What no input should cause is not called bad input: the console script says it is a bug
    and exits 70 (`launch`), after the app has ended and given the terminal back."""
    import gc

    from flipgate import launch

    def broken(app: GateApp) -> Message:
        raise RuntimeError("a bug in the loading worker")

    exits: list[int] = []
    monkeypatch.setattr(GateApp, "read", broken)
    started = _started(monkeypatch, headless)
    monkeypatch.setattr(os, "_exit", exits.append)
    monkeypatch.setattr(sys, "argv", ["flipgate", "open", str(SAMPLES / "agent-suite")])
    try:
        launch.run()
    finally:
        gc.unfreeze()
    assert exits == [launch.INTERNAL_ERROR]
    [app] = started
    assert isinstance(app.load_error, RuntimeError) and not app.is_running
    err = capsys.readouterr().err
    assert "RuntimeError: a bug in the loading worker" in err
    assert err.endswith("nothing unfinished was written\n") and "flipgate: error:" not in err
