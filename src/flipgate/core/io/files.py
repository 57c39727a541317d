"""Reading the files we are given (regular files only) and writing ours: every failure an
`InputError` that names the file and says why.

A pull request can commit a FIFO, or a link to `/dev/zero`, where a results file should be: read,
either hangs the gate. A directory, an unreadable file and a vanished one are bad input too,
never a traceback.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """A failed write of `path` as the error that says what could not be written and why:
    exit 2, where a traceback was exit 1, which CI reads as BLOCK. The writers are atomic
    (`core.io.atomic`): a write that fails leaves nothing behind. That the file exists is left
    to the caller to say (FileExistsError)."""
    try:
        yield
    except FileExistsError:
        raise
    except OSError as exc:
        raise unwritable(path, exc) from None


def unwritable(path: Path, exc: OSError) -> InputError:
    """The failed write of `path`, naming what refused it when that is another file: not the
    staged copy or lock file beside it, which are ours (`core.io.atomic`, `core.io.edit`)."""
    failed = Path(exc.filename) if exc.filename else path
    ours = failed.parent == path.parent and failed.name.startswith(f".{path.name}.")
    where = "" if failed == path or ours else f" ({failed})"
    return InputError(path, f"cannot be written{where}: {exc.strerror or exc}")
