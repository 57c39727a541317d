"""`flipgate prereg`: the rule registered and SSH-signed before the candidate runs (issue 24).

    flipgate prereg WORKSPACE | BASELINE [--gate FILE] [--flaky FILE] [--suite FILE]
                    [--change COMPONENT ...] [--key SSH_KEY] [--reviewer "Name <email>"]
                    --out FILE

The file names the gate spec (its digest and every setting), the flaky list's and the suite
manifest's digests, the baseline run's id and cache key, the declared change, the signer and the
time; `flipgate gate --prereg FILE` holds the gate to it, and `flipgate verify FILE` checks it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flipgate.cli.arguments import BAD_INPUT, Commands
from flipgate.core.errors import InputError
from flipgate.core.io.files import writing
from flipgate.present.text import safe
from flipgate.session import RegistrationRequest, registration_text


def cmd_prereg(args: argparse.Namespace) -> int:
    from flipgate.core.decision.file import DecisionExistsError
    from flipgate.core.decision.record import InvalidDecision, Reviewer
    from flipgate.core.decision.registration import write_registration
    from flipgate.core.decision.signing import SigningError, find_signing_key

    request = RegistrationRequest.of(
        args.run, gate=args.gate, flaky=args.flaky, suite=args.suite, change=args.change
    )
    try:
        signer = Reviewer.parse(args.reviewer) if args.reviewer else Reviewer.from_git()
        key = find_signing_key(args.key)
        text = registration_text(request, signer)
        with writing(args.out):
            written = write_registration(text, key, args.out, allow_prompt=sys.stdin.isatty())
    except InvalidDecision as bad:
        raise InputError(Path("--reviewer"), bad.message) from None
    except (SigningError, DecisionExistsError) as failed:
        print(f"flipgate: error: {safe(failed)}", file=sys.stderr)
        return BAD_INPUT
    print(f"flipgate: the rule is registered in {safe(written)}")
    print(f"flipgate: gate the candidate with: flipgate gate ... --prereg {safe(written)}")
    return 0


def add_parser(sub: Commands) -> None:
    parser = sub.add_parser(
        "prereg", help="register and sign the gate's rule before the candidate runs"
    )
    parser.add_argument(
        "run",
        type=Path,
        metavar="WORKSPACE|BASELINE",
        help="a workspace (a folder with baseline/: its gate.yaml, flaky.yaml and suite.yaml by "
        "default), or the baseline run",
    )
    parser.add_argument("--gate", type=Path, metavar="FILE", help="the gate spec")
    parser.add_argument("--flaky", type=Path, metavar="FILE", help="the flaky list")
    parser.add_argument("--suite", type=Path, metavar="FILE", help="the suite manifest")
    parser.add_argument(
        "--change",
        action="append",
        default=[],
        metavar="COMPONENT",
        help="a key component the change may move (repeatable); none: the candidate's "
        "change.keys decide",
    )
    parser.add_argument(
        "--key", type=Path, help="SSH key to sign with (default: git user.signingkey)"
    )
    parser.add_argument(
        "--reviewer", help='"Name <email>" of the signer (default: git user.name and user.email)'
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="the registration file to write (a new file)"
    )
    parser.set_defaults(handler=cmd_prereg)
