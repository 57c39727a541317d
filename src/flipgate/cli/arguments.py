"""The arguments more than one command takes, each declared once, and the requests they make.

What a comparison reads (`gate`, `open`, `decide`, `rank`): the runs, the gate spec, the flaky
list, the suite manifest, the base where the change is going, the key components the change
declares, whether a partial run is gated (`--allow-partial`) and the options of the importers
that read a log as a run (`import` takes those too);
the escalation's rerun results, the identical baseline runs, the registration and the ledger of
attempts (`gate`, `open`, `decide`); what the curation commands read (`flaky`, `calibrate`); a
share (`power`, `suite audit`); the app's theme and settings (`open`, `serve`, `suite open`,
`replay`). Each flag is read into the application layer's request by `gate_request` or
`curation_request`, never by a command: the same flag means the same file everywhere. Like the parsers that use it, it imports no Textual.
"""

from __future__ import annotations

import argparse
import math
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeAlias

from flipgate.core.io.remote import is_url
from flipgate.core.vocab import ARMS
from flipgate.session import (
    DEFAULT_RERUN_TARGET,
    CurationRequest,
    GateRequest,
    Shape,
    import_option_flags,
    import_option_takers,
    import_options,
)

# The app's themes (tui/themes.py), named again so that parsing a command starts no Textual.
THEMES = ("dark", "light", "high-contrast")

URLS = "s3://, gs://, az://, https:// (README: Runs where they are stored)"  # what `place` takes
BAD_INPUT = 2  # the exit status of bad usage (argparse's own) and of bad input

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # where each adds its


