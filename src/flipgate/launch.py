"""The console script's entry point: what must happen before the first heavy import.

Importing polars, numpy and Rich loads 565 modules and some 48,000 objects the cycle collector
tracks, all of them alive until exit. Left running, the collector makes over a hundred passes
during the imports and walks them again in the older generations' passes of the command: about
0.1 s of a 1.3 s `flipgate gate` (interleaved runs of the 100,000-case benchmark). So it is
paused for the imports, and what they built is frozen out of its sight before it resumes; later
passes see only what the command itself allocates.
"""

from __future__ import annotations

import gc
import os
import sys
import traceback

INTERRUPTED = 130  # the shell's status for a command ended by SIGINT
# A failure that no input should cause (a bug): never 1, which CI reads as BLOCK (sysexits.h's
# EX_SOFTWARE). Every input the tool refuses is an `InputError`, exit 2.
INTERNAL_ERROR = 70


def run() -> None:
    """`flipgate`: main, then an exit that skips the interpreter's teardown.

    Freeing a large gate's frames object by object costs a CI job a tenth of a second after the
    verdict is out. By then every file flipgate wrote is renamed and closed, and only the two
    standard streams still need flushing.
    """
    try:
        gc.disable()
        from flipgate.core.io.atomic import remove_on_signals

        remove_on_signals()  # before the app starts threads that write: set from this one only
        from flipgate.cli import main

        gc.freeze()
        gc.enable()
        code = main()
    except (
        KeyboardInterrupt
    ):  # Ctrl-C: every write is atomic, so what was not finished is not there
        print("flipgate: interrupted; nothing unfinished was written", file=sys.stderr)
        code = INTERRUPTED
    except SystemExit:  # argparse's usage errors: exit 2, said by argparse
        raise
    except BaseException:  # a bug (a panic in polars' Rust is a BaseException): never exit 1
        traceback.print_exc()
        print(
            "flipgate: internal error (a bug in flipgate, not in the input: please report it "
            "with the lines above); nothing unfinished was written",
            file=sys.stderr,
        )
        code = INTERNAL_ERROR
    from flipgate.core.io.remote import remove_copies  # os._exit runs no atexit handler

    remove_copies()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # `flipgate gate ... | head`: the reader left, nothing is lost
        pass
    os._exit(code)
