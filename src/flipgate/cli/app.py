"""`flipgate open`: the triage app on a workspace, two runs, or a campaign of candidates.

The app paints at once and its loading worker reads, checks and gates the runs, saying each step
(at a million cases that takes the gate's time, not a blank terminal's). What is cheap to check,
the arguments, the gate spec and the lists, is checked before the app starts, and handed to it
(read once); bad input the worker finds ends the app. Either way bad input is an error on the
terminal, naming the file, line and field, and exit 2, as with `flipgate gate`: the app writes
nothing while it loads. A bug found while loading ends the app too, then is said as one (exit
70, `launch`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from flipgate.cli.arguments import (
    Commands,
    add_app_arguments,
    add_comparison_arguments,
    add_record_arguments,
    add_repeat_arguments,
    add_rerun_arguments,
    gate_request,
)
from flipgate.session import read_terms

RUNS = (
    "a workspace folder (with candidate/, or candidates/NAME/ to rank them first), or BASELINE "
    "CANDIDATE (run folders, run.yaml, Inspect logs or promptfoo results.json)"
)


def cmd_open(args: argparse.Namespace) -> int:
    from flipgate.tui.factory import make_app, run_app
    from flipgate.tui.settings import load_settings

    settings = load_settings(args.config)
    request = gate_request(args, "pair_or_campaign")
    read = None
    if args.kept is not None:  # a tab of `flipgate serve`, which read and checked every file
        from flipgate.session.kept import kept

        read = kept(args.kept)
    # else the spec and the lists: cheap, so bad ones are said before the app; not read again
    terms = read.terms if read is not None else read_terms(request)
    theme = args.theme or settings.theme or "dark"
    app = make_app(
        request,
        theme=theme,
        keymap=settings.keymap,
        settings_path=args.config,
        quit_on_error=True,
        terms=terms,
        read=read,
    )
    return run_app(app)


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser("open", help="open the triage app on a workspace or two runs")
    add_open_arguments(parser)
    # `flipgate serve`'s, for its tabs: the inputs it read and kept (session/kept.py)
    parser.add_argument("--kept", type=Path, help=argparse.SUPPRESS)
    parser.set_defaults(handler=cmd_open)


def add_open_arguments(parser: argparse.ArgumentParser) -> None:
    """What the app is opened on, and how: `open`'s arguments, and `serve`'s too."""
    add_comparison_arguments(parser, runs=RUNS)
    add_app_arguments(parser)
    add_rerun_arguments(parser)
    add_record_arguments(parser)
    add_repeat_arguments(parser)
