"""The atomic writers: whole or nothing, never over a file (an edit replaces it under its lock:
`test_edit.py`), synced to disk."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from flipgate.core.io.atomic import write_atomic, write_folder_atomic
from flipgate.core.io.edit import edit


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_new_file_is_written_and_an_existing_one_kept(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "plan.yaml"
    write_atomic(target, "first\n")
    assert target.read_text() == "first\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    with pytest.raises(FileExistsError):
        write_atomic(target, "second\n")
    assert target.read_text() == "first\n"
    assert leftovers(target.parent) == []


def test_a_file_that_appears_meanwhile_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "decision.yaml"
    real_link = os.link

    def someone_else_writes_first(source: Path, name: Path) -> None:
        assert Path(source).read_text() == "mine\n"
        target.write_text("theirs\n")
        real_link(source, name)

    monkeypatch.setattr(os, "link", someone_else_writes_first)
    with pytest.raises(FileExistsError):
        write_atomic(target, "mine\n")
    assert target.read_text() == "theirs\n"
    assert leftovers(tmp_path) == []


def test_without_hard_links_it_still_never_overwrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(source: Path, target: Path) -> None:
        raise OSError(errno.EXDEV, "hard links not supported here")

    monkeypatch.setattr(os, "link", no_links)
    target = tmp_path / "decision.yaml"
    write_atomic(target, "signed\n")
    assert target.read_text() == "signed\n"
    with pytest.raises(FileExistsError):
        write_atomic(target, "again\n")
    assert target.read_text() == "signed\n"
    assert leftovers(tmp_path) == []


def edited(target: Path, data: str) -> None:
    with edit(target) as file:
        file.replace(data)


@pytest.mark.parametrize("write", [write_atomic, edited], ids=["new file", "edited file"])
def test_the_file_and_its_folder_are_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Callable[[Path, str], None]
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write(tmp_path / "walk.yaml", "x\n")
    assert synced == ["file", "folder"]


def test_a_folder_is_written_whole_and_never_over_a_filled_one(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "imported"
    write_folder_atomic(run, {"run.yaml": "run_id: x\n", "results.jsonl": b"{}\n"})
    assert sorted(p.name for p in run.iterdir()) == ["results.jsonl", "run.yaml"]
    assert (run / "results.jsonl").read_bytes() == b"{}\n"
    with pytest.raises(FileExistsError):
        write_folder_atomic(run, {"run.yaml": "run_id: y\n"})
    assert (run / "run.yaml").read_text() == "run_id: x\n"
    assert leftovers(run.parent) == []


def test_an_empty_folder_is_filled(tmp_path: Path) -> None:
    run = tmp_path / "empty"
    run.mkdir()
    write_folder_atomic(run, {"run.yaml": "run_id: x\n"})
    assert (run / "run.yaml").read_text() == "run_id: x\n"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_follows_the_umask(tmp_path: Path, umask: int, mode: int) -> None:
    """A decision a team shares was written 0600 whatever the umask said."""
    old = os.umask(umask)
    try:
        write_atomic(tmp_path / "decision.yaml", "signed\n")
        write_folder_atomic(tmp_path / "run", {"run.yaml": "run_id: r\n"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "decision.yaml").stat().st_mode) == mode
    assert stat.S_IMODE((tmp_path / "run" / "run.yaml").stat().st_mode) == mode


def test_a_file_where_the_folder_should_be_is_no_existing_target(tmp_path: Path) -> None:
    """`mkdir` says FileExistsError there, which read as "the file we write exists"."""
    (tmp_path / "a-file").write_text("")
    with pytest.raises(NotADirectoryError) as error:
        write_atomic(tmp_path / "a-file" / "plan.yaml", "plan\n")
    assert error.value.filename == str(tmp_path / "a-file")
