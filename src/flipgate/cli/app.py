"""`flipgate open`: the triage app on a workspace, two runs, or a campaign of candidates.

Every file is read and checked before any screen is drawn: bad input is an error on the terminal
and exit 2, as with `flipgate gate`; the app's worker then gates what was read.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from flipgate.cli.arguments import (
    Commands,
    add_app_arguments,
    add_comparison_arguments,
    add_record_arguments,
    add_repeat_arguments,
    add_rerun_arguments,
    gate_request,
)
from flipgate.session import read, read_campaign

RUNS = (
    "a workspace folder (with candidate/, or candidates/NAME/ to rank them first), or BASELINE "
    "CANDIDATE (run folders, run.yaml, Inspect logs or promptfoo results.json)"
)


def cmd_open(args: argparse.Namespace) -> int:
    from flipgate.tui.factory import make_app, run_app
    from flipgate.tui.settings import load_settings

    settings = load_settings(args.config)
    request = gate_request(args, "pair_or_campaign")
    with Console(stderr=True).status("reading the runs") as status:
        loaded = (
            read_campaign(request, status.update)
            if request.is_campaign
            else read(request, status.update)
        )
    return run_app(make_app(request, theme=args.theme, keymap=settings.keymap, loaded=loaded))


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser("open", help="open the triage app on a workspace or two runs")
    add_comparison_arguments(parser, runs=RUNS)
    add_app_arguments(parser)
    add_rerun_arguments(parser)
    add_record_arguments(parser)
    add_repeat_arguments(parser)
    parser.set_defaults(handler=cmd_open)
