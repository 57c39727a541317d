"""The decision file on disk: signed and written once, never over another; read back and verified.

Every byte before the `signature:` line is signed; the file ends with that block.
"""

from __future__ import annotations

import errno
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Generic, TypeVar

from flipgate.core.decision.document import parse_decision, render_decision
from flipgate.core.decision.findings import (
    BlockFound,
    Finding,
    Malformed,
    NoAllowedSigners,
    NotChecked,
    RunChanged,
    RunUnchanged,
    RunUndigested,
    Unable,
    Unread,
    WellFormed,
)
from flipgate.core.decision.record import DecisionRecord, InvalidDecision, RunRef
from flipgate.core.decision.signing import (
    NAMESPACE,
    SigningError,
    SigningKey,
    check_signature,
    default_allowed_signers,
    sign,
    verify_signer,
)
from flipgate.core.errors import InputError
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.digest import run_digest
from flipgate.core.io.yamlio import parse_yaml
from flipgate.core.vocab import ARMS

Parsed = TypeVar("Parsed")  # the record a signed file holds: a decision, a choice

_SIGNATURE_START = re.compile(rb"^signature:", re.MULTILINE)
_SIGNATURE_BLOCK = re.compile(
    rb"signature: \|\n  -----BEGIN SSH SIGNATURE-----\n(?:  [A-Za-z0-9+/=]+\n)+"
    rb"  -----END SSH SIGNATURE-----\n"
)


class DecisionExistsError(FileExistsError):
    """The target file exists: a signed decision (or registration) is never overwritten."""

    def __init__(self, target: Path, what: str = "decision") -> None:
        super().__init__(errno.EEXIST, f"a {what} file is never overwritten", str(target))
        self.what = what

    def __str__(self) -> str:  # said as the other errors are, not as `[Errno 17] ...: '...'`
        return f"{self.filename}: exists; a signed {self.what} is never written over"


class Unverified(InputError):
    """A signed file refused as bad input because `check` failed (a registration the gate is
    held to, a decision to replay). Its words are the front end's (`present/verify.py`'s
    `unverified_words`: `said` with the check's words in its `{}`, named when `named`); until
    worded, the message names the check and its code."""

    def __init__(
        self, path: Path, check: Check, said: str, *, named: bool, field: str | None = None
    ) -> None:
        super().__init__(path, said.format(f"{check.name} ({check.found.code})"), field=field)
        self.check, self.said, self.named = check, said, named


@dataclass(frozen=True)
class Check:
    """One thing `verify_decision` checked: a short name, whether it holds, and what it found
    (a code with its facts: `findings.py`; words: `present/verify.py`)."""

    name: str
    ok: bool
    found: Finding


@dataclass(frozen=True)
class VerifyResult:
    path: Path
    checks: tuple[Check, ...]
    record: DecisionRecord | None

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    @property
    def failures(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.ok)


def decision_workspace(location: Path) -> Path:
    """The workspace that run paths are relative to, for a decision file or an output folder.

    Decisions live in `WORKSPACE/decisions/`; a file or folder elsewhere has its own folder as
    workspace. `flipgate decide` measures runs against this, `verify_decision` resolves with it.
    """
    folder = location if is_folder(location) else location.parent
    return folder.parent if folder.name == "decisions" else folder


# Writing ----------------------------------------------------------------------------------


def signature_block(armor: str) -> bytes:
    """The `signature:` block that ends a signed file, from ssh-keygen's armored signature."""
    lines = armor.strip("\n").split("\n")
    block = "signature: |\n" + "".join(f"  {line}\n" for line in lines)
    if not _SIGNATURE_BLOCK.fullmatch(block.encode()):
        raise SigningError(
            f"ssh-keygen wrote something that is not an SSH signature: {armor[:80]!r}"
        )
    return block.encode()


def write_decision(
    record: DecisionRecord, key: SigningKey, out: Path, *, allow_prompt: bool = False
) -> Path:
    """Sign `record` with `key` and write it to `out`, never over an existing file.

    `out` is a file path, or a folder (an existing one, or a path without a suffix such as
    `WORKSPACE/decisions`) in which the file is named by `decision_path`. Returns the path written. `allow_prompt`: a person is at the terminal to type the
    key's passphrase.
    """
    message = render_decision(record).encode()
    target = decision_path(record, out) if is_folder(out) else out
    return write_signed(message, key, target, allow_prompt=allow_prompt)


