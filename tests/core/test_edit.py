"""The one locked read-modify-write (`core.io.edit`): whole or nothing, never over a change made
meanwhile, through a link, and every failure said with the file's name."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path

import pytest

import flipgate.core.io.atomic as atomic
import flipgate.core.io.edit as editing
from flipgate.core.errors import InputError
from flipgate.core.io.edit import edit


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_an_edit_reads_once_replaces_and_keeps_the_permissions(tmp_path: Path) -> None:
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    target.chmod(0o600)
    with edit(target) as file:
        assert file.before == b"old\n"
        assert leftovers(tmp_path) == [".flaky.yaml.lock"]  # held while the edit is made
        file.replace("new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert leftovers(tmp_path) == []


def test_a_new_file_is_made_with_its_folder(tmp_path: Path) -> None:
    target = tmp_path / ".flipgate" / "triage.yaml"
    with edit(target) as file:
        assert file.before is None
        file.replace("walks: []\n")
    assert target.read_text() == "walks: []\n"
    assert leftovers(target.parent) == []


def test_a_refusal_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    with pytest.raises(ValueError, match="not a valid list"), edit(target):
        raise ValueError("not a valid list")
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


def test_a_change_made_without_the_lock_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "suite.yaml"
    target.write_text("mine\n")
    with (
        pytest.raises(InputError, match="changed on disk while being edited"),
        edit(target) as file,
    ):
        target.write_text("an editor saved this\n")  # takes no lock
        file.replace("ours\n")
    assert target.read_text() == "an editor saved this\n"
    assert leftovers(tmp_path) == []


def test_a_file_made_meanwhile_without_the_lock_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "rerun-plan.yaml"
    with pytest.raises(InputError, match="changed on disk"), edit(target) as file:
        assert file.before is None
        target.write_text("theirs\n")
        file.replace("ours\n")
    assert target.read_text() == "theirs\n"
    real_link = atomic.link_new

    def just_before(temp: Path, path: Path, payload: bytes) -> None:
        path.write_text("theirs, again\n")  # between the check and the link
        real_link(temp, path, payload)

    monkeypatch.setattr(editing, "link_new", just_before)
    target.unlink()
    with pytest.raises(InputError, match="made by another writer"), edit(target) as file:
        file.replace("ours\n")
    assert target.read_text() == "theirs, again\n"
    assert leftovers(tmp_path) == []


def test_a_link_is_edited_through_and_stays_a_link(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "suite.yaml"
    real.write_text("old\n")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    link = workspace / "suite.yaml"
    link.symlink_to(Path("..") / "shared" / "suite.yaml")
    with edit(link) as file:
        assert leftovers(shared) == [".suite.yaml.lock"]  # beside the file itself
        file.replace("new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert leftovers(shared) == [] and leftovers(workspace) == []


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (errno.ENOSPC, "No space left on device"),
        (errno.EDQUOT, "Disk quota exceeded"),
        (errno.EIO, "Input/output error"),
    ],
)
def test_a_full_disk_is_said_with_the_file_and_leaves_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, said: str
) -> None:
    def full(fd: int, payload: bytes) -> None:
        os.close(fd)
        raise OSError(code, os.strerror(code))

    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    monkeypatch.setattr(atomic, "_write_synced", full)
    with pytest.raises(InputError) as error, edit(target) as file:
        file.replace("new\n")
    assert str(error.value) == f"{target}: cannot be written: {said}"
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("code", "said"),
    [(errno.EROFS, "Read-only file system"), (errno.EACCES, "Permission denied")],
)
def test_a_folder_that_takes_no_new_file_is_said_with_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, said: str
) -> None:
    """A read-only mount, or a folder the user may not write: the lock file cannot be made.
    (Simulated: the tests may run as root, which writes into a folder of mode 0555.)"""
    real_open = os.open
    target = tmp_path / "suite.yaml"
    target.write_text("old\n")

    def refused(path: os.PathLike[str] | str, flags: int, *args: int) -> int:
        if flags & os.O_CREAT and Path(path).parent == tmp_path:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refused)
    with pytest.raises(InputError) as error, edit(target) as file:
        file.replace("new\n")
    assert str(error.value) == f"{target}: cannot be written: {said}"
    assert target.read_text() == "old\n"


def test_a_replace_the_folder_refuses_is_said_with_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(source: str, name: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(source), None, str(name))

    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    monkeypatch.setattr(os, "replace", refused)
    with pytest.raises(InputError) as error, edit(target) as file:
        file.replace("new\n")
    assert str(error.value).startswith(f"{target}: cannot be written")
    assert "Permission denied" in str(error.value)
    assert target.read_text() == "old\n"
    assert leftovers(tmp_path) == []


def test_a_lock_held_too_long_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    monkeypatch.setattr(editing, "LOCK_WAIT", 0.05)
    held = os.open(tmp_path / ".flaky.yaml.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # another writer, mid-edit
        with pytest.raises(InputError, match="another process has been editing it"), edit(target):
            pass
    finally:
        os.close(held)
    assert target.read_text() == "old\n"


def test_a_lock_file_removed_by_the_writer_before_is_not_trusted(tmp_path: Path) -> None:
    """The writer before removes the lock file as it lets go: a writer that was waiting on that
    file must not take the lock on it, or a third could lock a new file beside it."""
    target = tmp_path / "flaky.yaml"
    target.write_text("old\n")
    lock = tmp_path / ".flaky.yaml.lock"
    stale = os.open(lock, os.O_RDWR | os.O_CREAT)
    lock.unlink()
    try:
        assert not editing._same_file(stale, lock)
    finally:
        os.close(stale)
    with edit(target) as file:
        file.replace("new\n")
    assert target.read_text() == "new\n" and leftovers(tmp_path) == []
