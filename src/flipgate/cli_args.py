"""The arguments more than one command takes, each declared once.

What a comparison reads (`gate`, `open`, `decide`, `rank`): the runs, the gate spec, the flaky
list, the key components the change declares and the options of the importers that read a log
as a run (`import` takes those too); a share (`power`, `suite audit`); the app's
theme (`open`, `suite open`). Like the parsers that use it, it imports no Textual.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from flipgate.core.importers import options, takers

# The app's themes (tui/app.py), named again so that parsing a command starts no Textual.
THEMES = ("dark", "light", "high-contrast")


def add_comparison_arguments(
    parser: argparse.ArgumentParser, *, runs: str, spec: str = "", candidate: str = "the candidate"
) -> None:
    """RUN ..., --gate, --flaky, --change and the importers' options (a RUN may be a log). `runs`
    says what the RUNs are, `spec` what else the gate spec is read for, `candidate` which run a
    declared change moves."""
    parser.add_argument("runs", nargs="+", metavar="RUN", help=runs)
    parser.add_argument(
        "--gate",
        type=Path,
        help=f"gate spec{spec} (default: the workspace's gate.yaml, else the defaults)",
    )
    parser.add_argument(
        "--flaky", type=Path, help="flaky list (default: the workspace's flaky.yaml, else none)"
    )
    parser.add_argument(
        "--change",
        action="append",
        default=[],
        metavar="COMPONENT",
        help=f"declare a key component {candidate} may move (repeatable; adds to {candidate}'s "
        "change.keys)",
    )
    add_import_arguments(parser)


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per option an importer declares (once where several share it), with its help
    text."""
    group = parser.add_argument_group("reading another tool's logs and exports")
    actions = {"switch": "store_true", "value": "store", "values": "append"}
    for option in options():
        how: dict[str, Any] = {"action": actions[option.takes]}
        if option.metavar:  # argparse refuses one on a switch
            how["metavar"] = option.metavar
        tools = ", ".join(importer.title for importer in takers(option))
        group.add_argument(option.flag, dest=option.field, help=f"{tools}: {option.help}", **how)


def declared_change(args: argparse.Namespace) -> tuple[str, ...]:
    """The components of every --change, given one at a time or separated by commas."""
    return tuple(part.strip() for item in args.change for part in item.split(",") if part.strip())


def share(text: str) -> float:
    """A share given as 0.06 or 6%."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a share: {text!r} (try 0.06 or 6%)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share lies between 0 and 1, not {text!r}")
    return value


def add_theme_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--theme", default="dark", choices=THEMES, help="colours")
