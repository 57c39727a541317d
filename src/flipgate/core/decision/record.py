"""The reviewer decision (SPEC section 6) as a record: who decided what, on which gate result and
runs, with the triage checklist; every field is checked as the record is built, whether from a
person's input or from a file (`document`), so that no invalid decision exists in memory.

The decision file itself: `document` (its text, emitted and parsed), `file` (signed and written
once, read back and verified).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from flipgate.core.decision.signing import git_config
from flipgate.core.gate.rules import RULES
from flipgate.core.io.digest import RUN_FILE, run_digest
from flipgate.core.vocab import FINDINGS, REVIEW_DECISIONS, TRIAGE_CLASSES, VERDICTS

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_EMAIL = re.compile(r"[^\s@<>]+@[^\s@<>]+")
_NAME_AND_EMAIL = re.compile(r"\s*(.*?)\s*<([^<>]*)>\s*")


class InvalidDecision(ValueError):
    """A decision value is not allowed; `field` names it (dotted, e.g. `gate.p`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"field '{field}': {message}")


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
class CasePlacement:
    """A broken case, the triage class its evidence put it in, and why (issue 23 item 5)."""

    case: str
    triage_class: str
    why: str

    def __post_init__(self) -> None:
        _line("broken_cases.case", self.case)
        _one_of("broken_cases.class", self.triage_class, TRIAGE_CLASSES)
        _text("broken_cases.why", self.why)


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
    broken_cases: tuple[CasePlacement, ...] = field(default=())  # each broken case's class

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
        object.__setattr__(self, "broken_cases", tuple(self.broken_cases))
        _unique("broken_cases.case", [placed.case for placed in self.broken_cases])
        classes = [entry.triage_class for entry in self.checklist]
        _unique("checklist.class", classes)
        for case in self.cases_reviewed:
            _line("cases_reviewed", case)
        _unique("cases_reviewed", self.cases_reviewed)


def now_utc() -> datetime:
    """The current time to the second, as the decision file records it."""
    return datetime.now(UTC).replace(microsecond=0)


# Field checks -----------------------------------------------------------------------------


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidDecision(
            name, f"unknown value {value!r}; expected one of {', '.join(allowed)}"
        )


def _text(name: str, value: object) -> str:
    text = text_field(value, name)
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


def text_field(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidDecision(name, f"expected text, got {type(value).__name__}")
    return value
