"""Curating the flaky list (SPEC §7): propose entries from identical baseline runs, edit, check.

    propose  runs of one baseline (same key) -> the cases whose collapsed verdict flipped between
             them; safety cases that flip are findings about the agent, never proposals
    add      a new entry, with an owner, a reason, evidence and an `added` event in its history
    remove   retire a repaired entry: it moves to `retired:` with its history and a note
    check    entries for cases that no longer exist, and entries quiet for the last N runs

Edits never lose data: every entry keeps its fields in order (unknown ones included), comments
outside the touched entry stay where they are, and the new text is parsed back and compared
with the intended content before it replaces the file atomically. On any error nothing is
written.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList, load_flaky
from flipgate.core.gate.spec import GateSpec
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.digest import bytes_digest
from flipgate.core.io.yamlio import LineIndex, load_yaml
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run

READY_WINDOW = 3  # quiet for this many identical runs: ready to release
NEW_FILE_HEADER = (
    "# The flaky list (SPEC §7): cases that flip between identical baseline runs.\n"
    "# Listed cases still run and are shown, but are left out of b and c until repaired.\n"
    "# Edit with `flipgate flaky add|remove` so that every change keeps its history.\n"
)


# --------------------------------------------------------------------------- flips across runs


@dataclass(frozen=True)
class FlipRecord:
    """A case's collapsed verdict in each of several identical runs, in run order."""

    case: str
    safety: bool
    verdicts: tuple[tuple[str, bool | None], ...]  # (run_id, passed); None: missing in that run

    @property
    def graded(self) -> tuple[tuple[str, bool], ...]:
        return tuple((run, passed) for run, passed in self.verdicts if passed is not None)

    @property
    def flipped_between(self) -> tuple[tuple[str, str], ...]:
        """(run, next run) pairs whose verdicts differ, skipping runs where the case is missing."""
        graded = self.graded
        return tuple((a, b) for (a, pa), (b, pb) in pairwise(graded) if pa != pb)

    @property
    def flips(self) -> int:
        return len(self.flipped_between)

    def evidence(self) -> str:
        """`flipped in 2 of 3 identical baseline runs: run-a pass, run-b fail, run-c pass`."""
        shown = ", ".join(
            f"{run} {'missing' if passed is None else 'pass' if passed else 'fail'}"
            for run, passed in self.verdicts
        )
        return f"flipped in {self.flips} of {len(self.graded)} identical baseline runs: {shown}"


def _ordered(runs: Sequence[Run]) -> list[Run]:
    """Oldest first when every run says when it was made; otherwise the order given."""
    if all(run.created is not None for run in runs):
        return sorted(runs, key=lambda run: run.created or datetime.min)
    return list(runs)


def identical_runs(runs: Sequence[Run], *, at_least: int) -> list[Run]:
    """The runs in order, refused unless they measured the same system (same key)."""
    if len(runs) < at_least:
        where = runs[0].path if runs else Path(".")
        raise InputError(
            where, f"need at least {at_least} runs of the same baseline, got {len(runs)}"
        )
    seen: dict[str, Path] = {}
    for run in runs:
        if run.run_id in seen:
            raise InputError(
                run.path, f"run {run.run_id!r} is given twice (also {seen[run.run_id]})"
            )
        seen[run.run_id] = run.path
    first = runs[0]
    for run in runs[1:]:
        differs = moved_components(first.key, run.key)
        if differs:
            moved = differs[0]
            raise InputError(
                run.path,
                f"not an identical baseline run: key {moved.name} is {moved.shown_after} in "
                f"{run.run_id} but {moved.shown_before} in {first.run_id}",
                field=f"key.{moved.name}",
            )
    return _ordered(runs)


def flip_records(runs: Sequence[Run], spec: GateSpec) -> list[FlipRecord]:
    """Every case of any of `runs` with its collapsed verdict per run, sorted by case."""
    verdicts: dict[str, dict[str, bool | None]] = {}
    safety: dict[str, bool] = {}
    for run in runs:
        for case, is_safety, passed in collapsed_verdicts(run, spec).iter_rows():
            verdicts.setdefault(case, {})[run.run_id] = passed
            safety[case] = safety.get(case, False) or bool(is_safety)
    return [
        FlipRecord(
            case,
            safety[case],
            tuple((run.run_id, verdicts[case].get(run.run_id)) for run in runs),
        )
        for case in sorted(verdicts)
    ]


def suite_cases(runs: Sequence[Run]) -> set[str]:
    return {case for run in runs for case in run.reps["case"].unique().to_list()}


