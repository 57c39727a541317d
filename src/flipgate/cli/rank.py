"""`flipgate rank`: which candidate, by the release rule, and may it replace the incumbent?

    flipgate rank INCUMBENT CANDIDATE [CANDIDATE ...] [--gate FILE] [--flaky FILE]
                  [--change COMPONENT] [--format text|json|markdown]
    flipgate rank WORKSPACE        # baseline/ is the incumbent, candidates/NAME/ the candidates

Exit codes, beside the gate's (0 PASS, 1 BLOCK, 3 INCONCLUSIVE, 4 INVALID): 0 a winner by the
release key clears the incumbent, 1 no candidate may replace it, 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from flipgate.cli.arguments import Commands, add_comparison_arguments, gate_request
from flipgate.session import rank


def cmd_rank(args: argparse.Namespace) -> int:
    from flipgate.present import ranking as report
    from flipgate.present.report import json_text

    ranking = rank(gate_request(args, "ranking"))
    if args.format == "json":
        print(json_text(report.to_json(ranking)))
    elif args.format == "markdown":
        print(report.to_markdown(ranking))
    else:
        Console(highlight=False).print(report.to_text(ranking), soft_wrap=True)
    return report.exit_code(ranking)


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "rank",
        help="rank candidates against the incumbent by the release rule; exit 0 when the winner "
        "clears it, 1 when none may replace it",
    )
    add_comparison_arguments(
        parser,
        runs="a workspace with baseline/ and candidates/NAME/, or INCUMBENT CANDIDATE [CANDIDATE ...]",
        spec=": its `aggregate` is the release rule",
        candidate="each candidate",
    )
    parser.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    parser.set_defaults(handler=cmd_rank)
