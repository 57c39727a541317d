"""Standard output as a CI job's pipe or file: a failed write never hides the command's exit code.

`flipgate gate ... | head -c 100` closes the pipe while the report is being printed; `> /dev/full`
fails on the first flush; a C-locale job's stdout cannot encode `✓`. Each was a traceback and
exit 1, which CI reads as BLOCK. Here a reader that left (a broken pipe) changes nothing: the
verdict's exit code stands and nothing more is printed. Any other write error is reported on
standard error, with exit 2: the output asked for was not written.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any, TextIO

WRITE_FAILED = 2


class _Guarded:
    """A text stream that remembers its first write error instead of raising it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.failure: OSError | None = None

    def write(self, text: str) -> int:
        if self.failure is None:
            try:
                return self._stream.write(text)
            except OSError as exc:
                self.failure = exc
        return len(text)

    def flush(self) -> None:
        if self.failure is None:
            try:
                self._stream.flush()
            except OSError as exc:
                self.failure = exc

    def __getattr__(self, name: str) -> Any:  # encoding, isatty, fileno... as the stream's
        return getattr(self._stream, name)


@contextmanager
def guarded_stdout() -> Iterator[_Guarded]:
    """`sys.stdout` guarded for the block; text it cannot encode is written as `\\u2713`."""
    original = sys.stdout
    if isinstance(original, io.TextIOWrapper):
        original.reconfigure(errors="backslashreplace")
    guarded = _Guarded(original)
    sys.stdout = guarded
    try:
        yield guarded
        guarded.flush()
    finally:
        sys.stdout = original
        if guarded.failure is not None:
            _discard(original)


def _discard(stream: TextIO) -> None:
    """Point the stream's descriptor at /dev/null: what is still buffered goes nowhere."""
    # A test's captured stream has no descriptor: there is nothing to point elsewhere.
    with suppress(OSError, ValueError, io.UnsupportedOperation):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)


def exit_code(code: int, guarded: _Guarded) -> int:
    """The command's code, unless its output could not be written (and no reader left first)."""
    failure = guarded.failure
    if failure is None or isinstance(failure, BrokenPipeError):
        return code
    print(
        f"flipgate: error: cannot write to standard output: {failure.strerror or failure}",
        file=sys.stderr,
    )
    return WRITE_FAILED
