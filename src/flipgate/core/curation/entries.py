"""Editing the flaky list (SPEC §7): add an entry, retire a repaired one.

    add      a new entry, with an owner, a reason, evidence and an `added` event in its history
    remove   retire a repaired entry: it moves to `retired:` with its history and a note

Edits never lose data: every entry keeps its fields in order (unknown ones included), comments
outside the touched entry stay where they are (`core.io.yamledit`), and the new text is parsed
back and compared with the intended content before it replaces the file, under the file's lock
(`core.io.edit`): two curators at once both get their change. On any error nothing is written.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from flipgate.core.curation.flips import safety_cases, suite_cases
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList, load_flaky
from flipgate.core.gate.spec import GateSpec
from flipgate.core.io.digest import bytes_digest
from flipgate.core.io.edit import EditedFile, edit
from flipgate.core.io.files import read_bytes
from flipgate.core.io.yamledit import append_items, apply, drop_item, dump_block
from flipgate.core.io.yamlio import LineIndex, Outline, load_yaml
from flipgate.core.runs.model import Run

NEW_FILE_HEADER = (
    "# The flaky list (SPEC §7): cases that flip between identical baseline runs.\n"
    "# Listed cases still run and are shown, but are left out of b and c until repaired.\n"
    "# Edit with `flipgate flaky add|remove` so that every change keeps its history.\n"
)


@dataclass(frozen=True)
class _Stored:
    """The list as parsed (validated) and as raw data and text, for edits that keep everything."""

    path: Path
    before: bytes
    flaky: FlakyList
    data: dict[str, Any]
    outline: Outline | None  # where its parts lie in the text, for an edit that keeps the rest


@dataclass(frozen=True)
class Listed:
    """A case put on the list by `owner`, and the slots the cap leaves."""

    case: str
    owner: str
    left: int
    cap: int


@dataclass(frozen=True)
class Unlisted:
    """A repaired case moved off the list to `retired:`, with the note why."""

    case: str
    note: str


@dataclass(frozen=True)
class Edit:
    """What an edit wrote: the new text, the list's digest before and after, and what was done
    (facts; words: `present/curation.py`)."""

    path: Path
    text: str
    before_digest: str
    flaky_digest: str
    done: Listed | Unlisted
    comments_kept: bool  # False when the file had to be rewritten whole (comments dropped)


def load_list(path: Path | None) -> FlakyList:
    """`load_flaky`, where a missing file is the empty list: curation may start one."""
    if path is None or not path.exists():
        return FlakyList(source=path)
    return load_flaky(path)


def _stored(path: Path, before: bytes | None) -> _Stored:
    """The list as `before` holds it (None: no file yet, so the empty list)."""
    if before is None:
        return _Stored(path, b"", FlakyList(source=path), {"entries": []}, None)
    flaky = load_flaky(path, before)
    data, lines = load_yaml(path, before, outline=True)
    data = data if data is not None else {}
    data.setdefault("entries", [])
    if data["entries"] is None:
        data["entries"] = []
    _check_curation_fields(path, data, lines)
    return _Stored(path, before, flaky, data, lines.outline)


def read_curated(path: Path) -> FlakyList:
    """The list at `path`, its curation fields (`history`, `retired`) held to their shape too."""
    return _stored(path, read_bytes(path) if path.exists() else None).flaky


def _check_curation_fields(path: Path, data: dict[str, Any], lines: LineIndex) -> None:
    """`history` and `retired` are ours: hold them to their shape so that edits stay honest."""

    def bad(where: str, message: str) -> InputError:
        return InputError(path, message, line=lines.line(where), field=where)

    retired = data.get("retired", [])
    if retired is not None and not isinstance(retired, list):
        raise bad("retired", "must be a list of retired entries")
    for i, item in enumerate(retired or []):
        if not isinstance(item, dict) or not isinstance(item.get("case"), str):
            raise bad(f"retired.{i}", "a retired entry is a mapping with its `case`")
    groups = [("entries", data["entries"]), ("retired", retired or [])]
    for group, items in groups:
        for i, item in enumerate(items):
            history = item.get("history", [])
            where = f"{group}.{i}.history"
            if not isinstance(history, list):
                raise bad(where, "must be a list of events (event, date, by, note)")
            for j, event in enumerate(history):
                if not isinstance(event, dict):
                    raise bad(f"{where}.{j}", "an event is a mapping (event, date, by, note)")
                when = event.get("date")
                if isinstance(when, datetime) or not isinstance(when, date):
                    raise bad(f"{where}.{j}.date", f"not a date (YYYY-MM-DD): {when!r}")


def _history_of(item: dict[str, Any]) -> list[dict[str, Any]]:
    """The entry's history; an entry from before history was kept gets its `added` event back."""
    history = item.get("history")
    if history:
        return list(history)
    return [{"event": "added", "date": item["added"], "by": item["owner"]}]


