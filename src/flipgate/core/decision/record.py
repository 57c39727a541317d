"""The reviewer decision (SPEC section 6) as a record: who decided what, on which gate result and
runs, with the triage checklist; every field is checked as the record is built, whether from a
person's input or from a file (`document`), so that no invalid decision exists in memory.

The decision file itself: `document` (its text, emitted and parsed), `file` (signed and written
once, read back and verified).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from flipgate.core.decision.fields import InvalidDecision as InvalidDecision
from flipgate.core.decision.fields import (
    checked_text,
    digest_field,
    one_line,
    one_of,
    unique,
)
from flipgate.core.decision.fields import now_utc as now_utc
from flipgate.core.decision.review_log import Looked, opened
from flipgate.core.decision.signing import git_config
from flipgate.core.gate.rules import RULES
from flipgate.core.io.digest import RUN_FILE, run_digest
from flipgate.core.vocab import FINDINGS, REVIEW_DECISIONS, TRIAGE_CLASSES, VERDICTS

_EMAIL = re.compile(r"[^\s@<>]+@[^\s@<>]+")
_NAME_AND_EMAIL = re.compile(r"\s*(.*?)\s*<([^<>]*)>\s*")


@dataclass(frozen=True)
class Reviewer:
    name: str
    email: str

    def __post_init__(self) -> None:
        one_line("reviewer.name", self.name)
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
        one_of("gate.verdict", self.verdict, VERDICTS)
        one_of("gate.rule", self.rule, tuple(rule.name for rule in RULES))
        for name, count in (("gate.b", self.b), ("gate.c", self.c)):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise InvalidDecision(name, f"{count!r} is not a count (an integer >= 0)")
        p = self.p
        if isinstance(p, bool) or not isinstance(p, int | float) or not 0.0 <= p <= 1.0:
            raise InvalidDecision("gate.p", f"{p!r} is not a probability between 0 and 1")
        object.__setattr__(self, "p", float(p))
        digest_field("gate.spec_digest", self.spec_digest)
        if self.flaky_digest is not None:
            digest_field("gate.flaky_digest", self.flaky_digest)


@dataclass(frozen=True)
class RunRef:
    """One run of the comparison: its id, its path relative to the workspace, its content digest."""

    run_id: str
    path: str
    digest: str

    def __post_init__(self) -> None:
        one_line("runs.run_id", self.run_id)
        one_line("runs.path", self.path)
        digest_field("runs.digest", self.digest)

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
        one_of("checklist.class", self.triage_class, TRIAGE_CLASSES)
        if self.finding is not None:
            one_of("checklist.finding", self.finding, FINDINGS)
        checked_text("checklist.note", self.note)


@dataclass(frozen=True)
class RuleRegistered:
    """The pre-registration the gate held the decision's comparison to (`flipgate prereg`):
    the rule was registered at `registered` by `signer`, before the candidate run `candidate`;
    `digest` is the registration file's."""

    registered: datetime
    signer: str
    digest: str
    candidate: str

    def __post_init__(self) -> None:
        if self.registered.utcoffset() is None:
            raise InvalidDecision("registration.registered", "the time needs a time zone")
        one_line("registration.signer", self.signer)
        digest_field("registration.digest", self.digest)
        one_line("registration.candidate", self.candidate)


@dataclass(frozen=True)
class CasePlacement:
    """A broken case, the triage class its evidence put it in, and why (issue 23 item 5)."""

    case: str
    triage_class: str
    why: str

    def __post_init__(self) -> None:
        one_line("broken_cases.case", self.case)
        one_of("broken_cases.class", self.triage_class, TRIAGE_CLASSES)
        checked_text("broken_cases.why", self.why)


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
    # Added by hand: cases reviewed that the log does not show opened (all of them, without one).
    cases_added: tuple[str, ...] = field(default=())
    review_log: tuple[Looked, ...] | None = None  # None: no log (`flipgate decide`, older files)
    registration: RuleRegistered | None = None  # None: the rule was not registered
    broken_cases: tuple[CasePlacement, ...] = field(default=())  # each broken case's class

    def __post_init__(self) -> None:
        one_of("decision", self.decision, REVIEW_DECISIONS)
        one_of("cause", self.cause, TRIAGE_CLASSES)
        checked_text("reason", self.reason)
        if not self.reason.strip():
            raise InvalidDecision("reason", "a decision needs a reason; it is empty")
        if self.created.utcoffset() is None:
            raise InvalidDecision("created", "the time needs a time zone (use UTC)")
        # Callers may pass lists; the record keeps tuples so that it stays hashable and frozen.
        object.__setattr__(self, "checklist", tuple(self.checklist))
        object.__setattr__(self, "cases_reviewed", tuple(self.cases_reviewed))
        object.__setattr__(self, "broken_cases", tuple(self.broken_cases))
        unique("broken_cases.case", [placed.case for placed in self.broken_cases])
        classes = [entry.triage_class for entry in self.checklist]
        unique("checklist.class", classes)
        for case in self.cases_reviewed:
            one_line("cases_reviewed", case)
        unique("cases_reviewed", self.cases_reviewed)
        object.__setattr__(self, "cases_added", tuple(self.cases_added))
        unique("cases_added", self.cases_added)
        if stray := [case for case in self.cases_added if case not in self.cases_reviewed]:
            raise InvalidDecision("cases_added", f"{stray[0]!r} is not among the cases reviewed")
        if self.review_log is not None:
            object.__setattr__(self, "review_log", tuple(self.review_log))
            # Never pre-ticked: a case reviewed was opened, or added by hand and said so.
            seen = set(opened(self.review_log)) | set(self.cases_added)
            if unseen := [case for case in self.cases_reviewed if case not in seen]:
                raise InvalidDecision(
                    "cases_reviewed",
                    f"{unseen[0]!r} was neither opened in the review log nor added by hand",
                )
