"""Nothing is written where the user did not ask (issue 21): no command writes into the folder it
is run from, and each writes only where its arguments, or its workspace, say."""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.cli import main
from tests.conftest import SAMPLES, KeyMaker, copy_sample


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder the commands run in."""
    folder = tmp_path / "here"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_sample("agent-suite", tmp_path / "agent-suite")


def files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*"))


def test_the_reading_commands_write_nothing_anywhere(
    here: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = files(workspace)
    ws, baseline = str(workspace), str(workspace / "baseline")
    repeats = [str(p) for p in sorted((workspace / "baseline-repeats").iterdir())]
    for command in (
        ["gate", ws],
        ["gate", ws, "--format", "junit"],
        ["rank", str(SAMPLES / "winner-rule")],
        ["calibrate", ws],
        ["calibrate", baseline, *repeats, "--gate", str(workspace / "gate.yaml")],
        ["flaky", "propose", "-w", ws],
        ["flaky", "propose", baseline, *repeats],
        ["flaky", "check", "-w", ws],
        ["suite", "audit", str(SAMPLES / "support-assistant")],
        ["power"],
    ):
        assert main(command) in (0, 1, 3), command
    capsys.readouterr()
    assert files(here) == [] and files(workspace) == before


def test_a_flaky_edit_or_a_retirement_needs_its_file_named(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --flaky or -w, `flaky add` and `flaky remove` used to edit ./flaky.yaml."""
    add = ["flaky", "add", "case-1", "--owner", "qa", "--reason", "noisy", "--evidence", "2 of 3"]
    assert main([*add, "--suite", str(SAMPLES / "agent-suite" / "baseline")]) == 2
    assert "give --flaky FILE or -w WORKSPACE" in capsys.readouterr().err
    assert main(["flaky", "remove", "case-005", "--note", "fixed"]) == 2
    assert "give --flaky FILE or -w WORKSPACE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main(["suite", "retire", "sa-011", "--reason", "gone"])  # -w is required
    assert refused.value.code == 2
    assert files(here) == []


def test_decide_on_two_runs_writes_beside_the_candidate_as_the_app_does(
    tmp_path: Path, isolated_git: Path, make_key: KeyMaker, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = copy_sample("agent-suite", tmp_path / "runs")
    here = tmp_path / "here"
    here.mkdir()
    key = make_key("ana")
    command = ["decide", str(runs / "baseline"), str(runs / "candidate"), "--decision", "reject"]
    command += ["--cause", "regression", "--reason", "refunds", "--key", str(key)]
    command += ["--reviewer", "Ana <ana@example.com>"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(here)
        assert main(command) == 0
    [written] = (runs / "decisions").iterdir()
    assert f"signed decision written to {written}" in capsys.readouterr().out
    assert files(here) == []
