"""Atomic writes: a reader sees the old file (or folder) or the new one, never half of either.

Every file flipgate writes goes through here: a new one with `write_atomic` (never over a file),
one it edits with `core.io.edit` (under a lock). The bytes are staged in a temporary file beside
the target, synced, then put in place, and the folder is synced so that the new name survives a
crash. What a write stages is removed on every way out, SIGTERM and SIGINT included
(`remove_on_signals`): nothing half-made is left in a workspace.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar


def new_file_mode() -> int:
    """The mode `open` gives a new file: 0o666 less the umask. A file written through a temporary
    one would otherwise be 0600 (mkstemp's): unreadable by the team that shares a decision."""
    try:
        status = Path("/proc/self/status").read_text()
        mask = int(
            next(line for line in status.splitlines() if line.startswith("Umask:")).split()[1], 8
        )
    except (OSError, StopIteration, ValueError):  # no /proc: ask, and put it back at once
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


# What `link` raises on a file system without hard links (some network and FUSE mounts).
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV})


# --------------------------------------------------------------------------- what a write leaves


@dataclass(eq=False)
class Pending:
    """What one write has made and removes when it ends: staged copies, a lock file it holds.

    A signal that ends the process removes them first and marks the write `signalled`: from then
    on it puts nothing in place (a worker thread's write, when the signal was for the main one)."""

    paths: list[Path] = field(default_factory=list)
    signalled: bool = False


_T = TypeVar("_T")
_PENDING: set[Pending] = set()
_HANDLERS: dict[int, Callable[[int, FrameType | None], Any]] = {}


@contextmanager
def pending() -> Iterator[Pending]:
    """A write in progress, its leftovers removed if a signal ends the process meanwhile."""
    remove_on_signals()
    write = Pending()
    _PENDING.add(write)
    try:
        yield write
    finally:
        _PENDING.discard(write)


def remove_on_signals() -> None:
    """From now on SIGTERM and SIGINT first remove what the writes in progress have staged, then
    do what they did before: end the process, or raise KeyboardInterrupt.

    Only the main thread may set a signal's handler: the console script calls this as it starts,
    so that the app's workers are covered too; a call from another thread does nothing."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)
        if previous is _HANDLERS.get(number) or previous == signal.SIG_IGN:
            continue

        def handler(signum: int, frame: FrameType | None, previous: object = previous) -> None:
            for write in list(_PENDING):
                write.signalled = True
                for path in list(write.paths):
                    _remove(path)
            if callable(previous):
                previous(signum, frame)
                return
            signal.signal(signum, signal.SIG_DFL)  # the default action: end the process, now
            os.kill(os.getpid(), signum)

        _HANDLERS[number] = handler
        signal.signal(number, handler)


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass  # the process is ending: what cannot be removed stays, as it would have


def _claim(
    write: Pending, beside: Path, suffix: str, make: Callable[[Path], _T]
) -> tuple[Path, _T]:
    """A new name beside `beside`, made with `make` (which refuses a name that exists). It is held
    in `write` before it exists, so that a signal at any moment finds it."""
    while True:
        name = beside.with_name(f".{beside.name}.{secrets.token_hex(4)}{suffix}")
        write.paths.append(name)
        try:
            return name, make(name)
        except FileExistsError:
            write.paths.remove(name)
        except BaseException:
            write.paths.remove(name)
            raise


@contextmanager
def staged(target: Path, payload: bytes, mode: int, write: Pending) -> Iterator[Path]:
    """`payload` in a new temporary file beside `target`, synced, with `mode`; removed on the
    way out (a file renamed into place is no longer there to remove)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    temp, fd = _claim(write, target, ".tmp", lambda name: os.open(name, flags, 0o600))
    try:
        _write_synced(fd, payload)
        os.chmod(temp, mode)
        yield temp
    finally:
        temp.unlink(missing_ok=True)
        write.paths.remove(temp)


# --------------------------------------------------------------------------- new files and folders


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` to the new file `path` whole or not at all. An existing `path` is never
    replaced, even by a writer that creates it meanwhile: FileExistsError. (A file the tool
    edits is replaced under a lock: `core.io.edit`.)"""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    make_folder(folder)
    if path.exists():
        raise FileExistsError(errno.EEXIST, "the file exists and is never overwritten", str(path))
    with pending() as write, staged(path, payload, new_file_mode(), write) as temp:
        link_new(temp, path, payload)
    sync_folder(folder)


def write_folder_atomic(folder: Path, files: Mapping[str, str | bytes]) -> None:
    """Write `files` (name -> content) as the new folder `folder`, all or nothing.

    The folder is built beside its target and renamed into place. An existing `folder` that is
    not empty is never replaced: FileExistsError (also when one is filled meanwhile).
    """
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FileExistsError(errno.EEXIST, "exists and is not an empty folder", str(folder))
    make_folder(folder.parent)
    with pending() as write:
        staging, _ = _claim(write, folder, "", lambda name: name.mkdir(mode=0o700))
        try:
            for name, data in files.items():
                payload = data.encode("utf-8") if isinstance(data, str) else data
                fd = os.open(
                    staging / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666
                )  # less the umask
                _write_synced(fd, payload)
            sync_folder(staging)
            os.chmod(staging, 0o755)  # made private; a run folder is read by others
            try:
                os.replace(staging, folder)  # an empty folder is replaced atomically too
            except OSError as taken:
                if taken.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    raise FileExistsError(taken.errno, "filled meanwhile", str(folder)) from None
                raise
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    sync_folder(folder.parent)


def make_folder(folder: Path) -> None:
    """Make `folder` and those above it. A file where one should be is said as such: `mkdir`
    reports it as FileExistsError, which would read as "the file we write exists"."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        blocker = next(p for p in (folder, *folder.parents) if p.exists() and not p.is_dir())
        raise NotADirectoryError(
            errno.ENOTDIR, "a file where a folder should be", str(blocker)
        ) from None


def _write_synced(fd: int, payload: bytes) -> None:
    with os.fdopen(fd, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())


def link_new(temp: Path, path: Path, payload: bytes) -> None:
    """Put `temp` in place at `path`, which must not exist."""
    try:
        os.link(temp, path)  # a hard link appears whole or not at all, never over a name
    except FileExistsError:
        raise
    except OSError as refused:
        if refused.errno not in _NO_HARD_LINKS:
            raise
        # No hard links here: O_EXCL still never overwrites, though a reader may see it growing.
        _write_synced(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), payload)


def sync_folder(folder: Path) -> None:
    """Sync a folder, so that the names just made in it survive a crash."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
