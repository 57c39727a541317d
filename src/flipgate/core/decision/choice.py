"""A person's choice among a campaign's candidates, signed as a reviewer decision is (SPEC §6,
extended; docs/rank.md): who chose which candidate and why, and the ranking they saw.

A kind of signed file beside the decision, never a change to it: its first key is
`flipgate_choice` (a decision's is `flipgate_decision`), it is emitted as a decision is
(`document.render_yaml`), signed with the same key and namespace, ends with the same `signature:`
block, and is written once into the campaign's `decisions/` folder. The ranking it holds is
plain data (`core/rank/choice.py` makes it: this layer knows no ranking); `verify_choice` is
given the function that ranks the same runs again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flipgate.core.decision.document import (
    expect_keys,
    expect_list,
    parse_reviewer,
    parse_time,
    render_yaml,
)
from flipgate.core.decision.fields import (
    InvalidDecision,
    checked_text,
    one_line,
    one_of,
    text_field,
)
from flipgate.core.decision.file import (
    Check,
    SignedKind,
    VerifyResult,
    decision_workspace,
    is_folder,
    signed_checks,
    write_signed,
)
from flipgate.core.decision.findings import (
    ChoiceAllowed,
    ChoiceRefused,
    ClearanceDiffers,
    NotChecked,
    RankingDiffers,
    RankingSame,
    RankingUnrepeatable,
)
from flipgate.core.decision.record import Reviewer
from flipgate.core.decision.signing import SigningKey
from flipgate.core.errors import InputError
from flipgate.core.vocab import CLEARANCE_CODES

FORMAT_VERSION = 1
KIND = "flipgate_choice"  # the first key of a choice file
_TOP_KEYS = (KIND, "chosen", "reason", "reviewer", "created", "ranking")
# The chosen candidate's own clearance (a `vocab.ClearanceCode`): absent from the files written
# before it was recorded, which verify as they did.
_CLEARANCE = "clearance"

# What `verify_choice` is given: the choice and its workspace -> the ranking of the same runs now
# (as `core.rank.choice.seen` writes it), why the choice would be refused on it (or None: a
# `core.rank.choice` refusal, a code with its facts), and the chosen candidate's own clearance on
# it (None where it is refused).
Recompute = Callable[["ChoiceRecord", Path], tuple[Mapping[str, Any], object | None, str | None]]
# The fields of the recorded ranking and the ranking now that differ (`core.rank.choice`).
Compare = Callable[[object, object], list[str]]


@dataclass(frozen=True)
class ChoiceRecord:
    """Everything a choice file says, before it is signed."""

    chosen: str
    reason: str
    reviewer: Reviewer
    created: datetime
    ranking: Mapping[str, Any]  # the ranking seen: `core.rank.choice.seen`
    # whether the chosen candidate on its own clears the incumbent (`rank.own_clearance`'s code);
    # None in a file written before it was recorded
    clearance: str | None = None

    def __post_init__(self) -> None:
        one_line("chosen", self.chosen)
        if self.clearance is not None:
            one_of(_CLEARANCE, self.clearance, CLEARANCE_CODES)
        if not checked_text("reason", self.reason).strip():
            raise InvalidDecision("reason", "a choice needs a reason; it is empty")
        if self.created.utcoffset() is None:
            raise InvalidDecision("created", "the time needs a time zone (use UTC)")
        candidates = expect_list(self.ranking.get("candidates"), "ranking.candidates")
        names = [
            text_field(c.get("name") if isinstance(c, dict) else c, "ranking.candidates.name")
            for c in candidates
        ]
        if self.chosen not in names:
            raise InvalidDecision("chosen", f"{self.chosen!r} is not a candidate of the ranking")
        text_field(self.ranking.get("digest"), "ranking.digest")

    @property
    def top_group(self) -> list[str]:
        return [str(name) for name in expect_list(self.ranking.get("top_group"), "top_group")]


def is_choice(path: Path) -> bool:
    """Does the file at `path` hold a choice rather than a decision (its first key)?"""
    try:
        with path.open("rb") as handle:
            return handle.read(len(KIND) + 1) == f"{KIND}:".encode()
    except OSError:
        return False


def render_choice(record: ChoiceRecord) -> str:
    """The unsigned choice document: the exact text that gets signed."""
    return render_yaml(
        {
            KIND: FORMAT_VERSION,
            "chosen": record.chosen,
            **({} if record.clearance is None else {_CLEARANCE: record.clearance}),
            "reason": record.reason,
            "reviewer": {"name": record.reviewer.name, "email": record.reviewer.email},
            "created": record.created.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "ranking": dict(record.ranking),
        }
    )


def choice_path(record: ChoiceRecord, folder: Path) -> Path:
    """Where `record` is written in `folder`: named from the time and a short digest of the
    signed message, as a decision is (the candidate's name, any text, is not in the name)."""
    stamp = record.created.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%SZ")
    short = hashlib.sha256(render_choice(record).encode()).hexdigest()[:8]
    return folder / f"{stamp}-choice-{short}.yaml"


def write_choice(
    record: ChoiceRecord, key: SigningKey, out: Path, *, allow_prompt: bool = False
) -> Path:
    """Sign `record` with `key` and write it to `out` (a file, or a folder named as
    `write_decision` takes one), never over an existing file. Returns the path written."""
    target = choice_path(record, out) if is_folder(out) else out
    return write_signed(render_choice(record).encode(), key, target, allow_prompt=allow_prompt)


def parse_choice(document: object) -> ChoiceRecord:
    """A `ChoiceRecord` from the safe-loaded message part of a choice file."""
    top = expect_keys(document, "", _TOP_KEYS, optional=(_CLEARANCE,))
    if top[KIND] != FORMAT_VERSION:
        raise InvalidDecision(KIND, f"format version {top[KIND]!r} is not {FORMAT_VERSION}")
    ranking = top["ranking"]
    if not isinstance(ranking, dict):
        raise InvalidDecision("ranking", f"expected a mapping, got {type(ranking).__name__}")
    return ChoiceRecord(
        chosen=text_field(top["chosen"], "chosen"),
        reason=text_field(top["reason"], "reason"),
        reviewer=parse_reviewer(top["reviewer"]),
        created=parse_time(top["created"]),
        ranking=ranking,
        clearance=None if _CLEARANCE not in top else text_field(top[_CLEARANCE], _CLEARANCE),
    )


_CHOICE = SignedKind("choice", parse_choice, lambda record: record.reviewer.email)


def verify_choice(
    path: Path, recompute: Recompute, compare: Compare, allowed_signers: Path | None = None
) -> VerifyResult:
    """Check a choice file: its form, its signature and signer (as a decision's), that the
    ranking computed again from the same runs is the one signed (`recompute`, compared field by
    field by `compare`), and that the choice is one the ranking allows."""
    signed = signed_checks(path, _CHOICE, allowed_signers)
    if signed.unread:
        return VerifyResult(path, signed.checks, None)
    ranking = _ranking_checks(signed.record, decision_workspace(path), recompute, compare)
    return VerifyResult(path, (*signed.checks, *ranking), None)


def _ranking_checks(
    record: ChoiceRecord | None, workspace: Path, recompute: Recompute, compare: Compare
) -> list[Check]:
    if record is None:
        return [Check(name, False, NotChecked("document")) for name in ("ranking", "choice")]
    try:
        now, refused, clearance = recompute(record, workspace)
    except (InputError, OSError, LookupError, ValueError) as unable:
        why = unable.within_file() if isinstance(unable, InputError) else str(unable)
        return [
            Check("ranking", False, RankingUnrepeatable(why)),
            Check("choice", False, NotChecked("ranking")),
        ]
    differ = compare(record.ranking, now)
    ranking = (
        Check("ranking", False, RankingDiffers(tuple(differ)))
        if differ
        else Check("ranking", True, RankingSame(record.ranking.get("digest")))
    )
    if refused is not None:
        choice = Check("choice", False, ChoiceRefused(record.chosen, refused))
    elif record.clearance is not None and record.clearance != clearance:
        choice = Check(
            "choice", False, ClearanceDiffers(record.chosen, record.clearance, clearance)
        )
    else:
        choice = Check(
            "choice", True, ChoiceAllowed(record.chosen, tuple(record.top_group), clearance)
        )
    return [ranking, choice]
