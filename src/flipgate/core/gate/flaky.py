"""The flaky list (`flaky.yaml`, SPEC §7): cases that flip between identical baseline runs.

A listed case still runs and is shown, but is left out of `b` and `c` until someone repairs it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import load_yaml

ENTRY_FIELDS = ("case", "owner", "added", "reason", "evidence")


@dataclass(frozen=True)
class FlakyEntry:
    case: str
    owner: str
    added: date
    reason: str
    evidence: str
    extra: dict[str, Any] = field(default_factory=dict)  # history, retired notes...


@dataclass(frozen=True)
class FlakyList:
    entries: tuple[FlakyEntry, ...] = ()
    digest: str = "sha256:" + hashlib.sha256(b"").hexdigest()
    source: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def by_case(self) -> dict[str, FlakyEntry]:
        """Each entry by its case, built once: callers look cases up one at a time."""
        return {e.case: e for e in self.entries}

    @cached_property
    def cases(self) -> frozenset[str]:
        return frozenset(self.by_case)

    def entry(self, case: str) -> FlakyEntry | None:
        return self.by_case.get(case)


def load_flaky(path: Path | None, content: bytes | None = None) -> FlakyList:
    """Read `flaky.yaml`; `None` is the empty list. `content`: the file as read elsewhere (a git
    revision), `path` naming it."""
    if path is None:
        return FlakyList()
    data, lines = load_yaml(path, content)
    raw = path.read_bytes() if content is None else content
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    if data is None:
        return FlakyList(digest=digest, source=path)
    if not isinstance(data, dict) or not isinstance(data.get("entries", []), list):
        raise InputError(path, "a flaky list is a mapping whose `entries` is a list", line=1)
    if data and "entries" not in data:  # another file given as the list (gate.yaml) lists nothing
        raise InputError(
            path,
            f"no `entries`: a flaky list is a mapping whose `entries` is a list; this one holds "
            f"{', '.join(map(str, data))}",
            line=1,
            field="entries",
        )
    entries: list[FlakyEntry] = []
    seen: set[str] = set()
    for i, raw in enumerate(data.get("entries") or []):
        where = f"entries.{i}"

        def bad(name: str, message: str, where: str = where) -> InputError:
            return InputError(
                path, message, line=lines.line(f"{where}.{name}"), field=f"{where}.{name}"
            )

        if not isinstance(raw, dict):
            raise InputError(path, "an entry is a mapping", line=lines.line(where), field=where)
        for name in ENTRY_FIELDS:
            if raw.get(name) in (None, ""):
                raise bad(name, "required")
        for name in ("case", "owner", "reason", "evidence"):
            if not isinstance(raw[name], str):
                raise bad(name, f"must be text, not {raw[name]!r}")
        added = raw["added"]
        if isinstance(added, datetime):
            added = added.date()
        elif not isinstance(added, date):
            try:
                added = date.fromisoformat(str(added))
            except ValueError:
                raise bad("added", f"not a date (YYYY-MM-DD): {added!r}") from None
        if raw["case"] in seen:
            raise bad("case", f"case {raw['case']!r} is listed twice")
        seen.add(raw["case"])
        extra = {k: v for k, v in raw.items() if k not in ENTRY_FIELDS}
        entries.append(
            FlakyEntry(raw["case"], raw["owner"], added, raw["reason"], raw["evidence"], extra)
        )
    rest = {k: v for k, v in data.items() if k != "entries"}
    return FlakyList(tuple(entries), digest=digest, source=path, extra=rest)
