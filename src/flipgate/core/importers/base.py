"""What every importer shares: the options a user gives, the run it produces, and its declaration.

An importer declares how it recognises a file, the options it takes (with their help text) and
how it reads; `flipgate.core.importers` holds the registry that picks one for a file.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from flipgate.core.errors import InputError
from flipgate.core.importers.notes import ImportNote
from flipgate.core.vocab import DEFAULT_LABELS

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Completeness

ZIP_SIGNATURE = b"PK\x03\x04"  # a zip archive's first local file header
HEAD_BYTES = 1 << 16


@dataclass(frozen=True)
class ImportOptions:
    """How to read scores that are not plain pass/fail, and which column of a file to take."""

    partial_passes: bool = False  # Inspect `P` counts as a pass
    pass_threshold: float = 1.0  # numeric scores pass at or above this (Inspect, lm-eval, tables)
    max_member_mb: float = 256  # an Inspect .eval member decompresses to at most this
    select: dict[str, str] = field(default_factory=dict)  # promptfoo: {"provider": LABEL} ...
    labels: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_LABELS))
    # a table export: which column holds what
    case_column: str | None = None
    rep_column: str | None = None
    score_column: tuple[str, ...] = ()
    error_column: str | None = None


@dataclass(frozen=True)
class ImportedRun:
    source: Path
    tool: str  # the importer's name: "inspect" | "promptfoo"
    manifest: dict[str, Any]  # what run.yaml would hold
    records: list[dict[str, Any]]  # what results.jsonl would hold, one per (case, rep)
    notes: list[ImportNote] = field(default_factory=list)  # what a user must see (notes.py)
    # whether the run finished and which repetitions it lacks; also in manifest["completeness"]
    completeness: Completeness | None = None


@dataclass(frozen=True)
class Option:
    """One option an importer takes, as a user gives it on the command line.

    `takes`: a switch (given or not), one value, or a value given once per use. `read` turns what
    was given (True, the text, or the list of texts) into the `ImportOptions` field's value; a
    ValueError it raises says what is wrong.
    """

    field: str  # the ImportOptions field it sets
    help: str
    takes: Literal["switch", "value", "values"] = "switch"
    read: Callable[[Any], Any] = bool
    metavar: str | None = None

    @property
    def flag(self) -> str:
        return "--" + self.field.replace("_", "-")


class LogFile:
    """A file an importer is asked about; what they look at is read once, when first asked."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @cached_property
    def head(self) -> bytes:
        """The first bytes: enough for a signature, or a JSONL file's first line."""
        with self.path.open("rb") as handle:
            return handle.read(HEAD_BYTES)

    @cached_property
    def is_zip(self) -> bool:
        return self.head.startswith(ZIP_SIGNATURE)

    @cached_property
    def first_line(self) -> Any:
        """A JSON Lines file's first line as JSON; None when it is not a JSON object."""
        line = self.head.split(b"\n", 1)[0]
        try:
            value = json.loads(line if len(line) < HEAD_BYTES else _first_line(self.path))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    @cached_property
    def document(self) -> Any:
        """The file as JSON; None when it is not JSON."""
        if self.head.lstrip()[:1] not in (b"{", b"["):
            return None
        try:
            return json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None


def _first_line(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.readline()


@dataclass(frozen=True)
class Importer:
    name: str  # the run's `source_format`
    title: str  # the tool, as its users call it
    options: tuple[Option, ...]
    recognises: Callable[[LogFile], bool]
    read: Callable[[LogFile, ImportOptions], ImportedRun]


def short_digest(text: str) -> str:
    """Eight hex digits of SHA-256: enough to tell two revisions of a key component apart."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def take_case_flags(metadata: dict[str, Any], path: Path, where: str) -> dict[str, Any]:
    """Move `safety` and `template` out of a tool's case metadata into record fields."""
    flags: dict[str, Any] = {}
    if "safety" in metadata:
        safety = metadata.pop("safety")
        if not isinstance(safety, bool):
            raise InputError(path, "must be true or false", field=f"{where}.metadata.safety")
        flags["safety"] = safety
    if "template" in metadata:
        flags["template"] = str(metadata.pop("template"))
    return flags


def check_unique(path: Path, records: list[dict[str, Any]], what: str) -> None:
    """A (case, rep) given twice is refused: which one counts is not ours to guess."""
    seen: set[tuple[str, int]] = set()
    for record in records:
        key = (record["case"], record["rep"])
        if key in seen:
            raise InputError(path, f"{what} {key[0]!r} repetition {key[1]} appears twice")
        seen.add(key)


def finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, not {text!r}")
    return number


def positive(text: str) -> float:
    number = finite(text)
    if number <= 0:
        raise ValueError(f"must be above 0, not {text!r}")
    return number


PASS_THRESHOLD = Option(
    "pass_threshold",
    "numeric scores pass at this (default 1)",
    takes="value",
    read=finite,
    metavar="X",
)