def write_signed(
    message: bytes,
    key: SigningKey,
    target: Path,
    *,
    allow_prompt: bool = False,
    namespace: str = NAMESPACE,
    what: str = "decision",
) -> Path:
    """`message` signed in `namespace` and written to `target` with its signature block, whole
    and never over an existing file (`DecisionExistsError`, naming `what` was refused)."""
    if target.exists():
        raise DecisionExistsError(target, what)
    armor = sign(message, key, allow_prompt=allow_prompt, namespace=namespace)
    signature = signature_block(armor)
    try:
        write_atomic(target, message + signature)
    except FileExistsError:  # it appeared while the message was being signed
        raise DecisionExistsError(target, what) from None
    return target


def decision_path(record: DecisionRecord, folder: Path) -> Path:
    """Where `record` is written in `folder`: named from the time, the decision and a short
    digest of the signed message, so that a changed record gets a name of its own."""
    stamp = record.created.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%SZ")
    short = hashlib.sha256(render_decision(record).encode()).hexdigest()[:8]
    return folder / f"{stamp}-{record.decision}-{short}.yaml"


def is_folder(path: Path) -> bool:
    """A folder, or a path without a suffix that names one to be made."""
    return path.is_dir() or (not path.exists() and not path.suffix)


# Reading and verifying --------------------------------------------------------------------


def split_signed(data: bytes) -> tuple[bytes, str]:
    """The signed message and the armored signature of a decision file's bytes."""
    starts = [match.start() for match in _SIGNATURE_START.finditer(data)]
    if not starts:
        raise InvalidDecision("signature", "the file has no signature block")
    if len(starts) > 1:
        raise InvalidDecision("signature", f"the file has {len(starts)} signature blocks, not one")
    message, block = data[: starts[0]], data[starts[0] :]
    if not message:
        raise InvalidDecision("signature", "nothing precedes the signature block")
    if _SIGNATURE_BLOCK.fullmatch(block) is None:
        prefix = _SIGNATURE_BLOCK.match(block)
        raise InvalidDecision(
            "signature",
            "text follows the signature block; it must end the file"
            if prefix
            else "the signature block is not an indented SSH signature",
        )
    armor = b"".join(line[2:] + b"\n" for line in block.split(b"\n")[1:-1])
    return message, armor.decode("ascii")


@dataclass(frozen=True)
class Signed:
    """A signed file read: its message and signature, split, and what the split found."""

    data: bytes
    message: bytes | None  # None: no well-formed signature block
    armor: str
    block: Check

    @property
    def text(self) -> bytes:
        """What is parsed: the message, or the whole file when it could not be split."""
        return self.data if self.message is None else self.message


def open_signed(path: Path) -> Signed | Check:
    """The signed file at `path`, split at its signature block (or the check that says it
    could not be read)."""
    try:
        data = path.read_bytes()
    except OSError as unreadable:
        return Check("file", False, Unread(path, unreadable.strerror or str(unreadable)))
    try:
        message, armor = split_signed(data)
    except InvalidDecision as malformed:
        return Signed(data, None, "", Check("signature block", False, Malformed(malformed.message)))
    block = Check("signature block", True, BlockFound())
    return Signed(data, message, armor, block)


def verify_decision(
    path: Path,
    allowed_signers: Path | None = None,
    resolve_run: Callable[[str], Path] | None = None,
) -> VerifyResult:
    """Check a decision file: its form, its signature, its signer, and that its runs are unchanged.

    `allowed_signers` defaults to git's `gpg.ssh.allowedSignersFile`. Runs are found by
    `resolve_run(run_id)` when given, else at their recorded path under the decision's workspace.
    """
    signed = signed_checks(path, DECISION, allowed_signers)
    if signed.unread:
        return VerifyResult(path, signed.checks, None)
    workspace = decision_workspace(path)
    runs = (_run_check(arm, signed.record, workspace, resolve_run) for arm in ARMS)
    return VerifyResult(path, (*signed.checks, *runs), signed.record)


