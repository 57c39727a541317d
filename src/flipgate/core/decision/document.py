"""The decision file's text: emitted key by key, and parsed back into a record.

The file is YAML that this module emits itself, so that the signed bytes do not depend on a YAML
library's version and every string is quoted safely: text that could be misread (control and
format characters such as bidi overrides, odd spaces, CR) is written as a double-quoted escape,
so what a person reads in the file is what a parser reads. Reading goes through `parse_yaml`
(`file`): safe, and no aliases or repeated keys.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import yaml

from flipgate.core.decision.fields import InvalidDecision, text_field
from flipgate.core.decision.record import (
    CasePlacement,
    ChecklistEntry,
    DecisionRecord,
    GateSummary,
    Reviewer,
    RuleRegistered,
    RunRef,
)
from flipgate.core.decision.review_log import FIELDS, Looked
from flipgate.core.vocab import ARMS

FORMAT_VERSION = 1

# Words of safe characters, a colon only inside a word: never a YAML indicator, never `key: value`.
_PLAIN_WORD = r"[A-Za-z0-9_.@/+-]+(?::[A-Za-z0-9_.@/+-]+)*"
_PLAIN = re.compile(rf"(?=[A-Za-z0-9_]){_PLAIN_WORD}(?: {_PLAIN_WORD})*")
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_NAMED_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


# Rendering --------------------------------------------------------------------------------


def render_decision(record: DecisionRecord) -> str:
    """The unsigned decision document: the exact text that gets signed."""
    return render_yaml(_document(record))


def render_yaml(document: Mapping[str, Any]) -> str:
    """`document` as YAML emitted key by key (a decision's, a registration's)."""
    return "".join(line + "\n" for line in _emit_mapping(document, 0))


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
        # Written only when there is something to say, so that a decision without them reads
        # (and is named) as one written before they existed.
        **({"cases_added": list(record.cases_added)} if record.cases_added else {}),
        **({"review_log": _log(record.review_log)} if record.review_log is not None else {}),
        **({"registration": _registered(record.registration)} if record.registration else {}),
        # Issue 23: each broken case's triage class and why; last, so that a decision written
        # before it (with or without issue 24's fields) reads, and verifies, as before.
        **({"broken_cases": _placed(record.broken_cases)} if record.broken_cases else {}),
    }


def _placed(broken_cases: tuple[CasePlacement, ...]) -> list[dict[str, str]]:
    return [
        {"case": placed.case, "class": placed.triage_class, "why": placed.why}
        for placed in broken_cases
    ]


def _log(log: tuple[Looked, ...]) -> list[dict[str, Any]]:
    return [
        {
            "at": _utc_text(entry.at),
            "event": entry.event,
            **{name: value for name, value in entry.fields().items() if value is not None},
        }
        for entry in log
    ]


def _registered(registration: RuleRegistered) -> dict[str, Any]:
    return {
        "registered": _utc_text(registration.registered),
        "signer": registration.signer,
        "digest": registration.digest,
        "before_run": registration.candidate,
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


# Parsing ----------------------------------------------------------------------------------


def parse_decision(document: object) -> DecisionRecord:
    """A `DecisionRecord` from the safe-loaded message part of a decision file."""
    top = expect_keys(document, "", _TOP_KEYS, optional=_ADDED_KEYS)
    if top["flipgate_decision"] != FORMAT_VERSION:
        raise InvalidDecision(
            "flipgate_decision",
            f"format version {top['flipgate_decision']!r} is not {FORMAT_VERSION}",
        )
    gate = expect_keys(top["gate"], "gate", _GATE_KEYS)
    runs = expect_keys(top["runs"], "runs", ARMS)
    return DecisionRecord(
        decision=text_field(top["decision"], "decision"),
        cause=text_field(top["cause"], "cause"),
        reason=text_field(top["reason"], "reason"),
        reviewer=parse_reviewer(top["reviewer"]),
        created=parse_time(top["created"]),
        gate=GateSummary(**{name: gate[name] for name in _GATE_KEYS}),
        baseline=_run(runs["baseline"], "runs.baseline"),
        candidate=_run(runs["candidate"], "runs.candidate"),
        checklist=tuple(
            _checklist_entry(item) for item in expect_list(top["checklist"], "checklist")
        ),
        cases_reviewed=_texts(top["cases_reviewed"], "cases_reviewed"),
        cases_added=_texts(top.get("cases_added", []), "cases_added"),
        review_log=None
        if "review_log" not in top
        else tuple(_looked(item) for item in expect_list(top["review_log"], "review_log")),
        registration=None if "registration" not in top else _registration(top["registration"]),
        broken_cases=tuple(
            _placement(item) for item in expect_list(top.get("broken_cases", []), "broken_cases")
        ),
    )


def _texts(value: object, name: str) -> tuple[str, ...]:
    return tuple(text_field(item, name) for item in expect_list(value, name))


def _looked(value: object) -> Looked:
    entry = expect_keys(value, "review_log", ("at", "event"), optional=FIELDS)
    counts = {name: entry.get(name) for name in ("rep", "turn")}
    texts = {
        name: None if entry.get(name) is None else text_field(entry[name], f"review_log.{name}")
        for name in ("case", "view", "class", "finding")
    }
    return Looked(
        event=text_field(entry["event"], "review_log.event"),  # type: ignore[arg-type]
        at=parse_time(entry["at"], "review_log.at"),
        case=texts["case"],
        rep=counts["rep"],
        view=texts["view"],
        turn=counts["turn"],
        triage_class=texts["class"],
        finding=texts["finding"],
    )


def _registration(value: object) -> RuleRegistered:
    entry = expect_keys(value, "registration", ("registered", "signer", "digest", "before_run"))
    return RuleRegistered(
        registered=parse_time(entry["registered"], "registration.registered"),
        signer=text_field(entry["signer"], "registration.signer"),
        digest=text_field(entry["digest"], "registration.digest"),
        candidate=text_field(entry["before_run"], "registration.before_run"),
    )


_TOP_KEYS = (
    "flipgate_decision", "decision", "cause", "reason", "reviewer", "created",
    "gate", "runs", "checklist", "cases_reviewed",
)  # fmt: skip
# Absent in older files: issue 24's review and registration, issue 23's broken cases' classes.
_ADDED_KEYS = ("cases_added", "review_log", "registration", "broken_cases")


_GATE_KEYS = ("verdict", "rule", "b", "c", "p", "spec_digest", "flaky_digest")


def expect_keys(
    value: object, name: str, keys: tuple[str, ...], *, optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """`value` as a mapping with exactly `keys`, and perhaps `optional` (InvalidDecision naming
    the field otherwise)."""
    where = name or "document"
    if not isinstance(value, dict):
        raise InvalidDecision(where, f"expected a mapping, got {type(value).__name__}")
    missing = [key for key in keys if key not in value]
    extra = [str(key) for key in value if key not in keys and key not in optional]
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


def parse_reviewer(value: object) -> Reviewer:
    reviewer = expect_keys(value, "reviewer", ("name", "email"))
    return Reviewer(
        text_field(reviewer["name"], "reviewer.name"),
        text_field(reviewer["email"], "reviewer.email"),
    )


def expect_list(value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidDecision(name, f"expected a list, got {type(value).__name__}")
    return value


def parse_time(value: object, name: str = "created") -> datetime:
    text = text_field(value, name)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidDecision(name, f"{text!r} is not an ISO 8601 time") from None
    return moment


def _run(value: object, name: str) -> RunRef:
    run = expect_keys(value, name, ("run_id", "path", "digest"))
    return RunRef(
        text_field(run["run_id"], f"{name}.run_id"),
        text_field(run["path"], f"{name}.path"),
        text_field(run["digest"], f"{name}.digest"),
    )


def _placement(value: object) -> CasePlacement:
    entry = expect_keys(value, "broken_cases", ("case", "class", "why"))
    return CasePlacement(
        text_field(entry["case"], "broken_cases.case"),
        text_field(entry["class"], "broken_cases.class"),
        text_field(entry["why"], "broken_cases.why"),
    )


def _checklist_entry(value: object) -> ChecklistEntry:
    entry = expect_keys(value, "checklist", ("class", "finding", "note"))
    finding = entry["finding"]
    return ChecklistEntry(
        text_field(entry["class"], "checklist.class"),
        None if finding is None else text_field(finding, "checklist.finding"),
        text_field(entry["note"], "checklist.note"),
    )
