"""The triage walk (SPEC §5): the reviewer's finding and note per class, saved beside the workspace.

A walk is keyed by both runs' ids and content digests, so that a walk made on other runs is never
resumed; its checklist is what a signed decision records.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from flipgate.core.decision.record import ChecklistEntry
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison
from flipgate.core.io.digest import run_digest
from flipgate.core.io.edit import edit
from flipgate.core.io.yamlio import dump_yaml, load_yaml
from flipgate.core.runs.model import Run
from flipgate.core.vocab import (
    ARMS,
    FINDINGS,
    TRIAGE_CLASSES,
    Finding,
)

WALK_FILE = Path(".flipgate") / "triage.yaml"
WALK_FORMAT = 1


@dataclass(frozen=True)
class RunMark:
    """Which run a walk was made on: its id and the digest of its content."""

    run_id: str
    digest: str


@dataclass(frozen=True)
class ClassFinding:
    finding: Finding | None = None
    note: str = ""


@dataclass(frozen=True)
class TriageWalk:
    """The reviewer's finding and note per class, for one pair of runs."""

    baseline: RunMark
    candidate: RunMark
    findings: dict[str, ClassFinding] = field(
        default_factory=lambda: {klass: ClassFinding() for klass in TRIAGE_CLASSES}
    )
    updated: datetime | None = None

    def record(
        self,
        klass: str,
        *,
        finding: Finding | Literal[False] | None = False,
        note: str | None = None,
    ) -> TriageWalk:
        """A copy with `klass`'s finding and/or note changed (`finding=False`: leave it)."""
        if klass not in TRIAGE_CLASSES:
            raise ValueError(f"unknown triage class {klass!r}")
        if finding not in (False, None, *FINDINGS):
            raise ValueError(f"unknown finding {finding!r}")
        was = self.findings[klass]
        now = ClassFinding(
            was.finding if finding is False else finding, was.note if note is None else note
        )
        return replace(self, findings={**self.findings, klass: now})

    @property
    def cause(self) -> str | None:
        """The first class found to be the cause, in walk order."""
        return next((k for k in TRIAGE_CLASSES if self.findings[k].finding == "cause"), None)

    @property
    def done(self) -> bool:
        return all(self.findings[k].finding is not None for k in TRIAGE_CLASSES)

    def same_runs(self, other: TriageWalk) -> bool:
        return (self.baseline, self.candidate) == (other.baseline, other.candidate)


def walk_path(workspace: Path) -> Path:
    return workspace / WALK_FILE


def run_mark(run: Run) -> RunMark:
    """The run's id and content digest (the same digest a decision file records)."""
    try:
        digest = run_digest(run.path)
    except (InputError, OSError):
        # A run built in memory (tests, importers) has no files: digest what was loaded.
        content = hashlib.sha256()
        for frame in (run.reps, run.decisions, run.checks):
            content.update(frame.write_csv().encode())
        digest = "sha256:" + content.hexdigest()
    return RunMark(run.run_id, digest)


def start_walk(comparison: Comparison) -> TriageWalk:
    return TriageWalk(run_mark(comparison.baseline), run_mark(comparison.candidate))


def checklist(walk: TriageWalk) -> tuple[ChecklistEntry, ...]:
    """The checklist a signed decision records: every class in walk order, finding and note."""
    return tuple(
        ChecklistEntry(klass, walk.findings[klass].finding, walk.findings[klass].note)
        for klass in TRIAGE_CLASSES
    )


def _walk_document(walk: TriageWalk) -> dict[str, Any]:
    return {
        "baseline": {"run_id": walk.baseline.run_id, "digest": walk.baseline.digest},
        "candidate": {"run_id": walk.candidate.run_id, "digest": walk.candidate.digest},
        "updated": _utc(walk.updated),
        "checklist": [
            {"class": entry.triage_class, "finding": entry.finding, "note": entry.note}
            for entry in checklist(walk)
        ],
    }


def _utc(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _read_walks(path: Path, content: bytes | None = None) -> list[TriageWalk]:
    """The walks saved at `path` (or in `content`, its bytes read under its lock)."""
    if content is None and not path.exists():
        return []
    data, _ = load_yaml(path, content)
    if data is None:
        return []
    if not isinstance(data, dict) or data.get("flipgate_triage") != WALK_FORMAT:
        raise InputError(path, f"not a triage walk file (flipgate_triage: {WALK_FORMAT})", line=1)
    walks = data.get("walks")
    if not isinstance(walks, list):
        raise InputError(path, "must be a list", field="walks")
    return [_parse_walk(path, i, item) for i, item in enumerate(walks)]


def _parse_walk(path: Path, i: int, item: object) -> TriageWalk:
    def bad(name: str, message: str) -> InputError:
        return InputError(path, message, field=f"walks.{i}.{name}")

    if not isinstance(item, dict):
        raise bad("", "a walk is a mapping")
    marks = []
    for arm in ARMS:
        mark = item.get(arm)
        if not isinstance(mark, dict) or not all(
            isinstance(mark.get(k), str) for k in ("run_id", "digest")
        ):
            raise bad(arm, "needs run_id and digest")
        marks.append(RunMark(mark["run_id"], mark["digest"]))
    walk = TriageWalk(marks[0], marks[1])
    entries = item.get("checklist") or []
    if not isinstance(entries, list):
        raise bad("checklist", "must be a list")
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("class") not in TRIAGE_CLASSES:
            raise bad("checklist", f"unknown class in {entry!r}")
        finding, note = entry.get("finding"), entry.get("note") or ""
        if finding is not None and finding not in FINDINGS:
            raise bad("checklist", f"unknown finding {finding!r}")
        if not isinstance(note, str):
            raise bad("checklist", f"a note is text, not {note!r}")
        walk = walk.record(entry["class"], finding=finding, note=note)
    updated = item.get("updated")
    when = None
    if updated is not None:
        try:
            when = datetime.fromisoformat(str(updated).replace("Z", "+00:00"))
        except ValueError:
            raise bad("updated", f"not an ISO 8601 time: {updated!r}") from None
    return replace(walk, updated=when)


def load_walk(path: Path, comparison: Comparison) -> TriageWalk:
    """The walk saved at `path` for this comparison's two runs, or a fresh one.

    A walk made on other runs (another id or another digest) is never resumed.
    """
    fresh = start_walk(comparison)
    return next((w for w in _read_walks(path) if w.same_runs(fresh)), fresh)


def save_walk(path: Path, walk: TriageWalk, *, now: datetime | None = None) -> TriageWalk:
    """Write `walk` into `path`, keeping the walks of other runs (saved meanwhile by another
    reviewer too: the file is edited under its lock); returns it stamped."""
    stamped = replace(walk, updated=now or datetime.now(UTC).replace(microsecond=0))
    with edit(path) as file:
        saved = _read_walks(path, file.before) if file.before is not None else []
        others = [w for w in saved if not w.same_runs(walk)]
        document = {
            "flipgate_triage": WALK_FORMAT,
            "walks": [_walk_document(w) for w in (*others, stamped)],
        }
        file.replace(dump_yaml(document, width=100))
    return stamped


__all__ = [
    "ClassFinding",
    "RunMark",
    "TriageWalk",
    "checklist",
    "load_walk",
    "run_mark",
    "save_walk",
    "start_walk",
    "walk_path",
]