def safety_cases(runs: Sequence[Run]) -> set[str]:
    return {
        case
        for run in runs
        for case in run.reps.filter(pl.col("safety"))["case"].unique().to_list()
    }


# --------------------------------------------------------------------------- propose


@dataclass(frozen=True)
class ProposedEntry:
    case: str
    owner: str | None
    evidence: str
    record: FlipRecord


@dataclass(frozen=True)
class Proposal:
    runs: tuple[str, ...]
    key: dict[str, str]
    suite_cases: int
    cap: int
    listed: int
    entries: tuple[ProposedEntry, ...]  # most flips first
    safety_findings: tuple[FlipRecord, ...]  # safety cases that flipped: findings, never listed
    already_listed: tuple[FlipRecord, ...]  # listed cases that flipped again
    flaky_digest: str

    @property
    def slots_left(self) -> int:
        return max(self.cap - self.listed, 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": list(self.runs),
            "key": self.key,
            "suite_cases": self.suite_cases,
            "cap": self.cap,
            "listed": self.listed,
            "slots_left": self.slots_left,
            "flaky_digest": self.flaky_digest,
            "proposals": [
                {
                    "case": e.case,
                    "owner": e.owner,
                    "flips": e.record.flips,
                    "flipped_between": [list(pair) for pair in e.record.flipped_between],
                    "evidence": e.evidence,
                    "fits": i < self.slots_left,
                }
                for i, e in enumerate(self.entries)
            ],
            "safety_findings": [_record_json(r) for r in self.safety_findings],
            "already_listed": [_record_json(r) for r in self.already_listed],
        }


def _record_json(record: FlipRecord) -> dict[str, Any]:
    return {
        "case": record.case,
        "flips": record.flips,
        "flipped_between": [list(pair) for pair in record.flipped_between],
        "evidence": record.evidence(),
    }


def propose(runs: list[Run], spec: GateSpec, flaky: FlakyList, owner: str | None) -> Proposal:
    """Entries for the cases that flipped between identical runs of one baseline."""
    ordered = identical_runs(runs, at_least=2)
    flipped = [r for r in flip_records(ordered, spec) if r.flips]
    listed = flaky.cases
    new = sorted(
        (r for r in flipped if not r.safety and r.case not in listed),
        key=lambda r: (-r.flips, r.case),
    )
    cases = len(suite_cases(ordered))
    return Proposal(
        runs=tuple(run.run_id for run in ordered),
        key=dict(ordered[0].key),
        suite_cases=cases,
        cap=spec.flaky_cap(cases),
        listed=len(flaky.entries),
        entries=tuple(ProposedEntry(r.case, owner, r.evidence(), r) for r in new),
        safety_findings=tuple(r for r in flipped if r.safety),
        already_listed=tuple(r for r in flipped if r.case in listed and not r.safety),
        flaky_digest=flaky.digest,
    )


# --------------------------------------------------------------------------- check


@dataclass(frozen=True)
class EntryReview:
    entry: FlakyEntry
    age_days: int
    gone: bool  # the case is in none of the runs
    safety: bool  # a safety case: it must not be listed at all
    ready: bool  # quiet in the last N identical runs: ready to release
    record: FlipRecord | None
    flipped_in_run: bool = False  # flipped between the baseline and the candidate being judged

    @property
    def flags(self) -> tuple[str, ...]:
        named = (
            ("gone", self.gone),
            ("safety case", self.safety),
            ("ready to release", self.ready),
            ("flipped in this run", self.flipped_in_run),
        )
        return tuple(name for name, on in named if on)


@dataclass(frozen=True)
class CheckReport:
    entries: tuple[EntryReview, ...]
    runs: tuple[str, ...]
    window: int
    suite_cases: int
    cap: int
    flaky_digest: str

    @property
    def over_cap(self) -> bool:
        return len(self.entries) > self.cap

    @property
    def slots_left(self) -> int:
        return max(self.cap - len(self.entries), 0)

    @property
    def problems(self) -> tuple[str, ...]:
        """What makes the list dishonest; `ready to release` is advice, not a problem."""
        found = [f"{r.entry.case}: gone from the suite" for r in self.entries if r.gone]
        found += [f"{r.entry.case}: a safety case is listed" for r in self.entries if r.safety]
        if self.over_cap:
            found.append(f"{len(self.entries)} entries, above the cap of {self.cap}")
        return tuple(found)

    def to_json(self) -> dict[str, Any]:
        return {
            "runs": list(self.runs),
            "window": self.window,
            "suite_cases": self.suite_cases,
            "cap": self.cap,
            "listed": len(self.entries),
            "slots_left": self.slots_left,
            "flaky_digest": self.flaky_digest,
            "problems": list(self.problems),
            "entries": [
                {
                    "case": r.entry.case,
                    "owner": r.entry.owner,
                    "added": r.entry.added.isoformat(),
                    "age_days": r.age_days,
                    "flags": list(r.flags),
                    "flips": r.record.flips if r.record else None,
                    "evidence": r.record.evidence() if r.record else None,
                }
                for r in self.entries
            ],
        }