def _render(stored: _Stored, data: dict[str, Any], splice: str | None) -> tuple[str, bool]:
    """The new text: the spliced one when it parses back to `data`, else `data` dumped whole."""
    if splice is not None and yaml.safe_load(splice) == data:
        return splice, True
    whole = dump_block(data)
    if not stored.before:
        whole = NEW_FILE_HEADER + whole
    if yaml.safe_load(whole) != data:  # a value YAML cannot hold: refuse rather than lose it
        raise InputError(
            stored.path, "the edited list would not read back the same; nothing written"
        )
    return whole, False


def _write(
    file: EditedFile,
    stored: _Stored,
    data: dict[str, Any],
    splice: str | None,
    done: Listed | Unlisted,
) -> Edit:
    """Replace the file; the new text must load as a valid list (the one the gate will read)."""
    text, kept = _render(stored, data, splice)
    load_flaky(stored.path, text.encode("utf-8"))
    file.replace(text)
    return Edit(
        path=stored.path,
        text=text,
        before_digest=bytes_digest(stored.before),
        flaky_digest=bytes_digest(text.encode("utf-8")),
        done=done,
        comments_kept=kept,
    )


def _required(path: Path, name: str, value: str | None) -> str:
    if value is None or not value.strip():
        raise InputError(path, f"{name} is required and must not be empty", field=name)
    return value.strip()


def add(
    flaky_path: Path,
    case: str,
    owner: str,
    reason: str,
    evidence: str,
    today: date,
    *,
    suite: Sequence[Run],
    spec: GateSpec,
    by: str | None = None,
    note: str | None = None,
) -> Edit:
    """List `case`, refusing what the gate would refuse or what would make the list dishonest.

    `suite`: the runs that define the suite (its cases, which are safety cases, the cap).
    `by`: who made the change (default: the owner).
    """
    path = Path(flaky_path)
    owner = _required(path, "owner", owner)
    reason = _required(path, "reason", reason)
    evidence = _required(path, "evidence", evidence)
    if not suite:
        raise InputError(path, "adding needs the suite's runs: they say which cases exist")
    with edit(path) as file:
        stored = _stored(path, file.before)
        existing = stored.flaky.entry(case)
        if existing is not None:
            raise InputError(
                path,
                f"case {case!r} is already listed (owner {existing.owner}, added "
                f"{existing.added.isoformat()})",
                field="case",
            )
        if case in safety_cases(suite):
            raise InputError(
                path,
                f"case {case!r} is a safety case: never on the flaky list; a safety case that flips "
                "is a finding about the agent",
                field="case",
            )
        known = suite_cases(suite)
        if case not in known:
            runs = ", ".join(run.run_id for run in suite)
            raise InputError(
                path, f"unknown case {case!r}: not in the suite ({runs})", field="case"
            )
        cap = spec.flaky_cap(len(known))
        listed = len(stored.flaky.entries)
        if listed >= cap:
            raise InputError(
                path,
                f"the flaky list is full: {listed} listed, cap {cap} "
                f"({spec.flaky_max_share:.0%} of {len(known)} cases), 0 slots left; "
                "repair and retire an entry first",
            )
        event: dict[str, Any] = {"event": "added", "date": today, "by": (by or owner).strip()}
        if note:
            event["note"] = note
        item = {
            "case": case,
            "owner": owner,
            "added": today,
            "reason": reason,
            "evidence": evidence,
            "history": [event],
        }
        data = copy.deepcopy(stored.data)
        data["entries"].append(item)
        text = stored.before.decode("utf-8")
        added = append_items(
            text, stored.outline, stored.data, "entries", [item], dump_block([item])
        )
        splice = apply(text, [added])
        left = cap - listed - 1
        return _write(file, stored, data, splice, Listed(case, owner, left, cap))


def remove(flaky_path: Path, case: str, note: str, today: date, *, by: str | None = None) -> Edit:
    """Retire a repaired entry: it moves to `retired:` with its history and a `retired` event."""
    path = Path(flaky_path)
    note = _required(path, "note", note)
    with edit(path) as file:
        stored = _stored(path, file.before)
        entries = stored.data["entries"]
        index = next((i for i, e in enumerate(entries) if e.get("case") == case), None)
        if index is None:
            gone = [r for r in stored.data.get("retired") or [] if r.get("case") == case]
            already = " (it was retired earlier)" if gone else ""
            raise InputError(path, f"case {case!r} is not on the flaky list{already}", field="case")
        entry = entries[index]
        history = _history_of(entry)
        history.append(
            {"event": "retired", "date": today, "by": (by or entry["owner"]).strip(), "note": note}
        )
        retired_item = {k: v for k, v in entry.items() if k != "history"}
        retired_item["history"] = history
        data = copy.deepcopy(stored.data)
        del data["entries"][index]
        data["retired"] = [*(data.get("retired") or []), retired_item]
        text = stored.before.decode("utf-8")
        rendered = dump_block([retired_item])
        splice = apply(
            text,
            [
                drop_item(text, stored.outline, stored.data, "entries", index),
                append_items(
                    text, stored.outline, stored.data, "retired", [retired_item], rendered
                ),
            ],
        )
        return _write(file, stored, data, splice, Unlisted(case, note))


__all__ = ["Edit", "Listed", "Unlisted", "add", "load_list", "read_curated", "remove"]