def add_comparison_arguments(
    parser: argparse.ArgumentParser, *, runs: str, spec: str = "", candidate: str = "the candidate"
) -> None:
    """RUN ..., --gate, --flaky, --suite, --change, the base and the importers' options (a RUN
    may be a log). `runs` says what the RUNs are, `spec` what else the gate spec is read for,
    `candidate` which run a declared change moves."""
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help=f"{runs}; each a path, or a URL: {URLS}"
    )
    parser.add_argument(
        "--gate",
        type=place,
        help=f"gate spec{spec} (default: the workspace's gate.yaml, else the defaults)",
    )
    parser.add_argument(
        "--flaky", type=place, help="flaky list (default: the workspace's flaky.yaml, else none)"
    )
    parser.add_argument(
        "--suite",
        type=place,
        metavar="FILE",
        help="suite manifest: its retired cases are left out of b and c (default: the "
        "workspace's suite.yaml)",
    )
    parser.add_argument(
        "--change",
        action="append",
        default=[],
        metavar="COMPONENT",
        help=f"declare a key component {candidate} may move (repeatable; adds to {candidate}'s "
        "change.keys)",
    )
    parser.add_argument(
        "--rejudged",
        type=place,
        metavar="DIR",
        help="judging passes of the arms' stored outputs (DIR/baseline/, DIR/candidate/: each "
        "pass a run or an `inspect score` log): the judge's flip rate per rule (default: the "
        "workspace's rejudged/)",
    )
    base = parser.add_argument_group("the base: the gate as it stands where the change is going")
    base.add_argument(
        "--base-ref",
        metavar="REF",
        help="read gate.yaml, flaky.yaml and suite.yaml at this git revision",
    )
    base.add_argument("--base-gate", type=Path, metavar="FILE", help="the base's gate spec")
    base.add_argument("--base-flaky", type=Path, metavar="FILE", help="the base's flaky list")
    base.add_argument(
        "--base-suite",
        type=Path,
        metavar="FILE",
        help="the base's suite manifest: a retirement the change adds is INVALID",
    )
    parser.add_argument(
        "--allow-partial",
        action="store_true",
        help="gate a run that did not finish or lacks repetitions (else INVALID): the cases it "
        "holds whole are counted, and the verdict is INCONCLUSIVE at best, never PASS",
    )
    add_import_arguments(parser)


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per option an importer declares (once where several share it), with its help
    text."""
    group = parser.add_argument_group("reading another tool's logs and exports")
    actions = {"switch": "store_true", "value": "store", "values": "append"}
    for option in import_option_flags():
        how: dict[str, Any] = {"action": actions[option.takes]}
        if option.metavar:  # argparse refuses one on a switch
            how["metavar"] = option.metavar
        tools = ", ".join(importer.title for importer in import_option_takers(option))
        group.add_argument(option.flag, dest=option.field, help=f"{tools}: {option.help}", **how)


def add_rerun_arguments(parser: argparse.ArgumentParser) -> None:
    """--rerun-baseline, --rerun-candidate: given, the gate is applied once more with them."""
    for arm in ARMS:
        parser.add_argument(
            f"--rerun-{arm}",
            type=place,
            metavar="RUN",
            help=f"the escalation's rerun results of the flipped cases, {arm} arm: the rule is "
            "applied again with them",
        )
    parser.add_argument(
        "--target",
        type=chance,
        default=DEFAULT_RERUN_TARGET,
        metavar="P",
        help="on INCONCLUSIVE, the rerun plan's chance to resolve the verdict that the cheapest "
        f"plan must reach (default {DEFAULT_RERUN_TARGET})",
    )


def add_repeat_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline-repeat",
        action="append",
        default=[],
        type=place,
        metavar="RUN",
        help="an identical baseline run, for the triage walk and flaky curation (repeatable; "
        "default: the workspace's baseline-repeats/)",
    )


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    """--prereg and --allowed-signers (the rule registered before the run), --ledger and
    --change-id (the change's earlier attempts): what a gate of a change is held to."""
    held = parser.add_argument_group("the rule registered before the run, and earlier attempts")
    held.add_argument(
        "--prereg",
        type=Path,
        metavar="FILE",
        help="a signed registration (`flipgate prereg`): the rule applied must be the rule "
        "registered, else INVALID",
    )
    held.add_argument(
        "--allowed-signers",
        type=Path,
        metavar="FILE",
        help="who may sign the registration (default: git's gpg.ssh.allowedSignersFile)",
    )
    held.add_argument(
        "--ledger",
        metavar="PATH|git",
        help="the ledger of attempts: an SQLite file, `git` (notes in refs/notes/flipgate) or "
        "`git:REMOTE` (fetched and pushed); default: gate.yaml's `ledger:`",
    )
    held.add_argument(
        "--change-id",
        metavar="ID",
        help="the change gated, e.g. the PR's number or head commit (default: the candidate's "
        "cache key)",
    )


def place(text: str) -> Path | str:
    """A file or a run where a path is taken: a path, or a URL of a store (`s3://`, `gs://`,
    `az://`, `https://`), kept as written for the session to copy (a Path folds its `//`)."""
    return text if is_url(text) else Path(text)


def look(text: str) -> int:
    """A look at one change (looks.py), counted from 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a look is a whole number from 1, not {text!r}")
    return int(text)


def gate_request(args: argparse.Namespace, shape: Shape = "pair") -> GateRequest:
    """The request the comparison arguments make. `rank` declares no reruns and no repeats."""
    return GateRequest.of(
        args.runs,
        shape=shape,
        gate=args.gate,
        flaky=args.flaky,
        suite=args.suite,
        base_ref=args.base_ref,
        base_gate=args.base_gate,
        base_flaky=args.base_flaky,
        base_suite=args.base_suite,
        change=args.change,
        import_options=import_options(vars(args)),
        repeats=getattr(args, "baseline_repeat", ()),
        rerun_baseline=getattr(args, "rerun_baseline", None),
        rerun_candidate=getattr(args, "rerun_candidate", None),
        rerun_target=getattr(args, "target", DEFAULT_RERUN_TARGET),
        rejudged=getattr(args, "rejudged", None),
        prereg=getattr(args, "prereg", None),
        allowed_signers=getattr(args, "allowed_signers", None),
        ledger=getattr(args, "ledger", None),
        change_id=getattr(args, "change_id", None),
        look=getattr(args, "look", None),
        allow_partial=args.allow_partial,
    )


def add_curation_arguments(parser: argparse.ArgumentParser, *, runs: str | None) -> None:
    """RUN ... (identical runs of one baseline; `runs` says what for, None: none taken),
    -w WORKSPACE, --flaky and --gate."""
    if runs is not None:
        parser.add_argument("runs", nargs="*", metavar="RUN", help=runs)
    parser.add_argument(
        "--workspace",
        "-w",
        type=Path,
        metavar="DIR",
        help="a workspace: its flaky.yaml, gate.yaml, baseline/ and baseline-repeats/ by default",
    )
    parser.add_argument(
        "--flaky", type=Path, metavar="FILE", help="the flaky list (default: WORKSPACE/flaky.yaml)"
    )
    parser.add_argument(
        "--gate",
        type=Path,
        metavar="FILE",
        help="gate spec (default: WORKSPACE/gate.yaml, else the defaults)",
    )


def curation_request(args: argparse.Namespace) -> CurationRequest:
    return CurationRequest.of(
        getattr(args, "runs", ()), workspace=args.workspace, gate=args.gate, flaky=args.flaky
    )


def share(text: str) -> float:
    """A share given as 0.06 or 6%: 44.8% is the float of 0.448, as 0.448 is (a float divided by
    100 is another number), so that a limit reads the same written either way."""
    try:
        value = float(Decimal(text[:-1]) / 100) if text.endswith("%") else float(text)
        if not math.isfinite(value):
            raise ValueError(text)
    except (ValueError, ArithmeticError):
        raise argparse.ArgumentTypeError(f"not a share: {text!r} (try 0.06 or 6%)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share lies between 0 and 1, not {text!r}")
    return value


def chance(text: str) -> float:
    """A chance strictly between 0 and 1, given as 0.8 or 80%."""
    value = share(text)
    if value in (0, 1):
        raise argparse.ArgumentTypeError(f"a chance lies strictly between 0 and 1, not {text!r}")
    return value


def add_theme_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--theme", choices=THEMES, help="colours (default: the one last chosen with t, else dark)"
    )


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    """What a command that opens the app takes: its colours and the user's settings."""
    add_theme_argument(parser)
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="settings (a keymap, the theme; docs/keys.md); "
        "default: $XDG_CONFIG_HOME/flipgate/config.yaml",
    )
