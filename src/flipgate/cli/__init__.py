"""The command line: `flipgate gate` for CI, `flipgate open` for the app, and the tools around them.

One module per command group, each adding its commands to the parser (`add_parser`); the
arguments several of them take are declared once, in `arguments`. Every command asks the
application layer (`flipgate.session`) for what it reads and compares, and only prints.

Exit codes (SPEC §8): 0 PASS, 1 BLOCK, 3 INCONCLUSIVE, 4 INVALID, 2 bad usage or bad input;
`flipgate rank`: 0 a winner clears the incumbent, 1 none may replace it, 2 bad input.
Every input is loaded and validated before anything is written or drawn.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from flipgate.cli import (
    app,
    decide,
    flaky,
    gate,
    history,
    importing,
    outcomes,
    prereg,
    rank,
    replay,
    samples,
    stats,
    suite,
)
from flipgate.cli.arguments import BAD_INPUT
from flipgate.core.errors import InputError
from flipgate.core.io.listing import text_name
from flipgate.present.text import safe
from flipgate.session import DEFAULT_WORKSPACE, bundled_samples, located
from flipgate.streams import exit_code, guarded_stdout

GROUPS = (
    gate,
    app,
    decide,
    replay,
    prereg,
    history,
    importing,
    flaky,
    outcomes,
    rank,
    stats,
    suite,
    samples,
)  # in the order `--help` lists


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="flipgate",
        description="Triage a red LLM regression gate. With no command, opens the app on the "
        "bundled sample runs.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in GROUPS:
        group.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    for arg in argv:  # a name from a shell in another locale: no file, report or key can hold it
        if (shown := text_name(arg)) is not None:
            print(f"flipgate: error: an argument that is not UTF-8 text: {shown}", file=sys.stderr)
            return BAD_INPUT
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # plain `flipgate`: the app on the bundled sample
        args = parser.parse_args(["open", str(bundled_samples() / DEFAULT_WORKSPACE)])
    with guarded_stdout() as stdout:
        try:
            code: int = args.handler(args)
        except InputError as exc:
            print(f"flipgate: error: {safe(located(exc))}", file=sys.stderr)  # values from the file
            code = BAD_INPUT
    return exit_code(code, stdout)
