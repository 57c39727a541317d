"""The checks every field of a signed file goes through, and the error that names the field:
shared by the decision (`record`), its review log (`review_log`) and the registration
(`registration`), so that a value is refused in the same words wherever it is written."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class InvalidDecision(ValueError):
    """A decision value is not allowed; `field` names it (dotted, e.g. `gate.p`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"field '{field}': {message}")


def now_utc() -> datetime:
    """The current time to the second, as the decision file records it."""
    return datetime.now(UTC).replace(microsecond=0)


def one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidDecision(
            name, f"unknown value {value!r}; expected one of {', '.join(allowed)}"
        )


def checked_text(name: str, value: object) -> str:
    text = text_field(value, name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidDecision(
            name, "the text holds a lone surrogate, which is not Unicode"
        ) from None
    return text


def one_line(name: str, value: object) -> None:
    text = checked_text(name, value)
    if not text.strip() or "\n" in text or "\r" in text:
        raise InvalidDecision(name, f"{text!r} must be one non-empty line")


def digest_field(name: str, value: object) -> None:
    if not isinstance(value, str) or not _DIGEST.fullmatch(value):
        raise InvalidDecision(name, f"{value!r} is not a digest of the form sha256:<64 hex digits>")


def unique(name: str, values: Iterable[object]) -> None:
    seen: set[object] = set()
    for value in values:
        if value in seen:
            raise InvalidDecision(name, f"{value!r} appears twice")
        seen.add(value)


def text_field(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidDecision(name, f"expected text, got {type(value).__name__}")
    return value
