"""The signed reviewer decision file (SPEC section 6): build it, write it once, verify it.

The file is YAML that this module emits itself, key by key, so that the signed bytes do not depend
on a YAML library's version and every string is quoted safely: text that could be misread (control
and format characters such as bidi overrides, odd spaces, CR) is written as a double-quoted escape,
so what a person reads in the file is what a parser reads. Every byte before the `signature:` line
is signed; the file ends with that block. Reading goes through `parse_yaml`: safe, and no aliases
or repeated keys.
"""

from __future__ import annotations

import errno
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from flipgate.core.decision.signing import (
    SigningError,
    SigningKey,
    check_signature,
    default_allowed_signers,
    git_config,
    sign,
    verify_signer,
)
from flipgate.core.errors import InputError
from flipgate.core.gate.rules import RULES
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.digest import RUN_FILE, run_digest
from flipgate.core.io.yamlio import parse_yaml
from flipgate.core.vocab import ARMS, FINDINGS, REVIEW_DECISIONS, TRIAGE_CLASSES, VERDICTS

FORMAT_VERSION = 1

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_EMAIL = re.compile(r"[^\s@<>]+@[^\s@<>]+")
_NAME_AND_EMAIL = re.compile(r"\s*(.*?)\s*<([^<>]*)>\s*")
# Words of safe characters, a colon only inside a word: never a YAML indicator, never `key: value`.
_PLAIN_WORD = r"[A-Za-z0-9_.@/+-]+(?::[A-Za-z0-9_.@/+-]+)*"
_PLAIN = re.compile(rf"(?=[A-Za-z0-9_]){_PLAIN_WORD}(?: {_PLAIN_WORD})*")
_SIGNATURE_START = re.compile(rb"^signature:", re.MULTILINE)
_SIGNATURE_BLOCK = re.compile(
    rb"signature: \|\n  -----BEGIN SSH SIGNATURE-----\n(?:  [A-Za-z0-9+/=]+\n)+"
    rb"  -----END SSH SIGNATURE-----\n"
)
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


class InvalidDecision(ValueError):
    """A decision value is not allowed; `field` names it (dotted, e.g. `gate.p`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"field '{field}': {message}")


class DecisionExistsError(FileExistsError):
    """The target file exists: a signed decision is never overwritten."""

    def __init__(self, target: Path) -> None:
        super().__init__(errno.EEXIST, "a decision file is never overwritten", str(target))

    def __str__(self) -> str:  # said as the other errors are, not as `[Errno 17] ...: '...'`
        return f"{self.filename}: exists; a signed decision is never written over"


@dataclass(frozen=True)
class Reviewer:
    name: str
    email: str

    def __post_init__(self) -> None:
        _line("reviewer.name", self.name)
        if not _EMAIL.fullmatch(self.email):
            raise InvalidDecision("reviewer.email", f"{self.email!r} is not an email address")

    @classmethod
    def parse(cls, text: str) -> Reviewer:
        """`Name <email>`, as `--reviewer` takes it."""
        match = _NAME_AND_EMAIL.fullmatch(text)
        if match is None:
            raise InvalidDecision("reviewer", f"{text!r} is not of the form 'Name <email>'")
        return cls(match.group(1), match.group(2))

    @classmethod
    def from_git(cls) -> Reviewer:
        """git's `user.name` and `user.email`, the default reviewer."""
        name, email = git_config("user.name"), git_config("user.email")
        if name is None or email is None:
            raise InvalidDecision(
                "reviewer",
                "no reviewer given and git's user.name / user.email are not both set: pass "
                "--reviewer 'Name <email>' or run git config --global user.email you@example.com",
            )
        return cls(name, email)


@dataclass(frozen=True)
class GateSummary:
    """The gate result the decision was made on."""

    verdict: str
    rule: str
    b: int
    c: int
    p: float
    spec_digest: str
    flaky_digest: str | None = None

    def __post_init__(self) -> None:
        _one_of("gate.verdict", self.verdict, VERDICTS)
        _one_of("gate.rule", self.rule, tuple(rule.name for rule in RULES))
        for name, count in (("gate.b", self.b), ("gate.c", self.c)):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InvalidDecision(name, f"{count!r} is not a count (an integer >= 0)")
        p = self.p
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
            raise InvalidDecision("gate.p", f"{p!r} is not a probability between 0 and 1")
        object.__setattr__(self, "p", float(p))
        _digest("gate.spec_digest", self.spec_digest)
        if self.flaky_digest is not None:
            _digest("gate.flaky_digest", self.flaky_digest)


