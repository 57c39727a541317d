"""`flipgate replay`: a signed decision's review log walked again in the app, read-only.

    flipgate replay DECISION_FILE [--allowed-signers FILE] [--theme THEME] [--config FILE]

The decision must verify (as `flipgate verify` checks it) and hold a review log; its runs are
read and checked before the app starts: bad input is exit 2, as with `flipgate open`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from flipgate.cli.arguments import Commands, add_app_arguments
from flipgate.session import read, replay_request


def cmd_replay(args: argparse.Namespace) -> int:
    from flipgate.tui.app import ReplayApp
    from flipgate.tui.factory import run_app
    from flipgate.tui.settings import load_settings

    settings = load_settings(args.config)
    theme = args.theme or settings.theme or "dark"
    request, record = replay_request(Path(args.decision_file), args.allowed_signers)
    with Console(stderr=True).status("reading the runs") as status:
        inputs = read(request, status.update)
    path = Path(args.decision_file)
    app = ReplayApp(
        request,
        record,
        path,
        theme,
        inputs=inputs,
        keymap=settings.keymap,
        settings_path=args.config,
    )
    return run_app(app)


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "replay", help="walk a signed decision's review log again in the app, read-only"
    )
    parser.add_argument("decision_file", metavar="DECISION_FILE")
    parser.add_argument(
        "--allowed-signers", type=Path, help="default: git's gpg.ssh.allowedSignersFile"
    )
    add_app_arguments(parser)
    parser.set_defaults(handler=cmd_replay)
