"""Reading the files we are given: regular files only, and every failure an `InputError`.

A pull request can commit a FIFO, or a link to `/dev/zero`, where a results file should be: read,
either hangs the gate. A directory, an unreadable file and a vanished one are bad input too,
never a traceback.
"""

from __future__ import annotations

import stat
from pathlib import Path

from flipgate.core.errors import InputError

_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def regular_file(path: Path) -> Path:
    """`path`, when it is (or links to) a regular file; else the error that says what it is."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as exc:
        raise unreadable(path, exc) from None
    if stat.S_ISDIR(mode):
        raise InputError(path, "is a directory, not a file")
    if not stat.S_ISREG(mode):
        kind = next((word for test, word in _KINDS if test(mode)), "not a file")
        raise InputError(path, f"is {kind}, not a regular file: only regular files are read")
    return path


def read_bytes(path: Path) -> bytes:
    regular_file(path)
    try:
        return path.read_bytes()
    except OSError as exc:
        raise unreadable(path, exc) from None


def unreadable(path: Path, exc: OSError) -> InputError:
    return InputError(path, f"cannot be read: {exc.strerror or exc}")