@dataclass(frozen=True)
class RunRef:
    """One run of the comparison: its id, its path relative to the workspace, its content digest."""

    run_id: str
    path: str
    digest: str

    def __post_init__(self) -> None:
        _line("runs.run_id", self.run_id)
        _line("runs.path", self.path)
        _digest("runs.digest", self.digest)

    @classmethod
    def measure(cls, run: Path, run_id: str, workspace: Path) -> RunRef:
        """Digest the run at `run` now and record its path relative to `workspace`."""
        run = run.parent if run.name == RUN_FILE else run
        here, base = run.resolve(), workspace.resolve()
        path = here.relative_to(base) if here.is_relative_to(base) else here
        return cls(run_id, path.as_posix(), run_digest(run))


@dataclass(frozen=True)
class ChecklistEntry:
    """The reviewer's finding on one triage class (SPEC section 5), with a note."""

    triage_class: str
    finding: str | None
    note: str = ""

    def __post_init__(self) -> None:
        _one_of("checklist.class", self.triage_class, TRIAGE_CLASSES)
        if self.finding is not None:
            _one_of("checklist.finding", self.finding, FINDINGS)
        _text("checklist.note", self.note)


@dataclass(frozen=True)
class DecisionRecord:
    """Everything a decision file says, before it is signed."""

    decision: str
    cause: str
    reason: str
    reviewer: Reviewer
    created: datetime
    gate: GateSummary
    baseline: RunRef
    candidate: RunRef
    checklist: tuple[ChecklistEntry, ...] = field(default=())
    cases_reviewed: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        _one_of("decision", self.decision, REVIEW_DECISIONS)
        _one_of("cause", self.cause, TRIAGE_CLASSES)
        _text("reason", self.reason)
        if not self.reason.strip():
            raise InvalidDecision("reason", "a decision needs a reason; it is empty")
        if self.created.utcoffset() is None:
            raise InvalidDecision("created", "the time needs a time zone (use UTC)")
        # Callers may pass lists; the record keeps tuples so that it stays hashable and frozen.
        object.__setattr__(self, "checklist", tuple(self.checklist))
        object.__setattr__(self, "cases_reviewed", tuple(self.cases_reviewed))
        classes = [entry.triage_class for entry in self.checklist]
        _unique("checklist.class", classes)
        for case in self.cases_reviewed:
            _line("cases_reviewed", case)
        _unique("cases_reviewed", self.cases_reviewed)


@dataclass(frozen=True)
class Check:
    """One thing `verify_decision` checked: a short name, whether it holds, and why."""

    name: str
    ok: bool
    why: str


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


def now_utc() -> datetime:
    """The current time to the second, as the decision file records it."""
    return datetime.now(UTC).replace(microsecond=0)


def decision_workspace(location: Path) -> Path:
    """The workspace that run paths are relative to, for a decision file or an output folder.

    Decisions live in `WORKSPACE/decisions/`; a file or folder elsewhere has its own folder as
    workspace. `flipgate decide` measures runs against this, `verify_decision` resolves with it.
    """
    folder = location if _is_folder(location) else location.parent
    return folder.parent if folder.name == "decisions" else folder


# Rendering --------------------------------------------------------------------------------


def render_decision(record: DecisionRecord) -> str:
    """The unsigned decision document: the exact text that gets signed."""
    return "".join(line + "\n" for line in _emit_mapping(_document(record), 0))