def review(
    flaky: FlakyList,
    runs: Sequence[Run],
    spec: GateSpec,
    *,
    today: date,
    window: int = READY_WINDOW,
    suite: Sequence[Run] = (),
    flipped_in_run: frozenset[str] = frozenset(),
) -> CheckReport:
    """Flag each entry against identical baseline `runs` (plus `suite`: other runs of the suite)."""
    ordered = identical_runs(runs, at_least=1)
    records = {r.case: r for r in flip_records(ordered, spec)}
    everything = [*ordered, *suite]
    known, safety = suite_cases(everything), safety_cases(everything)
    recent = {run.run_id for run in ordered[-window:]} if len(ordered) >= window else set()

    def ready(record: FlipRecord | None) -> bool:
        if record is None or not recent:
            return False
        last = [passed for run, passed in record.verdicts if run in recent]
        return None not in last and len(set(last)) == 1

    reviews = tuple(
        EntryReview(
            entry=e,
            age_days=(today - e.added).days,
            gone=e.case not in known,
            safety=e.case in safety,
            ready=ready(records.get(e.case)),
            record=records.get(e.case),
            flipped_in_run=e.case in flipped_in_run,
        )
        for e in flaky.entries
    )
    return CheckReport(
        entries=reviews,
        runs=tuple(run.run_id for run in ordered),
        window=window,
        suite_cases=len(known),
        cap=spec.flaky_cap(len(known)),
        flaky_digest=flaky.digest,
    )


def flipped_in_run(
    baseline: Run, candidate: Run, spec: GateSpec, flaky: FlakyList
) -> frozenset[str]:
    """Listed cases that flipped between the two arms being judged (the gate's `flaky_flipped`)."""
    return frozenset(compare(baseline, candidate, spec, flaky).result.flaky_flipped)


def check(
    flaky_path: Path,
    runs: Sequence[Run],
    spec: GateSpec,
    *,
    today: date,
    window: int = READY_WINDOW,
    judged: tuple[Run, Run] | None = None,
) -> CheckReport:
    """`review` of the list stored at `flaky_path`; `judged`: the (baseline, candidate) at hand."""
    flaky = _read(flaky_path).flaky
    flipped = flipped_in_run(*judged, spec, flaky) if judged else frozenset()
    return review(
        flaky,
        runs,
        spec,
        today=today,
        window=window,
        suite=judged or (),
        flipped_in_run=flipped,
    )


# --------------------------------------------------------------------------- the file


@dataclass(frozen=True)
class _Stored:
    """The list as parsed (validated) and as raw data and text, for edits that keep everything."""

    path: Path
    before: bytes
    flaky: FlakyList
    data: dict[str, Any]


@dataclass(frozen=True)
class Edit:
    """What an edit wrote: the new text, and the list's digest before and after."""

    path: Path
    text: str
    before_digest: str
    flaky_digest: str
    message: str
    comments_kept: bool  # False when the file had to be rewritten whole (comments dropped)


def load_list(path: Path | None) -> FlakyList:
    """`load_flaky`, where a missing file is the empty list: curation may start one."""
    if path is None or not path.exists():
        return FlakyList(source=path)
    return load_flaky(path)


def _read(path: Path) -> _Stored:
    if not path.exists():
        return _Stored(path, b"", FlakyList(source=path), {"entries": []})
    flaky = load_list(path)
    data, lines = load_yaml(path)
    data = data if data is not None else {}
    data.setdefault("entries", [])
    if data["entries"] is None:
        data["entries"] = []
    _check_curation_fields(path, data, lines)
    return _Stored(path, path.read_bytes(), flaky, data)


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


