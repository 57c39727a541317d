"""`flipgate import LOG OUT_DIR`: an Inspect AI or promptfoo log written out as a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flipgate.cli.arguments import Commands, add_import_arguments
from flipgate.core.plural import plural
from flipgate.present.run_notes import note_words
from flipgate.present.text import safe
from flipgate.session import import_log, import_options


def cmd_import(args: argparse.Namespace) -> int:
    imported = import_log(args.log, Path(args.out_dir), import_options(vars(args)))
    for note in imported.notes:
        print(f"flipgate: note: {safe(note_words(note))}", file=sys.stderr)  # words from the log
    print(
        f"flipgate: wrote {plural(len(imported.records), 'repetition')} from {safe(args.log)} "
        f"to {safe(args.out_dir)}"
    )
    return 0


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "import", help="write an Inspect AI or promptfoo log out as a run in our format"
    )
    parser.add_argument("log", metavar="LOG")
    parser.add_argument("out_dir", metavar="OUT_DIR")
    add_import_arguments(parser)
    parser.set_defaults(handler=cmd_import)
