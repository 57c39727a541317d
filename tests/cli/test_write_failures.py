"""The commands that edit or write a file, when the disk will not take it: a clear error naming
the file, exit 2 and no traceback, the old file whole and nothing left beside it. And the
suite manifest edited through a link, and in every layout YAML allows."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
import yaml

import flipgate.core.io.atomic as atomic
from flipgate.cli import main
from tests.conftest import write_run

CASES = [f"case-{i:03d}" for i in range(40)]


def run_rows(failing: set[str]) -> list[dict[str, object]]:
    return [{"case": c, "rep": r, "passed": c not in failing} for c in CASES for r in range(3)]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A baseline, a candidate, two identical reruns of the baseline, a flaky list, a manifest."""
    ws = tmp_path / "ws"
    write_run(ws / "baseline", run_rows({"case-003"}), run_id="base")
    write_run(ws / "candidate", run_rows(set()), run_id="cand")
    write_run(ws / "baseline-repeats" / "r2", run_rows({"case-007"}), run_id="base-r2")
    write_run(ws / "baseline-repeats" / "r3", run_rows({"case-003"}), run_id="base-r3")
    (ws / "flaky.yaml").write_text(
        "entries:\n  - case: case-001\n    owner: qa\n    added: 2026-11-01\n"
        "    reason: r\n    evidence: e\n"
    )
    cases = "".join(f"  - {{case: {c}, intent: a, added: 2026-01-02}}\n" for c in CASES)
    (ws / "suite.yaml").write_text(f"suite: s\ncases:\n{cases}")
    return ws


def disk_full(fd: int, payload: bytes) -> None:
    os.close(fd)
    raise OSError(errno.ENOSPC, "No space left on device")


def folder_read_only(folder: Path) -> Callable[..., int]:
    """`os.open` as a read-only mount answers for a new file in `folder` (the tests may run as
    root, which writes into a folder of mode 0555 all the same)."""
    real_open = os.open

    def refused(path: os.PathLike[str] | str, flags: int, *args: int) -> int:
        if flags & os.O_CREAT and Path(path).parent == folder:
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args)

    return refused


COMMANDS = {
    "suite retire": (["suite", "retire", "case-005", "--reason", "gone"], "suite.yaml"),
    "flaky add": (
        ["flaky", "add", "case-007", "--owner", "sam", "--reason", "order"],
        "flaky.yaml",
    ),
    "flaky remove": (["flaky", "remove", "case-001", "--note", "fixed"], "flaky.yaml"),
    "calibrate": (["calibrate", "--out", "{ws}/proposed.yaml"], "proposed.yaml"),
}


def command(name: str, ws: Path) -> list[str]:
    argv, _ = COMMANDS[name]
    argv = [arg.replace("{ws}", str(ws)) for arg in argv]
    return [*argv, str(ws)] if name == "calibrate" else [*argv, "-w", str(ws)]


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize("failure", ["disk full", "read-only folder"])
def test_a_write_the_disk_refuses_is_said_and_exits_2(
    workspace: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    failure: str,
) -> None:
    target = workspace / COMMANDS[name][1]
    before = {p.name: p.read_bytes() for p in workspace.iterdir() if p.is_file()}
    if failure == "disk full":
        monkeypatch.setattr(atomic, "_write_synced", disk_full)
        said = f"{target}: cannot be written: No space left on device"
    else:
        monkeypatch.setattr(os, "open", folder_read_only(workspace))
        said = f"{target}: cannot be written: Read-only file system"
    assert main(command(name, workspace)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"flipgate: error: {said}"), err
    assert "Traceback" not in err
    assert {p.name: p.read_bytes() for p in workspace.iterdir() if p.is_file()} == before


def test_the_commands_write_when_the_disk_takes_it(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same commands, the same workspace, nothing refused: each writes its file."""
    for name in COMMANDS:
        assert main(command(name, workspace)) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert "case-005" in {
        c["case"] for c in yaml.safe_load((workspace / "suite.yaml").read_text())["archive"]
    }
    flaky = yaml.safe_load((workspace / "flaky.yaml").read_text())
    assert [e["case"] for e in flaky["entries"]] == ["case-007"]
    assert (workspace / "proposed.yaml").is_file()
    assert sorted(p.name for p in workspace.iterdir() if p.name.startswith(".")) == []


# --------------------------------------------------------------------------- the suite manifest


def test_a_linked_manifest_is_edited_through_the_link(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = workspace.parent / "shared"
    shared.mkdir()
    (workspace / "suite.yaml").rename(shared / "suite.yaml")
    (workspace / "suite.yaml").symlink_to(Path("..") / "shared" / "suite.yaml")
    assert main(["suite", "retire", "case-005", "--reason", "gone", "-w", str(workspace)]) == 0
    capsys.readouterr()
    assert (workspace / "suite.yaml").is_symlink()
    data = yaml.safe_load((shared / "suite.yaml").read_text())
    assert [c["case"] for c in data["archive"]] == ["case-005"]
    assert sorted(p.name for p in shared.iterdir()) == ["suite.yaml"]


LAYOUTS = {
    "items at column 0": (
        "suite: s\ncases:\n- {case: c1, intent: a, added: 2026-01-02}\n"
        "- {case: c2, intent: a, added: 2026-01-02}\n"
        "archive:\n  - {case: c0, intent: a, added: 2026-01-02, retired: 2026-01-03, reason: x}\n"
    ),
    "an archive at column 0": (
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n"
        "  - {case: c2, intent: a, added: 2026-01-02}\n"
        "archive:\n- {case: c0, intent: a, added: 2026-01-02, retired: 2026-01-03, reason: x}\n"
    ),
    "an end marker": (
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n"
        "  - {case: c2, intent: a, added: 2026-01-02}\n...\n"
    ),
    "a merge key": (
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n"
        "  - case: c2\n    <<: {intent: a, added: 2026-01-02}\n"
    ),
    "block mappings with comments": (
        "# the record\nsuite: s\ncases:\n  - case: c1\n    intent: a\n    added: 2026-01-02\n"
        "  # c2 is next\n  - case: c2   # the one\n    intent: a\n    added: 2026-01-02\n"
        "# archived cases below\narchive: []\n"
    ),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_retire_takes_every_layout_yaml_allows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "suite.yaml").write_text(LAYOUTS[layout])
    assert main(["suite", "retire", "c2", "--reason", "gone", "-w", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "comments dropped" not in out  # edited in place, not written out whole
    after = (ws / "suite.yaml").read_text()
    data = yaml.safe_load(after)
    assert [c["case"] for c in data["cases"]] == ["c1"]
    assert data["archive"][-1] == {
        "case": "c2",
        "intent": "a",
        "added": date(2026, 1, 2),
        "retired": date.today(),
        "reason": "gone",
    }
    kept = [line for line in LAYOUTS[layout].splitlines() if line.lstrip().startswith("#")]
    assert all(line in after.splitlines() for line in kept)
    assert main(["suite", "audit", str(ws), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["live_cases"] == 1


def test_a_merge_key_with_an_alias_is_refused_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    text = (
        "suite: s\nbase: &base {intent: a, added: 2026-01-02}\ncases:\n"
        "  - {case: c1, <<: *base}\n  - {case: c2, <<: *base}\n"
    )
    (ws / "suite.yaml").write_text(text)
    assert main(["suite", "retire", "c2", "--reason", "gone", "-w", str(ws)]) == 2
    err = capsys.readouterr().err
    assert f"{ws / 'suite.yaml'}:4: field 'cases.0" in err and "alias" in err
    assert (ws / "suite.yaml").read_text() == text
