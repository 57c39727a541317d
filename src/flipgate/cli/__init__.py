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
from importlib import import_module

from flipgate.cli.arguments import BAD_INPUT
from flipgate.core.errors import InputError
from flipgate.core.io.listing import text_name
from flipgate.present.text import safe
from flipgate.session import DEFAULT_WORKSPACE, bundled_samples, located
from flipgate.streams import exit_code, guarded_stdout

# Each command and the module of its group, in the order `--help` lists them. Only the chosen
# command's group is imported (`flipgate gate` loads none of what the others import: their Rich
# tables, signing, the suite's pyarrow); `flipgate --help`, a mistyped command and the tests'
# `build_parser()` import every group. tests/cli/test_cli_args.py checks this table against
# what each group adds.
COMMANDS = {
    "gate": "gate",
    "open": "app",
    "serve": "serve",
    "decide": "decide",
    "verify": "decide",
    "replay": "replay",
    "prereg": "prereg",
    "history": "history",
    "import": "importing",
    "flaky": "flaky",
    "outcomes": "outcomes",
    "rank": "rank",
    "power": "stats",
    "calibrate": "stats",
    "suite": "suite",
    "samples": "samples",
}
GROUPS = tuple(dict.fromkeys(COMMANDS.values()))
DEFAULT_COMMAND = "open"  # plain `flipgate`


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command`'s group alone when it names one."""
    parser = argparse.ArgumentParser(
        prog="flipgate",
        description="Triage a red LLM regression gate. With no command, opens the app on the "
        "bundled sample runs.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups = (COMMANDS[command],) if command in COMMANDS else GROUPS
    for group in groups:
        import_module(f"{__name__}.{group}").add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    for arg in argv:  # a name from a shell in another locale: no file, report or key can hold it
        if (shown := text_name(arg)) is not None:
            print(f"flipgate: error: an argument that is not UTF-8 text: {shown}", file=sys.stderr)
            return BAD_INPUT
    parser = build_parser(argv[0] if argv else DEFAULT_COMMAND)
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)[1:]  # after the command: `serve`'s
    if args.command is None:  # plain `flipgate`: the app on the bundled sample
        args = parser.parse_args([DEFAULT_COMMAND, str(bundled_samples() / DEFAULT_WORKSPACE)])
    with guarded_stdout() as stdout:
        try:
            code: int = args.handler(args)
        except InputError as exc:  # its values come from the file: made safe to print
            print(f"flipgate: error: {safe(located(_worded(exc)))}", file=sys.stderr)
            code = BAD_INPUT
    return exit_code(code, stdout)


def _worded(error: InputError) -> InputError:
    """`error` with the words of a failed check of a signed file (the core gives its code);
    imported only then, as `flipgate gate` loads none of the decision file's modules."""
    from flipgate.core.decision.file import Unverified

    if not isinstance(error, Unverified):
        return error
    from flipgate.present.verify import unverified_words

    return unverified_words(error)
