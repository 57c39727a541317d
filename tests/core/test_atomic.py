"""The one atomic writer: whole or nothing, never over a file unless told, synced to disk."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from flipgate.core.io.atomic import write_atomic, write_folder_atomic


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


def test_overwrite_replaces_and_keeps_the_permissions(tmp_path: Path) -> None:
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    target.chmod(0o600)
    write_atomic(target, b"new\n", overwrite=True)
    assert target.read_bytes() == b"new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_file_that_appears_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "decision.yaml"

    def someone_else_writes(written: Path) -> None:
        assert written.read_text() == "mine\n"
        target.write_text("theirs\n")

    with pytest.raises(FileExistsError):
        write_atomic(target, "mine\n", check=someone_else_writes)
    assert target.read_text() == "theirs\n"
    assert leftovers(tmp_path) == []


def test_a_failed_check_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")

    def refuse(written: Path) -> None:
        raise ValueError("not a valid list")

    with pytest.raises(ValueError, match="not a valid list"):
        write_atomic(target, "broken\n", overwrite=True, check=refuse)
    assert target.read_text() == "old\n"
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


def test_the_file_and_its_folder_are_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "walk.yaml", "x\n")
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
