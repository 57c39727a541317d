"""`flipgate history`: what a ledger of attempts remembers (issue 24 item 2).

    flipgate history --ledger PATH|git|git:REMOTE [--change-id ID] [--case CASE]
                     [--last N] [--format text|json]

Every change's attempts (or one change's, with `--change-id`), and the flaky candidates over the
last N gates; with `--case`, that case's verdict in each of them. Reading checks every entry's
chain: a ledger changed, cut or reordered is bad input (exit 2) naming the entry.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flipgate.cli.arguments import Commands
from flipgate.core.attempts.entry import Attempt
from flipgate.core.attempts.history import (
    RECENT,
    case_history,
    changes,
    flaky_candidates,
    of_change,
)
from flipgate.core.attempts.ledger import Place, open_ledger
from flipgate.core.errors import InputError
from flipgate.present import history as words
from flipgate.present.report import json_text


def cmd_history(args: argparse.Namespace) -> int:
    ledger = open_ledger(Place.parse(args.ledger, Path(), git=Path.cwd()))
    attempts = ledger.read()
    listed: tuple[tuple[str, tuple[Attempt, ...]], ...]
    if args.change_id is not None:
        shown = of_change(attempts, args.change_id)
        if not shown:
            raise InputError(
                Path("--change-id"), f"no attempt of {args.change_id!r} in {ledger.where}"
            )
        listed = ((args.change_id, shown),)
    else:
        listed = changes(attempts)
    count = min(args.last, len(attempts))
    candidates = flaky_candidates(attempts, count=args.last)
    case = None if args.case is None else case_history(attempts, args.case, count=args.last)
    if args.format == "json":
        data: dict[str, Any] = {
            "ledger": ledger.where,
            "changes": [
                {"change_id": change_id, "attempts": [words.attempt_json(a) for a in shown]}
                for change_id, shown in listed
            ],
            "recent": count,
            "flaky_candidates": [words.candidate_json(c) for c in candidates],
            "head": attempts[-1].digest if attempts else None,
        }
        if case is not None:
            data["case"] = words.case_json(case)
        print(json_text(data))
        return 0
    lines = words.changes_text(ledger.where, listed)
    lines += words.candidates_text(candidates, count)
    if case is not None:
        lines += words.case_text(case)
    print("\n".join(lines))
    return 0


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a number of gates from 1, not {text!r}")
    return int(text)


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "history", help="a change's attempts, a case across recent gates, flaky candidates"
    )
    parser.add_argument(
        "--ledger",
        required=True,
        metavar="PATH|git",
        help="the ledger: an SQLite file, `git` (this repository's refs/notes/flipgate) or "
        "`git:REMOTE` (fetched first)",
    )
    parser.add_argument("--change-id", metavar="ID", help="only this change's attempts")
    parser.add_argument("--case", metavar="CASE", help="this case's verdict in each recent gate")
    parser.add_argument(
        "--last",
        type=_count,
        default=RECENT,
        metavar="N",
        help=f"the recent gates a case and the flaky candidates look over (default {RECENT})",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=cmd_history)
