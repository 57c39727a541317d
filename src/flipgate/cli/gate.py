"""`flipgate gate`: the gate for CI, exit 0 PASS, 1 BLOCK, 3 INCONCLUSIVE, 4 INVALID (SPEC §8).

flipgate gate WORKSPACE | BASELINE CANDIDATE [--gate FILE] [--flaky FILE] [--suite FILE]
              [--change COMPONENT] [--base-ref REF | --base-gate FILE --base-flaky FILE
              --base-suite FILE] [--rerun-baseline RUN --rerun-candidate RUN]
              [--rerun-plan FILE [--replace-rerun-plan]] [--look N] [--allow-partial]
              [--format text|json|markdown|junit]
              [--prereg FILE [--allowed-signers FILE]] [--ledger PATH|git [--change-id ID]]

With a ledger, the gate is an attempt on its change: judged with the change's earlier attempts
(the ledger counts the looks: `--look` need not be given) and appended to the ledger (said on
stderr, with the entry's digest).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flipgate.cli.arguments import (
    Commands,
    add_comparison_arguments,
    add_record_arguments,
    add_rerun_arguments,
    gate_request,
    look,
)
from flipgate.core.errors import InputError
from flipgate.core.io.files import writing
from flipgate.present.reasons import summary
from flipgate.present.text import safe
from flipgate.session import Comparison, gate_and_record, read, write_rerun_plan

RUNS = (
    "a workspace folder, or BASELINE CANDIDATE (run folders, run.yaml, Inspect logs or "
    "promptfoo results.json)"
)


def cmd_gate(args: argparse.Namespace) -> int:
    from flipgate.present import report

    comparison, recorded = gate_and_record(read(gate_request(args), lean=True))
    if recorded is not None:
        print(
            f"flipgate: attempt {recorded.attempt} of change {safe(recorded.change_id)} recorded "
            f"(entry {recorded.digest})",
            file=sys.stderr,
        )
    if args.rerun_plan is not None:
        _write_plan(comparison, args.rerun_plan, overwrite=args.replace_rerun_plan)
    if args.format == "json":
        print(report.json_text(report.to_json(comparison)))
    elif args.format == "markdown":
        print(report.to_markdown(comparison))
    elif args.format == "junit":
        from flipgate.present.junit import to_junit

        sys.stdout.write(to_junit(comparison))
    else:
        from rich.console import Console  # the text report only: JSON in CI goes without

        Console(highlight=False).print(report.to_text(comparison), soft_wrap=True)
    return report.exit_code(comparison.result)


def _write_plan(comparison: Comparison, target: Path, *, overwrite: bool) -> None:
    """On a full run's INCONCLUSIVE, the rerun plan, as a new file unless told to replace one."""
    result = comparison.result
    if result.escalation is None or result.escalation.action != "rerun_flipped":
        print(
            f"flipgate: no rerun plan: the verdict is {result.verdict}, not an INCONCLUSIVE full run",
            file=sys.stderr,
        )
        return
    try:
        with writing(target):
            write_rerun_plan(comparison, target, summary(result), overwrite=overwrite)
    except FileExistsError:
        raise InputError(target, "exists: give --replace-rerun-plan to write over it") from None
    print(f"flipgate: rerun plan written to {safe(target)}", file=sys.stderr)


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser("gate", help="apply the gate to two runs and exit 0/1/3/4 (for CI)")
    add_comparison_arguments(parser, runs=RUNS)
    parser.add_argument("--format", choices=("text", "json", "markdown", "junit"), default="text")
    parser.add_argument(
        "--rerun-plan",
        type=Path,
        metavar="FILE",
        help="on an INCONCLUSIVE full run, write the rerun plan here (a new file)",
    )
    parser.add_argument(
        "--replace-rerun-plan",
        action="store_true",
        help="write the rerun plan over an existing file",
    )
    add_rerun_arguments(parser)
    parser.add_argument(
        "--look",
        type=look,
        default=None,
        metavar="N",
        help="this look at the change (1: its first gate; 2: the full set after its smoke set, or "
        "a second gate of it): the looks share alpha, so each later look blocks at a lower p "
        "(docs/statistics.md)",
    )
    add_record_arguments(parser)
    parser.set_defaults(handler=cmd_gate)
