"""`flipgate decide` and `flipgate verify`: the signed reviewer decision without the app.

    flipgate decide WORKSPACE | BASELINE CANDIDATE --decision D --cause C --reason TEXT
                    [--reviewer "Name <email>"] [--key SSH_KEY] [--case CASE ...] [--out FILE]
    flipgate decide CAMPAIGN --choose NAME --reason TEXT [--reviewer ...] [--key ...] [--out ...]
    flipgate verify DECISION_FILE | REGISTRATION_FILE | CHOICE_FILE [--allowed-signers FILE]

`decide` compares the runs as `flipgate gate` does with the same arguments (reruns included),
places the broken cases by the triage evidence the app's checklist gathers (the identical
baseline runs read too: `session.triage`), and writes into the request's `decisions/` folder (the
workspace's, or beside the candidate run) unless `--out` names a file or folder. With `--choose`
it ranks a campaign as `flipgate rank` does and signs the person's choice of a candidate in the
first tie group, with the ranking seen (docs/rank.md). `verify` exits 0 only when everything
checks, and says whether the decision's rule was registered before the run. Given a registration
(`flipgate prereg`), `verify` checks its form, signature and signer; given a choice, also the
campaign ranked again. Each kind of file is told by its first key.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.text import Text

from flipgate.cli.arguments import (
    BAD_INPUT,
    Commands,
    add_comparison_arguments,
    add_record_arguments,
    add_rerun_arguments,
    gate_request,
)
from flipgate.core.decision.file import DecisionExistsError
from flipgate.core.decision.record import InvalidDecision, Reviewer
from flipgate.core.decision.signing import SigningError, find_signing_key
from flipgate.core.errors import InputError
from flipgate.core.io.files import writing
from flipgate.core.vocab import REVIEW_DECISIONS, TRIAGE_CLASSES
from flipgate.present.decision import rule_words
from flipgate.present.text import literal, safe
from flipgate.present.verify import check_words
from flipgate.session import (
    choice_refusal,
    chosen_clearance,
    gate,
    ranking_seen,
    read,
    triage,
    verify_choice_file,
)


def cmd_decide(args: argparse.Namespace) -> int:
    if args.choose is not None:
        return _signed(lambda: _choose(args))
    for flag in ("decision", "cause"):
        if getattr(args, flag) is None:
            raise InputError(Path(f"--{flag}"), "required (or --choose NAME on a campaign)")
    return _signed(lambda: _decide(args))


def _decide(args: argparse.Namespace) -> tuple[str, Path]:
    from flipgate.core.decision.file import decision_workspace, write_decision
    from flipgate.core.decision.review import build_record
    from flipgate.core.triage.walk import checklist, load_walk, walk_path
    from flipgate.present.triage import placements

    request = gate_request(args)
    out = args.out or request.decisions
    reviewer = _reviewer(args)
    key = find_signing_key(args.key)
    inputs = read(request)  # whole, with the identical baseline runs, as the app reads them
    comparison = gate(inputs)
    unknown = sorted(set(args.case) - set(comparison.cases["case"]))
    if unknown:
        raise InputError(Path("--case"), f"in neither run: {', '.join(map(repr, unknown))}")
    # A triage walk the app left for these runs goes into the record, as the app puts it; the
    # broken cases are placed by the evidence the app's checklist gathers.
    walk = load_walk(walk_path(request.folder), comparison)
    found = triage(comparison, inputs.repeats)
    if found.refused is not None:
        print(f"flipgate: baseline repeats not used: {safe(found.refused)}", file=sys.stderr)
    record = build_record(
        comparison,
        workspace=decision_workspace(out),
        decision=args.decision,
        cause=args.cause,
        reason=args.reason,
        reviewer=reviewer,
        checklist=checklist(walk),
        cases_reviewed=args.case,
        broken_cases=placements(comparison, found.steps),
        cases_added=args.case,  # no app, no log of what was opened: each named by hand
    )
    with writing(out):
        return "decision", write_decision(record, key, out, allow_prompt=sys.stdin.isatty())


def _choose(args: argparse.Namespace) -> tuple[str, Path]:
    from flipgate.core.decision.choice import ChoiceRecord, write_choice
    from flipgate.core.decision.record import now_utc
    from flipgate.present.choosing import refusal_words
    from flipgate.present.ranking import own_clearance_line

    given = [flag for flag in _DECISION_ONLY if getattr(args, flag.lstrip("-").replace("-", "_"))]
    if given:
        raise InputError(Path(given[0]), "a choice takes --reason only: it is not a gate decision")
    request = gate_request(args, "ranking")
    out = args.out or request.decisions
    reviewer = _reviewer(args)
    key = find_signing_key(args.key)
    ranking, seen = ranking_seen(request)
    refused = choice_refusal(ranking, args.choose)
    if refused is not None:
        raise InputError(Path("--choose"), refusal_words(refused))
    own = chosen_clearance(ranking, args.choose)
    record = ChoiceRecord(args.choose, args.reason, reviewer, now_utc(), seen, own.code)
    with writing(out):
        written = write_choice(record, key, out, allow_prompt=sys.stdin.isatty())
    print(f"flipgate: {safe(own_clearance_line(ranking, own))}")
    return "choice", written


# A gate decision's flags, refused beside --choose: a choice is not a gate of one change.
_DECISION_ONLY = (
    "--decision", "--cause", "--case", "--rerun-baseline", "--rerun-candidate", "--prereg",
    "--ledger", "--change-id",
)  # fmt: skip


def _reviewer(args: argparse.Namespace) -> Reviewer:
    return Reviewer.parse(args.reviewer) if args.reviewer else Reviewer.from_git()


def _signed(write: Callable[[], tuple[str, Path]]) -> int:
    """Run `write` (it signs and writes a file, saying what kind); its errors said as bad input."""
    try:
        what, written = write()
    except InvalidDecision as bad:
        raise InputError(
            Path(f"--{bad.field.split('.')[0].replace('_', '-')}"), bad.message
        ) from None
    except (SigningError, DecisionExistsError) as failed:
        print(f"flipgate: error: {safe(failed)}", file=sys.stderr)
        return BAD_INPUT
    print(f"flipgate: signed {what} written to {safe(written)}")
    print(f"flipgate: verify with: flipgate verify {safe(written)}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from flipgate.core.decision.choice import is_choice
    from flipgate.core.decision.file import verify_decision
    from flipgate.core.decision.registration import is_registration, verify_registration

    path = Path(args.decision_file)
    if not path.is_file():
        raise InputError(path, "no such decision file")
    if is_choice(path):
        result = verify_choice_file(path, args.allowed_signers)
    elif is_registration(path.read_bytes()[:64]):
        result = verify_registration(path, args.allowed_signers)
    else:
        result = verify_decision(path, args.allowed_signers)
    console = Console(highlight=False, soft_wrap=True)  # a path is never broken across lines
    for check in result.checks:
        mark = "✓" if check.ok else "✗"
        console.print(
            Text.assemble((f"{mark} {check.name}: ", "bold"), literal(check_words(check)))
        )
    if result.record is not None:  # a decision says whether its rule was registered first
        console.print(literal(rule_words(result.record.registration)))
    if result.ok:
        console.print(literal(f"verified: {path}", style="bold green"))
        return 0
    console.print(literal(f"NOT verified: {path}", style="bold red"))
    return 1


def add_parser(sub: Commands) -> None:
    decide = sub.add_parser(
        "decide",
        help="write a signed reviewer decision without the app, or a campaign's choice (--choose)",
    )
    add_comparison_arguments(
        decide,
        runs="a workspace folder, or BASELINE CANDIDATE (runs or logs, as for `gate`); with "
        "--choose, a campaign workspace",
    )
    add_rerun_arguments(decide)
    add_record_arguments(decide)
    decide.add_argument("--decision", choices=REVIEW_DECISIONS, help="required without --choose")
    decide.add_argument("--cause", choices=TRIAGE_CLASSES, help="required without --choose")
    decide.add_argument(
        "--choose",
        metavar="NAME",
        help="on a campaign: sign the choice of candidate NAME, in the first tie group of the "
        "ranking, with the ranking seen (docs/rank.md)",
    )
    decide.add_argument("--reason", required=True, help="why; any Unicode is kept exactly")
    decide.add_argument("--reviewer", help='"Name <email>" (default: git user.name and user.email)')
    decide.add_argument(
        "--key", type=Path, help="SSH key to sign with (default: git user.signingkey)"
    )
    decide.add_argument("--case", action="append", default=[], help="a case reviewed (repeatable)")
    decide.add_argument(
        "--out",
        type=Path,
        help="file or folder (default: WORKSPACE/decisions/, or decisions/ in the folder that "
        "holds the candidate run)",
    )
    decide.set_defaults(handler=cmd_decide)

    verify = sub.add_parser("verify", help="check a decision's signature, signer and runs")
    verify.add_argument("decision_file", metavar="DECISION_FILE")
    verify.add_argument(
        "--allowed-signers", type=Path, help="default: git's gpg.ssh.allowedSignersFile"
    )
    verify.set_defaults(handler=cmd_verify)
