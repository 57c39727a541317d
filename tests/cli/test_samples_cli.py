"""`flipgate samples DIR` and plain `flipgate`: the bundled samples are tried in a copy, never in
the package's own folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import flipgate.tui.factory
from flipgate.cli import main
from flipgate.session import samples as bundled
from flipgate.tui.app import GateApp
from tests.cli.headless import until_loaded
from tests.conftest import SAMPLES, files_below

NAMES = ["agent-suite", "listing-reviewer", "listing-reviewer-decisive", "support-assistant"]
NAMES.append("winner-rule")


def test_the_package_holds_the_five_workspaces() -> None:
    assert [workspace.name for workspace in bundled.workspaces()] == NAMES


@pytest.mark.usefixtures("pristine_bundle")
def test_samples_copies_every_workspace_where_the_user_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "tour"
    assert main(["samples", str(target)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"flipgate: copied 5 sample workspaces to {target}:",
        *(f"  {target / name}" for name in NAMES),
    ]
    assert sorted(p.name for p in target.iterdir()) == NAMES  # no staging folder left
    for name in NAMES:
        assert files_below(target / name) == files_below(SAMPLES / name), name
    assert main(["gate", str(target / "listing-reviewer")]) == 0


@pytest.mark.usefixtures("pristine_bundle")
def test_samples_never_copies_over_a_tried_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "winner-rule").mkdir()
    (tmp_path / "mine.txt").write_text("kept\n")
    assert main(["samples", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'winner-rule'}: exists, and a sample is never copied over it" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt", "winner-rule"]


def test_samples_into_a_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "taken").write_text("")
    assert main(["samples", str(tmp_path / "taken")]) == 2
    assert f"{tmp_path / 'taken'}: cannot be written" in capsys.readouterr().err


@pytest.mark.usefixtures("pristine_bundle")
def test_plain_flipgate_opens_its_own_copy_and_keeps_what_the_user_did(
    monkeypatch: pytest.MonkeyPatch, environment: Path
) -> None:
    """The copy is made on first use in `$XDG_DATA_HOME/flipgate/samples/`; a second start opens
    it as the user left it, and puts back only a workspace that is missing."""
    started: list[GateApp] = []

    def run_app(app: GateApp) -> int:
        started.append(app)
        return until_loaded(app)  # the app reads the runs in its worker

    monkeypatch.setattr(flipgate.tui.factory, "run_app", run_app)
    assert main([]) == 0
    copy = environment / ".local/share/flipgate/samples"
    assert started[0].request.folder == copy / "listing-reviewer"
    assert started[0].inputs is not None
    assert started[0].inputs.baseline.run_id == "lr-2026-11-18-main"
    assert sorted(p.name for p in copy.iterdir()) == NAMES
    walk = copy / "listing-reviewer" / ".flipgate" / "triage.yaml"
    walk.parent.mkdir()
    walk.write_text("a walk the user saved\n")
    shutil.rmtree(copy / "winner-rule")
    assert main([]) == 0
    assert walk.read_text() == "a walk the user saved\n"
    assert files_below(copy / "winner-rule") == files_below(SAMPLES / "winner-rule")


@pytest.mark.usefixtures("pristine_bundle")
def test_a_relative_data_home_is_ignored(environment: Path) -> None:
    """As XDG says: a relative XDG_DATA_HOME is not used; ~/.local/share is."""
    assert bundled.user_samples({"XDG_DATA_HOME": "relative"}) == (
        environment / ".local/share/flipgate/samples"
    )