def _document(record: DecisionRecord) -> dict[str, Any]:
    gate = record.gate
    return {
        "flipgate_decision": FORMAT_VERSION,
        "decision": record.decision,
        "cause": record.cause,
        "reason": record.reason,
        "reviewer": {"name": record.reviewer.name, "email": record.reviewer.email},
        "created": _utc_text(record.created),
        "gate": {
            "verdict": gate.verdict,
            "rule": gate.rule,
            "b": gate.b,
            "c": gate.c,
            "p": gate.p,
            "spec_digest": gate.spec_digest,
            "flaky_digest": gate.flaky_digest,
        },
        "runs": {
            arm: {"run_id": run.run_id, "path": run.path, "digest": run.digest}
            for arm, run in zip(ARMS, (record.baseline, record.candidate), strict=True)
        },
        "checklist": [
            {"class": entry.triage_class, "finding": entry.finding, "note": entry.note}
            for entry in record.checklist
        ],
        "cases_reviewed": list(record.cases_reviewed),
    }


def _emit_mapping(mapping: Mapping[str, Any], col: int) -> list[str]:
    lines: list[str] = []
    for key, value in mapping.items():
        lines += _emit_entry(" " * col + key + ":", value, col)
    return lines


def _emit_entry(head: str, value: Any, col: int) -> list[str]:
    if isinstance(value, dict):
        return [head, *_emit_mapping(value, col + 2)] if value else [head + " {}"]
    if isinstance(value, list):
        return [head, *_emit_sequence(value, col + 2)] if value else [head + " []"]
    if isinstance(value, str) and _fits_block(value):
        # Multi-line text as a literal block, each line indented past its key.
        return [
            head + " |-",
            *(" " * (col + 2) + line if line else "" for line in value.split("\n")),
        ]
    return [head + " " + _inline(value)]


def _emit_sequence(items: Iterable[Any], col: int) -> list[str]:
    lines: list[str] = []
    for item in items:
        if isinstance(item, dict) and item:
            first, *rest = _emit_mapping(item, col + 2)
            lines += [" " * col + "- " + first[col + 2 :], *rest]
        else:
            lines += _emit_entry(" " * col + "-", item, col)
    return lines


def _inline(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, str):
        return value if _is_plain(value) else _double_quoted(value)
    raise TypeError(f"cannot write {type(value).__name__} in a decision file")


def _float_text(value: float) -> str:
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    # YAML 1.1 (PyYAML) reads `1e-05` as a string; it wants a dot in the mantissa.
    return f"{mantissa}.0{e}{exponent}" if e and "." not in mantissa else text


def _is_plain(text: str) -> bool:
    return _PLAIN.fullmatch(text) is not None and yaml.safe_load(text) == text


def _needs_escape(char: str) -> bool:
    category = unicodedata.category(char)
    return category in _ESCAPED_CATEGORIES or (category == "Zs" and char != " ")


def _fits_block(text: str) -> bool:
    return (
        "\n" in text
        and not text.startswith((" ", "\n"))
        and not text.endswith((" ", "\n"))
        and not any(_needs_escape(char) for char in text if char != "\n")
    )


def _double_quoted(text: str) -> str:
    parts = ['"']
    for char in text:
        if char in _NAMED_ESCAPES:
            parts.append(_NAMED_ESCAPES[char])
        elif _needs_escape(char):
            code = ord(char)
            parts.append(
                f"\\x{code:02X}"
                if code < 0x100
                else f"\\u{code:04X}"
                if code < 0x10000
                else f"\\U{code:08X}"
            )
        else:
            parts.append(char)
    parts.append('"')
    return "".join(parts)


def _utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _signature_block(armor: str) -> bytes:
    lines = armor.strip("\n").split("\n")
    block = "signature: |\n" + "".join(f"  {line}\n" for line in lines)
    if not _SIGNATURE_BLOCK.fullmatch(block.encode()):
        raise SigningError(
            f"ssh-keygen wrote something that is not an SSH signature: {armor[:80]!r}"
        )
    return block.encode()


# Writing ----------------------------------------------------------------------------------


def write_decision(
    record: DecisionRecord, key: SigningKey, out: Path, *, allow_prompt: bool = False
) -> Path:
    """Sign `record` with `key` and write it to `out`, never over an existing file.

    `out` is a file path, or a folder (an existing one, or a path without a suffix such as
    `WORKSPACE/decisions`) in which the file is named by `decision_path`. Returns the path written. `allow_prompt`: a person is at the terminal to type the
    key's passphrase.
    """
    message = render_decision(record).encode()
    target = decision_path(record, out) if _is_folder(out) else out
    if target.exists():
        raise DecisionExistsError(target)
    signature = _signature_block(sign(message, key, allow_prompt=allow_prompt))
    try:
        write_atomic(target, message + signature)
    except FileExistsError:  # it appeared while the record was being signed
        raise DecisionExistsError(target) from None
    return target


