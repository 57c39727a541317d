"""`flipgate outcomes`: several runs' decision outcomes side by side (seed 000).

    flipgate outcomes RUN RUN [RUN ...] [--gate FILE] [--format text|markdown|json]

Each run is judged on its own by one gate spec: its green cases (the plain pass rate), its
agreements, each outcome's count and cost, and the reconciliation. Nothing is gated. Exit codes:
0 the report was printed, 2 bad usage or bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from flipgate.cli.arguments import Commands, add_import_arguments
from flipgate.session import import_options, side_by_side


def cmd_outcomes(args: argparse.Namespace) -> int:
    from flipgate.present import side_by_side as report
    from flipgate.present.report import json_text

    found = side_by_side([Path(p) for p in args.runs], args.gate, import_options(vars(args)))
    if args.format == "json":
        print(json_text(report.to_json(found.runs, found.spec)))
    elif args.format == "markdown":
        print(report.to_markdown(found.runs, found.spec))
    else:
        Console(highlight=False).print(report.to_text(found.runs, found.spec), soft_wrap=True)
    return 0


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "outcomes",
        help="several runs' decision outcomes side by side: counts, costs, the reconciliation",
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="two runs or more, in the order shown"
    )
    parser.add_argument(
        "--gate",
        type=Path,
        help="gate spec: its prices and the rule a case fails by (default: the spec's defaults)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    add_import_arguments(parser)
    parser.set_defaults(handler=cmd_outcomes)
