"""One attempt as the ledger keeps it: a line of canonical JSON, chained to the one before.

An attempt is one `flipgate gate` on a change: its verdict, rule, b, c, p, the looks it took, both
runs' ids and cache keys, the spec's and flaky list's digests, the declared change, the
registration it was held to, the flipped cases, the time. Each entry carries `prev`, the digest
of the entry before it in its chain (None for the first), and its own digest is the sha256 of its
text: a changed byte changes the digest the next entry names, a removed or reordered entry
breaks the link (`check_chain`). The text is canonical (sorted keys, no spaces, UTF-8), so the
same attempt is the same bytes in SQLite and in a git note.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison
from flipgate.core.vocab import (
    ARMS,
    FLIPS,
    GATE_RULES,
    VERDICTS,
    Direction,
    GateRule,
    Verdict,
)

FORMAT = 1  # `flipgate_attempt` in every entry: a line without it is not ours


@dataclass(frozen=True)
class RunSeen:
    """A run as an attempt saw it: its id and cache key."""

    run_id: str
    key: Mapping[str, str]


@dataclass(frozen=True)
class Attempt:
    """One gate of one change (see the module's docstring)."""

    id: str  # unique, random: the same attempt after a ledger is merged with another
    change_id: str
    attempt: int  # its number on the change, from 1
    at: datetime
    verdict: Verdict
    rule: GateRule
    b: int
    c: int
    p: float
    first_verdict: Verdict | None  # with the escalation's reruns applied: the first look's
    look: int  # the first look this attempt took at the change
    looks: int  # how many: 2 when the reruns were applied
    suite: str
    escalation: str | None  # what the verdict asked next (`run_full_set`, `rerun_flipped`, ...)
    baseline: RunSeen
    candidate: RunSeen
    spec_digest: str
    flaky_digest: str
    declared_change: tuple[str, ...]
    registration: str | None  # the registration file's digest; None: not registered
    flipped: tuple[tuple[str, Direction], ...]  # counted flips, as the gate listed them
    prev: str | None = None  # the digest of the entry before, in its chain

    @property
    def reruns(self) -> bool:
        return self.first_verdict is not None

    @property
    def last_look(self) -> int:
        return self.look + self.looks - 1

    def runs(self) -> tuple[str, str]:
        return (self.baseline.run_id, self.candidate.run_id)

    def text(self) -> str:
        """The entry's canonical text: what its digest is of."""
        return json.dumps(_document(self), sort_keys=True, separators=(",", ":"))

    @property
    def digest(self) -> str:
        return digest_of(self.text())


def digest_of(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def change_of_key(key: Mapping[str, str]) -> str:
    """The change id of a candidate that names none (`--change-id`): its cache key, digested:
    the same measured system is the same change."""
    canonical = json.dumps(dict(key), sort_keys=True, separators=(",", ":"))
    return "key:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def attempt_of(
    comparison: Comparison, *, change_id: str, attempt: int, look: int, at: datetime
) -> Attempt:
    """The attempt `comparison` is, numbered `attempt` on `change_id` and taking `look` first;
    unchained (`prev` is set when it is appended)."""
    result = comparison.result
    first = result.previous
    registration = result.registration
    return Attempt(
        id=uuid.uuid4().hex,
        change_id=change_id,
        attempt=attempt,
        at=at.astimezone(UTC).replace(microsecond=0),
        verdict=result.verdict,
        rule=result.rule,
        b=result.b,
        c=result.c,
        p=float(result.p),
        first_verdict=None if first is None else first.verdict,
        look=look,
        looks=1 if first is None else 2,
        suite=result.suite,
        escalation=None if result.escalation is None else result.escalation.action,
        baseline=_seen(comparison, "baseline"),
        candidate=_seen(comparison, "candidate"),
        spec_digest=result.spec_digest,
        flaky_digest=result.flaky_digest,
        declared_change=tuple(sorted(set(result.declared_change))),
        registration=None if registration is None else registration.digest,
        flipped=tuple((case, _direction(d)) for case, d in result.flipped),
    )


def _seen(comparison: Comparison, arm: str) -> RunSeen:
    run = comparison.run(arm)
    return RunSeen(run.run_id, dict(run.key))


def _direction(text: str) -> Direction:
    return "pass_to_fail" if text == "pass_to_fail" else "fail_to_pass"


def chained(attempt: Attempt, prev: str | None, number: int) -> Attempt:
    """`attempt` as the entry after `prev`, numbered `number` on its change."""
    return replace(attempt, prev=prev, attempt=number)


def _document(a: Attempt) -> dict[str, Any]:
    return {
        "flipgate_attempt": FORMAT,
        "id": a.id,
        "change_id": a.change_id,
        "attempt": a.attempt,
        "at": a.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "verdict": a.verdict,
        "rule": a.rule,
        "b": a.b,
        "c": a.c,
        "p": a.p,
        "first_verdict": a.first_verdict,
        "look": a.look,
        "looks": a.looks,
        "suite": a.suite,
        "escalation": a.escalation,
        "runs": {
            arm: {"run_id": seen.run_id, "key": dict(seen.key)}
            for arm, seen in zip(ARMS, (a.baseline, a.candidate), strict=True)
        },
        "spec_digest": a.spec_digest,
        "flaky_digest": a.flaky_digest,
        "declared_change": list(a.declared_change),
        "registration": a.registration,
        "flipped": [list(flip) for flip in a.flipped],
        "prev": a.prev,
    }


# Reading ----------------------------------------------------------------------------------

Where = Callable[[int], str]  # the n-th entry's place in words: `row 3`, `the note on 1a2b3c4`


def check_chain(texts: Sequence[str], path: Path, where: Where) -> list[Attempt]:
    """The attempts in `texts`, each parsed and linked to the one before (the first to none):
    a changed byte, a removed or a reordered entry is bad input naming the entry and field."""
    attempts: list[Attempt] = []
    prev: str | None = None
    for index, text in enumerate(texts):
        attempt = parse_attempt(text, path, where(index))
        if attempt.prev != prev:
            raise InputError(
                path,
                f"{where(index)}: names the entry before it as {attempt.prev}, but the entry "
                f"before it is {prev or 'none (this is the first)'}: an entry was changed, "
                "removed or moved",
                field="prev",
            )
        attempts.append(attempt)
        prev = digest_of(text)
    return attempts


def check_numbers(attempts: Sequence[Attempt], path: Path) -> None:
    """Each change's attempts numbered 1, 2, ... with none missing and none twice: an attempt
    removed from the middle of a change, or copied, is bad input."""
    numbers: dict[str, list[int]] = {}
    for attempt in attempts:
        numbers.setdefault(attempt.change_id, []).append(attempt.attempt)
    for change_id, found in numbers.items():
        if sorted(found) != list(range(1, len(found) + 1)):
            raise InputError(
                path,
                f"the attempts of {change_id!r} are numbered {sorted(found)}: an attempt was "
                "removed or copied",
                field="attempt",
            )


def parse_attempt(text: str, path: Path, where: str) -> Attempt:
    """One entry's text read back; anything else is bad input naming `where` and the field."""

    def bad(field: str, message: str) -> InputError:
        return InputError(path, f"{where}: {message}", field=field)

    try:
        data = json.loads(text)
    except ValueError:
        raise bad("flipgate_attempt", "not a flipgate attempt: not JSON") from None
    if not isinstance(data, dict) or data.get("flipgate_attempt") != FORMAT:
        raise bad("flipgate_attempt", f"not a flipgate attempt (flipgate_attempt: {FORMAT})")
    fields = Fields(data, bad)
    runs = fields.mapping("runs")
    seen = []
    for arm in ARMS:
        run = Fields(runs.get(arm), _within(bad, f"runs.{arm}."))
        key = run.mapping("key")
        if not all(isinstance(v, str) for v in key.values()):
            raise bad(f"runs.{arm}.key", "a cache key's components are text")
        seen.append(RunSeen(run.text("run_id"), dict(key)))
    attempt = Attempt(
        id=fields.text("id"),
        change_id=fields.text("change_id"),
        attempt=fields.count("attempt", low=1),
        at=fields.time("at"),
        verdict=fields.word("verdict", VERDICTS),
        rule=fields.word("rule", GATE_RULES),
        b=fields.count("b"),
        c=fields.count("c"),
        p=fields.probability("p"),
        first_verdict=None
        if data.get("first_verdict") is None
        else fields.word("first_verdict", VERDICTS),
        look=fields.count("look", low=1),
        looks=fields.count("looks", low=1),
        suite=fields.text("suite"),
        escalation=fields.optional_text("escalation"),
        baseline=seen[0],
        candidate=seen[1],
        spec_digest=fields.text("spec_digest"),
        flaky_digest=fields.text("flaky_digest"),
        declared_change=tuple(fields.texts("declared_change")),
        registration=fields.optional_text("registration"),
        flipped=fields.flips("flipped"),
        prev=fields.optional_text("prev"),
    )
    if attempt.text() != text:  # canonical, or someone wrote it by hand
        raise bad("entry", "not in the ledger's canonical form: the entry was edited")
    return attempt


def _within(bad: Callable[[str, str], InputError], prefix: str) -> Callable[[str, str], InputError]:
    """`bad` for the fields of a nested object, each named with the path to it."""

    def nested(field: str, message: str) -> InputError:
        return bad(prefix + field, message)

    return nested


class Fields:
    """A JSON object's fields, each checked for its type as it is read."""

    def __init__(self, data: object, bad: Callable[[str, str], InputError]) -> None:
        if not isinstance(data, dict):
            raise bad("", "expected an object")
        self.data: dict[str, Any] = data
        self.bad = bad

    def _get(self, name: str) -> Any:
        if name not in self.data:
            raise self.bad(name, "missing")
        return self.data[name]

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str) or not value:
            raise self.bad(name, f"expected text, got {value!r}")
        return value

    def optional_text(self, name: str) -> str | None:
        return None if self._get(name) is None else self.text(name)

    def texts(self, name: str) -> list[str]:
        value = self._get(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(name, "expected a list of text")
        return value

    def mapping(self, name: str) -> dict[str, Any]:
        value = self._get(name)
        if not isinstance(value, dict):
            raise self.bad(name, "expected an object")
        return value

    def count(self, name: str, *, low: int = 0) -> int:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.bad(name, f"expected a whole number from {low}, got {value!r}")
        return value

    def probability(self, name: str) -> float:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise self.bad(name, f"expected a probability, got {value!r}")
        return float(value)

    def word(self, name: str, allowed: Sequence[Any]) -> Any:
        value = self._get(name)
        if value not in allowed:
            raise self.bad(name, f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def time(self, name: str) -> datetime:
        text = self.text(name)
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise self.bad(name, f"{text!r} is not an ISO 8601 time") from None
        if moment.utcoffset() is None:
            raise self.bad(name, "the time needs a time zone")
        return moment

    def flips(self, name: str) -> tuple[tuple[str, Direction], ...]:
        value = self._get(name)
        flips: list[tuple[str, Direction]] = []
        for item in value if isinstance(value, list) else [None]:
            if (
                not isinstance(item, list)
                or len(item) != 2
                or not isinstance(item[0], str)
                or item[1] not in FLIPS
            ):
                raise self.bad(name, "expected [case, direction] pairs")
            flips.append((item[0], _direction(item[1])))
        return tuple(flips)
