"""`flipgate samples DIR`: the bundled sample workspaces copied where the user says, to try them."""

from __future__ import annotations

import argparse
from pathlib import Path

from flipgate.cli.arguments import Commands
from flipgate.core.plural import plural
from flipgate.session import copy_samples


def cmd_samples(args: argparse.Namespace) -> int:
    names = copy_samples(args.folder)
    print(f"flipgate: copied {plural(len(names), 'sample workspace')} to {args.folder}:")
    for name in names:
        print(f"  {args.folder / name}")
    return 0


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "samples", help="copy the bundled sample workspaces into a folder, to try them there"
    )
    parser.add_argument("folder", metavar="DIR", type=Path, help="made if missing")
    parser.set_defaults(handler=cmd_samples)