class _Dumper(yaml.SafeDumper):
    """Plain YAML a person edits: no `&id001` anchors when two fields share one date object."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # `history:` items indented like `entries:` items


def _dump(data: Any) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1 << 20,
    )


def _dump_items(items: list[dict[str, Any]], indent: int) -> str:
    text = _dump(items)
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def _root(text: str) -> yaml.MappingNode | None:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    return node if isinstance(node, yaml.MappingNode) and not node.flow_style else None


def _value_node(root: yaml.MappingNode, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    return next(((k, v) for k, v in root.value if k.value == key), None)


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _end_of(text: str, node: yaml.Node) -> int:
    """Where the text of `node` ends: after the line of its last scalar, or its closing bracket."""
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style:
        if not node.value:
            break
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    mark = node.end_mark
    return mark.index if mark.column == 0 else _after_line(text, mark.index)


def _append_items(text: str, key: str, items: list[dict[str, Any]]) -> str | None:
    """`text` with `items` added to the block list under top-level `key`; None: not that shape."""
    root = _root(text) if text.strip() else None
    if root is None:
        return None
    found = _value_node(root, key)
    if found is None:
        body = text if text.endswith("\n") or not text else text + "\n"
        return body + f"{key}:\n" + _dump_items(items, 2)
    key_node, value = found
    if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
        first = value.value[0].start_mark
        line = text[_line_start(text, first.index) : first.index]
        dash = line.find("-")
        if dash < 0:
            return None
        at = _end_of(text, value)
        return text[:at] + _dump_items(items, dash) + text[at:]
    empty = (isinstance(value, yaml.SequenceNode) and not value.value) or (
        isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")
    )
    if not empty:
        return None
    end = value.end_mark.index
    if isinstance(value, yaml.ScalarNode):
        end = _after_line(text, key_node.end_mark.index) - 1
    block = _dump_items(items, key_node.start_mark.column + 2).rstrip("\n")
    return text[: key_node.end_mark.index] + ":\n" + block + text[end:]


def _drop_item(text: str, key: str, index: int) -> str | None:
    """`text` without item `index` of the block list under top-level `key`."""
    root = _root(text)
    found = _value_node(root, key) if root is not None else None
    if found is None:
        return None
    key_node, value = found
    if not isinstance(value, yaml.SequenceNode) or value.flow_style:
        return None
    items = value.value
    start = _line_start(text, items[index].start_mark.index)
    if len(items) == 1:
        return text[: key_node.end_mark.index] + ": []\n" + text[_end_of(text, value) :]
    # Up to the end of the item's own text: a comment above the next item stays with that item.
    return text[:start] + text[_end_of(text, items[index]) :]


def _render(stored: _Stored, data: dict[str, Any], splice: str | None) -> tuple[str, bool]:
    """The new text: the spliced one when it parses back to `data`, else `data` dumped whole."""
    if splice is not None and yaml.safe_load(splice) == data:
        return splice, True
    whole = _dump(data)
    if not stored.before:
        whole = NEW_FILE_HEADER + whole
    if yaml.safe_load(whole) != data:  # a value YAML cannot hold: refuse rather than lose it
        raise InputError(
            stored.path, "the edited list would not read back the same; nothing written"
        )
    return whole, False


def _write(stored: _Stored, data: dict[str, Any], splice: str | None, message: str) -> Edit:
    """Write atomically; the new text must load as a valid list, and the old file be unchanged."""
    text, kept = _render(stored, data, splice)
    path = stored.path

    def still_valid_and_unchanged(written: Path) -> None:
        load_flaky(written)  # the list the gate will read must still be a valid list
        now = path.read_bytes() if path.exists() else b""
        if now != stored.before:
            raise InputError(path, "changed on disk while being edited; nothing written")

    write_atomic(path, text, overwrite=True, check=still_valid_and_unchanged)
    return Edit(
        path=path,
        text=text,
        before_digest=bytes_digest(stored.before),
        flaky_digest=bytes_digest(text.encode("utf-8")),
        message=message,
        comments_kept=kept,
    )


# --------------------------------------------------------------------------- add, remove


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
    stored = _read(path)
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
        raise InputError(path, f"unknown case {case!r}: not in the suite ({runs})", field="case")
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
    splice = _append_items(stored.before.decode("utf-8"), "entries", [item])
    left = cap - listed - 1
    return _write(
        stored, data, splice, f"listed {case} (owner {owner}); {left} of {cap} slots left"
    )


def remove(flaky_path: Path, case: str, note: str, today: date, *, by: str | None = None) -> Edit:
    """Retire a repaired entry: it moves to `retired:` with its history and a `retired` event."""
    path = Path(flaky_path)
    note = _required(path, "note", note)
    stored = _read(path)
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
    dropped = _drop_item(text, "entries", index)
    splice = _append_items(dropped, "retired", [retired_item]) if dropped is not None else None
    return _write(stored, data, splice, f"retired {case}: {note}")


__all__ = [
    "READY_WINDOW",
    "CheckReport",
    "Edit",
    "EntryReview",
    "FlipRecord",
    "Proposal",
    "ProposedEntry",
    "add",
    "check",
    "flip_records",
    "flipped_in_run",
    "load_list",
    "propose",
    "remove",
    "review",
    "safety_cases",
    "suite_cases",
]
