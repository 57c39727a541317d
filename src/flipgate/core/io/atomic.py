"""Atomic writes: a reader sees the old file (or folder) or the new one, never half of either.

Every file flipgate writes goes through here. A file is written to a temporary name beside its
target, synced, then put in place, and the folder is synced so that the new name survives a crash.
An existing file is never replaced unless the caller says so.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path


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


def write_atomic(
    path: Path,
    data: str | bytes,
    *,
    overwrite: bool = False,
    check: Callable[[Path], None] | None = None,
) -> None:
    """Write `data` to `path` whole or not at all.

    Without `overwrite`, an existing `path` is never replaced, even by a writer that creates it
    meanwhile: FileExistsError. With it, the file keeps its permissions. `check` is called with
    the written temporary file before it takes `path`'s place; what it raises stops the write.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    folder = path.parent
    _make_folder(folder)
    if not overwrite and path.exists():
        raise FileExistsError(errno.EEXIST, "the file exists and is never overwritten", str(path))
    mode = path.stat().st_mode & 0o777 if overwrite and path.exists() else new_file_mode()
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    temp = Path(temp_name)
    try:
        _write_synced(fd, payload)
        os.chmod(temp, mode)
        if check is not None:
            check(temp)
        if overwrite:
            os.replace(temp, path)
        else:
            _link_new(temp, path, payload)
    finally:
        temp.unlink(missing_ok=True)
    _sync_folder(folder)


def write_folder_atomic(folder: Path, files: Mapping[str, str | bytes]) -> None:
    """Write `files` (name -> content) as the new folder `folder`, all or nothing.

    The folder is built beside its target and renamed into place. An existing `folder` that is
    not empty is never replaced: FileExistsError (also when one is filled meanwhile).
    """
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FileExistsError(errno.EEXIST, "exists and is not an empty folder", str(folder))
    _make_folder(folder.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for name, data in files.items():
            payload = data.encode("utf-8") if isinstance(data, str) else data
            fd = os.open(
                staging / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666
            )  # less the umask
            _write_synced(fd, payload)
        _sync_folder(staging)
        os.chmod(staging, 0o755)  # mkdtemp makes it private; a run folder is read by others
        try:
            os.replace(staging, folder)  # an empty folder is replaced atomically too
        except OSError as taken:
            if taken.errno in (errno.ENOTEMPTY, errno.EEXIST):
                raise FileExistsError(taken.errno, "filled meanwhile", str(folder)) from None
            raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _sync_folder(folder.parent)


def _make_folder(folder: Path) -> None:
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


def _link_new(temp: Path, path: Path, payload: bytes) -> None:
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


def _sync_folder(folder: Path) -> None:
    """Sync a folder, so that the names just made in it survive a crash."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