@dataclass(frozen=True)
class SignedKind(Generic[Parsed]):
    """What a kind of signed file is, for the checks every one of them goes through."""

    what: str  # in words: a decision, a choice, a registration
    parse: Callable[[object], Parsed]  # its safe-loaded document -> its record
    signer: Callable[[Parsed], str]  # the email of the person whose key must have signed it
    namespace: str = NAMESPACE


DECISION = SignedKind("decision", parse_decision, lambda record: record.reviewer.email)


@dataclass(frozen=True)
class SignedChecks(Generic[Parsed]):
    """The checks of a signed file's envelope, and its record (None: not read or malformed)."""

    checks: tuple[Check, ...]
    record: Parsed | None
    unread: bool  # the file could not be read: nothing more of it can be checked


def signed_checks(
    path: Path, kind: SignedKind[Parsed], allowed_signers: Path | None
) -> SignedChecks[Parsed]:
    """What every signed file is checked for, in this order: it is read; one signature block
    ends it; its document is safe YAML of its kind; the signature holds over the message in the
    kind's namespace; and a key the allowed signers list for the signer made it."""
    opened = open_signed(path)
    if isinstance(opened, Check):
        return SignedChecks((opened,), None, unread=True)
    message, armor = opened.message, opened.armor
    record, document = read_document(opened, path, kind.parse, kind.what)
    email = None if record is None else kind.signer(record)
    checks = (
        opened.block,
        document,
        signature_check(message, armor, kind.namespace),
        signer_check(message, armor, email, allowed_signers, kind.namespace),
    )
    return SignedChecks(checks, record, unread=False)


def read_document(
    opened: Signed, path: Path, parse: Callable[[object], Parsed], what: str
) -> tuple[Parsed | None, Check]:
    """The signed file's document parsed by `parse` (None when it is malformed), and the check
    that says so; `what` the file is, in words."""
    try:
        data, _ = parse_yaml(opened.text.decode("utf-8"), path)
        return parse(data), Check("document", True, WellFormed(what))
    except InputError as bad:
        return None, Check("document", False, Malformed(bad.within_file()))
    except (InvalidDecision, UnicodeDecodeError) as bad:
        return None, Check("document", False, Malformed(first_line(bad)))


def signature_check(message: bytes | None, armor: str, namespace: str = NAMESPACE) -> Check:
    """Is the signature valid over the message, in `namespace`, by whatever key?"""
    if message is None:
        return Check("signature", False, NotChecked("no_block"))
    try:
        said = check_signature(message, armor, namespace=namespace)
    except SigningError as unable:
        return Check("signature", False, Unable(str(unable)))
    return Check("signature", said.ok, said.found)


def signer_check(
    message: bytes | None,
    armor: str,
    email: str | None,
    allowed_signers: Path | None,
    namespace: str = NAMESPACE,
) -> Check:
    """Did a key the allowed signers list for `email` sign the message, in `namespace`?"""
    if message is None or email is None:
        return Check("signer", False, NotChecked("block_or_document"))
    allowed = allowed_signers if allowed_signers is not None else default_allowed_signers()
    if allowed is None:
        return Check("signer", False, NoAllowedSigners())
    try:
        said = verify_signer(message, armor, email, allowed, namespace=namespace)
    except SigningError as unable:
        return Check("signer", False, Unable(str(unable)))
    return Check("signer", said.ok, said.found)


def _run_check(
    arm: str,
    record: DecisionRecord | None,
    workspace: Path,
    resolve_run: Callable[[str], Path] | None,
) -> Check:
    name = f"{arm} run"
    if record is None:
        return Check(name, False, NotChecked("document"))
    run: RunRef = getattr(record, arm)
    try:
        where = resolve_run(run.run_id) if resolve_run is not None else workspace / run.path
        now = run_digest(where)
    except (InputError, OSError, LookupError, ValueError) as missing:
        return Check(name, False, RunUndigested(run.run_id, str(missing)))
    if now != run.digest:
        return Check(name, False, RunChanged(run.run_id, where, now, run.digest))
    return Check(name, True, RunUnchanged(run.run_id, where))


def first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
