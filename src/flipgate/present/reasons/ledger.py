"""The case ledger's and the changes' words: each state of a case, why a case is unpaired or
its repetitions missing or excluded, and what an edit of a case changed."""

from __future__ import annotations

from flipgate.core.gate.changes import Asked as AskedQuestion
from flipgate.core.gate.changes import (
    CaseCached,
    CaseEdited,
    CaseInOneArm,
    RuleEdit,
    SafetyEdit,
    TemplateEdit,
)
from flipgate.core.gate.ledger import RepsExcluded, RepsMissing, Unpaired
from flipgate.core.vocab import CaseState
from flipgate.present.reasons.words import sentence

# each state of the case ledger in a word or two (`vocab.CaseState`)
STATE_WORDS: dict[CaseState, str] = {
    "paired": "paired",
    "new": "new",
    "deleted": "deleted",
    "infra": "all infra",
    "excluded": "excluded",
    "missing_repetitions": "repetitions missing",
    "run_not_finished": "run not finished",
}


@sentence.register
def _(u: Unpaired) -> str:
    if u.code == "infra":
        return f"no gradable {u.arm} repetition"
    return f"only in {u.arm}"  # new: in the candidate only; deleted: in the baseline only


@sentence.register
def _(u: RepsMissing) -> str:
    why = "the run did not finish" if u.code == "run_not_finished" else "missing from the run"
    errored = f"; {u.errored} of the {u.ran} that ran errored" if u.errored else ""
    return f"{u.missing} of its {u.planned} {u.arm} repetitions never ran: {why}{errored}"


def excluded_by(u: RepsExcluded) -> str:
    """`by qa@example.com (ticket text leaked the answer)`: who excluded a case's repetitions,
    and why, each once."""
    who = dict.fromkeys(
        f"by {e.by or 'someone unnamed'}" + (f" ({e.reason})" if e.reason else "")
        for e in u.exclusions
    )
    return ", ".join(who) or "by someone unnamed"


@sentence.register
def _(u: RepsExcluded) -> str:
    return f"{u.excluded} of its {u.planned} {u.arm} repetitions excluded {excluded_by(u)}"


def _asks(asked: AskedQuestion) -> str:
    if asked.asks == "absent":
        return "absent"
    if asked.asks == "check":
        return "a pass/fail check"
    return f"expected {' or '.join(asked.labels)}"


@sentence.register
def _(edit: RuleEdit) -> str:
    was, now = _asks(edit.baseline), _asks(edit.candidate)
    if edit.baseline.asks == edit.candidate.asks == "labels":
        now = now.removeprefix("expected ")  # `expected approve ..., reject ...`
    return f"{edit.rule}: {was} in the baseline, {now} in the candidate"


@sentence.register
def _(edit: SafetyEdit) -> str:
    def flag(safety: bool) -> str:
        return "a safety case" if safety else "ordinary"

    return f"safety: {flag(edit.baseline)} in the baseline, {flag(edit.candidate)} in the candidate"


@sentence.register
def _(edit: TemplateEdit) -> str:
    def which(template: str | None) -> str:
        return "none" if template is None else template

    return (
        f"template: {which(edit.baseline)} in the baseline, {which(edit.candidate)} in the "
        "candidate"
    )


@sentence.register
def _(entry: CaseEdited) -> str:
    return f"{entry.case} edited: {'; '.join(sentence(edit) for edit in entry.edits)}"


@sentence.register
def _(entry: CaseInOneArm) -> str:
    if entry.code == "deleted":
        return f"{entry.case} deleted: lines in the baseline, none in the candidate"
    return f"{entry.case} new: only in the candidate, not counted"


@sentence.register
def _(entry: CaseCached) -> str:
    return f"{entry.case} cached: {entry.cached} of its {entry.reps} {entry.arm} repetitions"
