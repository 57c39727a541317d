"""`flipgate open`: bad input is an error on the terminal, exit 2, before any screen is drawn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flipgate.tui.factory
from flipgate.cli import main
from flipgate.tui.app import GateApp
from tests.conftest import SAMPLES, write_run


def _no_app(app: object) -> int:
    raise AssertionError("the app must not start on bad input")


def test_bad_run_exits_2_before_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(flipgate.tui.factory, "run_app", _no_app)
    good = write_run(tmp_path / "good", [{"case": "a", "passed": True}])
    bad = write_run(tmp_path / "bad", [{"case": "a", "passed": True}])
    (bad / "results.jsonl").write_text(json.dumps({"case": 5, "passed": True}) + "\n")
    assert main(["open", str(good), str(bad)]) == 2
    assert f"{bad / 'results.jsonl'}:1: field 'case': must be a string" in capsys.readouterr().err


def test_bad_spec_and_missing_workspace_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(flipgate.tui.factory, "run_app", _no_app)
    spec = tmp_path / "gate.yaml"
    spec.write_text("alpah: 0.1\n")
    assert main(["open", str(SAMPLES / "agent-suite"), "--gate", str(spec)]) == 2
    assert main(["open", str(tmp_path / "nowhere")]) == 2


def test_a_baseline_repeat_of_another_system_exits_2_before_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(flipgate.tui.factory, "run_app", _no_app)
    workspace = SAMPLES / "agent-suite"
    other = write_run(tmp_path / "other", [{"case": "a", "passed": True}], key={"model": "other"})
    assert main(["open", str(workspace), "--baseline-repeat", str(other)]) == 2
    err = capsys.readouterr().err
    assert f"{other}: field 'key." in err and "not an identical baseline run: key" in err


def test_good_input_starts_the_app_with_the_runs_already_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[object] = []

    def fake_run(app: GateApp) -> int:
        started.append(app)
        return 0

    monkeypatch.setattr(flipgate.tui.factory, "run_app", fake_run)
    assert main(["open", str(SAMPLES / "agent-suite")]) == 0
    [app] = started
    assert isinstance(app, GateApp) and app.inputs is not None
    assert len(app.inputs.repeats) == 2  # the workspace's baseline-repeats/
