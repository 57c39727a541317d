"""One locked read-modify-write for every file the tool edits: the flaky list, the suite manifest,
the triage walks, a rerun plan written over.

    with edit(path) as file:        # waits for the file's lock
        text = change(file.before)  # its bytes as the lock found them (None: no file yet)
        file.replace(text)          # staged, synced, checked unchanged on disk, put in place

Two writers at once take turns on an advisory lock (`flock`) on a sibling file, `.NAME.lock`, so
that neither loses the other's change; a writer that takes no lock (an editor) is caught by the
check that the file is still as it was read. A link is followed: the file it points at is
edited, the link stays a link. Every failure is an `InputError` that names the file (exit 2): a
full disk, a read-only folder, a permission refused, a lock held too long. On any of them, and
on SIGTERM or SIGINT, the file stays as it was and nothing is left beside it.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.errors import InputError
from flipgate.core.io.atomic import (
    Pending,
    link_new,
    make_folder,
    new_file_mode,
    pending,
    staged,
    sync_folder,
)
from flipgate.core.io.files import read_bytes, writing

LOCK_WAIT = 60.0  # seconds a writer waits for another to finish before it says so


@dataclass
class EditedFile:
    """A file being edited under its lock."""

    path: Path  # as given: every error names it
    target: Path  # the file itself, a link followed
    before: bytes | None  # its bytes when the lock was taken; None: there was no file
    _write: Pending

    def replace(self, data: str | bytes) -> None:
        """Put `data` in the file's place, whole, unless the file changed since it was read."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        with writing(self.path):
            mode = (
                new_file_mode() if self.before is None else stat.S_IMODE(self.target.stat().st_mode)
            )
            with staged(self.target, payload, mode, self._write) as temp:
                if self._write.signalled:
                    raise InputError(self.path, "interrupted; nothing written")
                if _current(self.path) != self.before:
                    raise InputError(
                        self.path, "changed on disk while being edited; nothing written"
                    )
                if self.before is None:
                    try:
                        link_new(temp, self.target, payload)
                    except FileExistsError:
                        raise InputError(
                            self.path, "made by another writer while being edited; nothing written"
                        ) from None
                else:
                    os.replace(temp, self.target)
            sync_folder(self.target.parent)


@contextmanager
def edit(path: Path) -> Iterator[EditedFile]:
    """`path` locked against the tool's other writers while the caller reads and replaces it."""
    target = Path(os.path.realpath(path))
    with pending() as write, _locked(path, target, write):
        yield EditedFile(path, target, _current(path), write)


def _current(path: Path) -> bytes | None:
    """The file's bytes, None when there is no file (or a link to none)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return None
    except OSError:
        pass  # read_bytes says why it cannot be read
    return read_bytes(path)


@contextmanager
def _locked(path: Path, target: Path, write: Pending) -> Iterator[None]:
    lock = target.with_name(f".{target.name}.lock")
    with writing(path):
        make_folder(target.parent)
        fd = _acquire(lock, path)
    write.paths.append(lock)
    try:
        yield
    finally:
        write.paths.remove(lock)
        # Removed while still held: a writer waiting on this file then finds it gone, and
        # takes the lock on the one at the name now (`_acquire`).
        lock.unlink(missing_ok=True)
        os.close(fd)


def _acquire(lock: Path, path: Path) -> int:
    deadline = time.monotonic() + LOCK_WAIT
    pause = 0.002
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() > deadline:
                raise InputError(
                    path,
                    f"another process has been editing it for over {LOCK_WAIT:g} s (it holds "
                    f"{lock.name}); nothing written",
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
            continue
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, lock):
            return fd
        os.close(fd)  # the writer before let go and removed it: lock the one at the name now


def _same_file(fd: int, path: Path) -> bool:
    try:
        named = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)
