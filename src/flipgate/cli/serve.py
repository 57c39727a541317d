"""`flipgate serve`: the app of `flipgate open`, served to a browser through textual-serve.

Each browser tab runs its own `flipgate open` with the arguments given here, on the machine that
serves it: it reads the files here, and a decision signed in it is signed with this machine's
key (the decision screen says so). The runs are read and checked once before the server starts,
so bad input is exit 2 on this terminal rather than an error in every tab, and kept for the tabs
to map (`session/kept.py`): a tab reads no file again. The server listens on 127.0.0.1 unless
`--host` says otherwise, and then says what that exposes.
"""

from __future__ import annotations

import argparse
import pickle
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from flipgate.cli.app import add_open_arguments
from flipgate.cli.arguments import Commands, gate_request
from flipgate.present.text import safe
from flipgate.session import CampaignInputs, GateInputs, read, read_campaign

LOCAL = "127.0.0.1"
SERVE_OPTIONS = ("--host", "--port")


def open_arguments(argv: Sequence[str]) -> list[str]:
    """`flipgate serve`'s arguments without its own options: those of `flipgate open`."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in SERVE_OPTIONS:
            skip = True  # its value follows
        elif not arg.startswith(tuple(f"{option}=" for option in SERVE_OPTIONS)):
            kept.append(arg)
    return kept


def cmd_serve(args: argparse.Namespace) -> int:
    request = gate_request(args, "pair_or_campaign")
    with Console(stderr=True).status("reading the runs") as status:
        if request.is_campaign:
            inputs: GateInputs | CampaignInputs = read_campaign(request, status.update)
        else:
            inputs = read(request, status.update)
    with tempfile.TemporaryDirectory(prefix="flipgate-serve-") as folder:  # mode 0700
        kept = _keep(inputs, Path(folder))
        del inputs  # the tabs map what was kept: the server need not hold it while it serves
        return _serve(args, kept)


def _keep(inputs: GateInputs | CampaignInputs, folder: Path) -> list[str]:
    """`open`'s option that gives a tab `inputs`, kept in `folder` for it to map read-only;
    none, said, when they cannot be kept (a part that cannot be pickled, such as a ledger's open
    connection; a full disk): each tab reads them then, as it would have."""
    import polars as pl

    from flipgate.session.kept import keep

    try:
        keep(inputs, folder)
    except (
        TypeError,
        AttributeError,
        pickle.PicklingError,
        pl.exceptions.PolarsError,
        OSError,
    ) as e:
        print(
            f"flipgate: note: the runs read could not be kept for the tabs ({type(e).__name__}: "
            f"{safe(str(e))}); each tab reads them again",
            file=sys.stderr,
        )
        return []
    return ["--kept", str(folder)]


def _serve(args: argparse.Namespace, kept: list[str]) -> int:
    from textual_serve.server import Server

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    if args.host != LOCAL:
        err.print(
            f"flipgate: warning: serving on {args.host}: anyone who can reach it reads these runs "
            "and signs decisions with this machine's key",
            markup=False,
        )
    command = shlex.join(
        [sys.executable, "-m", "flipgate", "open", *open_arguments(args.argv), *kept]
    )
    err.print(f"flipgate: serving the app at http://{args.host}:{args.port}", markup=False)
    Server(command, host=args.host, port=args.port, title="flipgate").serve()
    return 0


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "serve", help="serve the app of `open` to a browser (textual-serve, on 127.0.0.1)"
    )
    add_open_arguments(parser)
    parser.add_argument(
        "--host", default=LOCAL, help=f"the address to listen on (default: {LOCAL}, this machine)"
    )
    parser.add_argument("--port", type=int, default=8000, help="the port (default: 8000)")
    parser.set_defaults(handler=cmd_serve)
