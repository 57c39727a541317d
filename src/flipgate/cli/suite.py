"""`flipgate suite`: is the suite still measuring the product? (seed 002)

    flipgate suite audit WORKSPACE [--format text|markdown|json] [--fail-under SHARE] [--as-of DATE]
    flipgate suite retire CASE --reason TEXT -w WORKSPACE
    flipgate suite open WORKSPACE [--theme NAME] [--config FILE]

`audit` exits 0, or 1 when `--fail-under` is given and less traffic than SHARE is covered;
`retire` exits 0 once the case is in the archive; bad input and refusals exit 2.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from rich.console import Console
from rich.text import Text

from flipgate.cli.arguments import Commands, add_app_arguments, share
from flipgate.core.errors import InputError
from flipgate.present.numbers import percent_beside, written_percent
from flipgate.present.text import literal

OK, BELOW = 0, 1


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def cmd_audit(args: argparse.Namespace) -> int:
    from flipgate.core.suite.audit import audit
    from flipgate.core.suite.traffic import TRAFFIC
    from flipgate.present import report, suite_report
    from flipgate.session.suite import read_suite

    inputs = read_suite(args.workspace)
    if args.fail_under is not None and inputs.traffic is None:
        raise InputError(
            args.workspace / TRAFFIC,
            "no such file: --fail-under measures the traffic the suite covers, and there is no "
            "traffic to measure",
        )
    result = audit(inputs, args.as_of)
    if args.format == "json":
        print(report.json_text(suite_report.to_json(result)))
    elif args.format == "markdown":
        print(suite_report.to_markdown(result))
    else:
        Console(highlight=False).print(suite_report.to_text(result), soft_wrap=True)
    if args.fail_under is not None and result.below(args.fail_under):
        assert result.coverage is not None  # measured: there is traffic (above)
        covered = result.coverage.covered
        print(
            f"flipgate: covered traffic {percent_beside(covered, args.fail_under)} is below "
            f"--fail-under {written_percent(args.fail_under)}",
            file=sys.stderr,
        )
        return BELOW
    return OK


def cmd_retire(args: argparse.Namespace) -> int:
    from flipgate.core.suite.manifest import MANIFEST, retire
    from flipgate.present.curation import done_words

    path = args.workspace / MANIFEST
    if not path.is_file():
        raise InputError(path, "no suite manifest here: -w names a suite workspace")
    done = retire(path, args.case, args.reason, date.today())
    Console(highlight=False).print(
        Text.assemble(literal(done_words(done)), f"\nwrote {path}"), soft_wrap=True
    )
    return OK


def cmd_open(args: argparse.Namespace) -> int:
    from flipgate.session.suite import read_suite
    from flipgate.tui.factory import make_suite_app, run_app
    from flipgate.tui.settings import load_settings

    # Every file is read and checked before the app starts: bad input is exit 2 on the terminal.
    settings = load_settings(args.config)
    theme = args.theme or settings.theme or "dark"
    with Console(stderr=True).status("reading the suite") as status:
        inputs = read_suite(args.workspace, progress=status.update)
    app = make_suite_app(inputs, theme=theme, keymap=settings.keymap, settings_path=args.config)
    return run_app(app)


def add_parser(sub: Commands) -> None:
    """Register `suite` and its subcommands; each sets `handler(args) -> exit code`."""
    suite = sub.add_parser(
        "suite", help="suite health: coverage, case age, free passes, stale cases, retirement"
    )
    commands = suite.add_subparsers(dest="suite_command", metavar="SUBCOMMAND", required=True)

    a = commands.add_parser("audit", help="the five diagnostics of a suite workspace")
    a.add_argument("workspace", type=Path, metavar="WORKSPACE")
    a.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    a.add_argument(
        "--fail-under",
        type=share,
        metavar="SHARE",
        help="exit 1 when less than SHARE of traffic is covered (0.6 or 60%%)",
    )
    a.add_argument(
        "--as-of", type=_day, metavar="DATE", help="the audit's day (default: the newest run's)"
    )
    a.set_defaults(handler=cmd_audit)

    r = commands.add_parser("retire", help="move a case to the suite's archive, with today's date")
    r.add_argument("case", metavar="CASE")
    r.add_argument("--reason", required=True, help="why it no longer belongs in the suite")
    r.add_argument(
        "-w",
        "--workspace",
        type=Path,
        required=True,
        help="the suite workspace whose suite.yaml is edited",
    )
    r.set_defaults(handler=cmd_retire)

    o = commands.add_parser("open", help="the suite-health screen of the app")
    o.add_argument("workspace", type=Path, metavar="WORKSPACE")
    add_app_arguments(o)
    o.set_defaults(handler=cmd_open)