def decision_path(record: DecisionRecord, folder: Path) -> Path:
    """Where `record` is written in `folder`: named from the time, the decision and a short
    digest of the signed message, so that a changed record gets a name of its own."""
    stamp = record.created.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%SZ")
    short = hashlib.sha256(render_decision(record).encode()).hexdigest()[:8]
    return folder / f"{stamp}-{record.decision}-{short}.yaml"


def _is_folder(path: Path) -> bool:
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


def parse_decision(document: object) -> DecisionRecord:
    """A `DecisionRecord` from the safe-loaded message part of a decision file."""
    top = _mapping(document, "", _TOP_KEYS)
    if top["flipgate_decision"] != FORMAT_VERSION:
        raise InvalidDecision(
            "flipgate_decision",
            f"format version {top['flipgate_decision']!r} is not {FORMAT_VERSION}",
        )
    reviewer = _mapping(top["reviewer"], "reviewer", ("name", "email"))
    gate = _mapping(top["gate"], "gate", _GATE_KEYS)
    runs = _mapping(top["runs"], "runs", ARMS)
    return DecisionRecord(
        decision=_str(top["decision"], "decision"),
        cause=_str(top["cause"], "cause"),
        reason=_str(top["reason"], "reason"),
        reviewer=Reviewer(
            _str(reviewer["name"], "reviewer.name"), _str(reviewer["email"], "reviewer.email")
        ),
        created=_time(top["created"]),
        gate=GateSummary(**{name: gate[name] for name in _GATE_KEYS}),
        baseline=_run(runs["baseline"], "runs.baseline"),
        candidate=_run(runs["candidate"], "runs.candidate"),
        checklist=tuple(_checklist_entry(item) for item in _list(top["checklist"], "checklist")),
        cases_reviewed=tuple(
            _str(case, "cases_reviewed") for case in _list(top["cases_reviewed"], "cases_reviewed")
        ),
    )


_TOP_KEYS = (
    "flipgate_decision", "decision", "cause", "reason", "reviewer", "created",
    "gate", "runs", "checklist", "cases_reviewed",
)  # fmt: skip
_GATE_KEYS = ("verdict", "rule", "b", "c", "p", "spec_digest", "flaky_digest")


def verify_decision(
    path: Path,
    allowed_signers: Path | None = None,
    resolve_run: Callable[[str], Path] | None = None,
) -> VerifyResult:
    """Check a decision file: its form, its signature, its signer, and that its runs are unchanged.

    `allowed_signers` defaults to git's `gpg.ssh.allowedSignersFile`. Runs are found by
    `resolve_run(run_id)` when given, else at their recorded path under the decision's workspace.
    """
    try:
        data = path.read_bytes()
    except OSError as unreadable:
        return VerifyResult(
            path, (Check("file", False, f"cannot read {path}: {unreadable.strerror}"),), None
        )
    checks: list[Check] = []
    message: bytes | None = None
    armor = ""
    try:
        message, armor = split_signed(data)
        checks.append(Check("signature block", True, "one signature block, at the end of the file"))
    except InvalidDecision as malformed:
        checks.append(Check("signature block", False, malformed.message))

    record: DecisionRecord | None = None
    try:
        record = _load(data if message is None else message, path)
        checks.append(Check("document", True, "safe YAML, a well-formed decision"))
    except InputError as bad:
        checks.append(Check("document", False, bad.within_file()))
    except (InvalidDecision, UnicodeDecodeError) as bad:
        checks.append(Check("document", False, _first_line(bad)))

    checks.append(_signature_check(message, armor))
    checks.append(_signer_check(message, armor, record, allowed_signers))
    workspace = decision_workspace(path)
    for arm in ARMS:
        checks.append(_run_check(arm, record, workspace, resolve_run))
    return VerifyResult(path, tuple(checks), record)


def _load(text: bytes, path: Path) -> DecisionRecord:
    data, _ = parse_yaml(text.decode("utf-8"), path)
    return parse_decision(data)


def _signature_check(message: bytes | None, armor: str) -> Check:
    if message is None:
        return Check("signature", False, "not checked: no well-formed signature block")
    try:
        said = check_signature(message, armor)
    except SigningError as unable:
        return Check("signature", False, str(unable))
    return Check("signature", said.ok, said.detail)


def _signer_check(
    message: bytes | None, armor: str, record: DecisionRecord | None, allowed_signers: Path | None
) -> Check:
    if message is None or record is None:
        return Check(
            "signer", False, "not checked: the signature block or the document is malformed"
        )
    allowed = allowed_signers if allowed_signers is not None else default_allowed_signers()
    if allowed is None:
        return Check(
            "signer",
            False,
            "no allowed-signers file: pass --allowed-signers FILE or set git config "
            "gpg.ssh.allowedSignersFile (see docs/verify.md)",
        )
    try:
        said = verify_signer(message, armor, record.reviewer.email, allowed)
    except SigningError as unable:
        return Check("signer", False, str(unable))
    return Check("signer", said.ok, said.detail)


def _run_check(
    arm: str,
    record: DecisionRecord | None,
    workspace: Path,
    resolve_run: Callable[[str], Path] | None,
) -> Check:
    name = f"{arm} run"
    if record is None:
        return Check(name, False, "not checked: the document is malformed")
    run: RunRef = getattr(record, arm)
    try:
        where = resolve_run(run.run_id) if resolve_run is not None else workspace / run.path
        now = run_digest(where)
    except (InputError, OSError, LookupError, ValueError) as missing:
        return Check(name, False, f"{run.run_id}: cannot digest the run: {missing}")
    if now != run.digest:
        return Check(
            name, False, f"{run.run_id} at {where} changed: digest {now}, recorded {run.digest}"
        )
    return Check(name, True, f"{run.run_id} at {where} is unchanged")


# Field checks -----------------------------------------------------------------------------


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidDecision(
            name, f"unknown value {value!r}; expected one of {', '.join(allowed)}"
        )


def _text(name: str, value: object) -> str:
    text = _str(value, name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidDecision(
            name, "the text holds a lone surrogate, which is not Unicode"
        ) from None
    return text


def _line(name: str, value: object) -> None:
    text = _text(name, value)
    if not text.strip() or "\n" in text or "\r" in text:
        raise InvalidDecision(name, f"{text!r} must be one non-empty line")


def _digest(name: str, value: object) -> None:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise InvalidDecision(name, f"{value!r} is not a digest of the form sha256:<64 hex digits>")


def _unique(name: str, values: Iterable[object]) -> None:
    seen: set[object] = set()
    for value in values:
        if value in seen:
            raise InvalidDecision(name, f"{value!r} appears twice")
        seen.add(value)


def _mapping(value: object, name: str, keys: tuple[str, ...]) -> dict[str, Any]:
    where = name or "document"
    if not isinstance(value, dict):
        raise InvalidDecision(where, f"expected a mapping, got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    extra = [str(key) for key in value if key not in keys]
    if missing or extra:
        said = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unexpected {', '.join(extra)}" if extra else "",
            )
            if part
        )
        raise InvalidDecision(where, said)
    return value


def _list(value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidDecision(name, f"expected a list, got {type(value).__name__}")
    return value


def _str(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidDecision(name, f"expected text, got {type(value).__name__}")
    return value


def _time(value: object) -> datetime:
    text = _str(value, "created")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidDecision("created", f"{text!r} is not an ISO 8601 time") from None
    return moment


def _run(value: object, name: str) -> RunRef:
    run = _mapping(value, name, ("run_id", "path", "digest"))
    return RunRef(
        _str(run["run_id"], f"{name}.run_id"),
        _str(run["path"], f"{name}.path"),
        _str(run["digest"], f"{name}.digest"),
    )


def _checklist_entry(value: object) -> ChecklistEntry:
    entry = _mapping(value, "checklist", ("class", "finding", "note"))
    finding = entry["finding"]
    return ChecklistEntry(
        _str(entry["class"], "checklist.class"),
        None if finding is None else _str(finding, "checklist.finding"),
        _str(entry["note"], "checklist.note"),
    )


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
