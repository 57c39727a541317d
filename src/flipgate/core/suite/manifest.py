"""The suite's own record, `suite.yaml`: every case's intent, the date it was added and the flags
and endpoints it references; the archive of retired cases with their date and reason; the intake
quotas. Retiring a case moves it to the archive: nothing is ever deleted.

    suite: support-assistant
    version: suite@v14
    coverage: {min_cases: 3}
    intake: {sampled_per_month: 8, escalations_per_month: 6, retirements_per_month: 2}
    cases:
      - {case: sa-001, intent: billing_question, added: 2025-05-12, endpoints: [POST /v2/refunds]}
    archive:
      - {case: sa-090, intent: billing_question, added: 2025-05-20, retired: 2025-10-02,
         reason: duplicate of sa-014}
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import yaml

from flipgate.core.errors import InputError
from flipgate.core.gate.retired import RetiredCase, Retirements
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.gitref import read_at_ref
from flipgate.core.io.yamlio import LineIndex, SafeDumper, dump_yaml
from flipgate.core.runs.workspace import SUITE_MANIFEST
from flipgate.core.suite.fields import FieldChecker, load_mapping

MANIFEST = SUITE_MANIFEST
TOP_FIELDS = ("suite", "version", "started", "coverage", "intake", "cases", "archive")
CASE_FIELDS = ("case", "intent", "added", "flags", "endpoints")
ARCHIVE_FIELDS = (*CASE_FIELDS, "retired", "reason")
REFERENCES = ("flags", "endpoints")  # what a case may point at in the registry
MIN_CASES = 3  # an intent with fewer live cases than this is a gap (seed 002)
QUOTAS = ("sampled_per_month", "escalations_per_month", "retirements_per_month")
ARROW_SCHEMA = pa.schema(
    [
        ("case", pa.string()),
        ("intent", pa.string()),
        ("added", pa.date32()),
        ("flags", pa.list_(pa.string())),
        ("endpoints", pa.list_(pa.string())),
        ("retired", pa.date32()),
        ("reason", pa.string()),
        ("where", pa.string()),  # its place in the file (`cases.12`), for an error's line
    ]
)


@dataclass(frozen=True)
class Quotas:
    """The standing intake, per month: cases sampled from traffic, from escalations, retired."""

    sampled_per_month: int = 0
    escalations_per_month: int = 0
    retirements_per_month: int = 0

    @property
    def additions_per_month(self) -> int:
        return self.sampled_per_month + self.escalations_per_month


@dataclass(frozen=True)
class SuiteManifest:
    path: Path
    suite: str
    version: str | None
    started: date | None  # the suite's first day; the first case's date when not given
    min_cases: int
    quotas: Quotas
    cases: pl.DataFrame  # ARROW_SCHEMA: live cases (retired null) and the archive
    lines: LineIndex | None = None  # where each field is, for an error about one

    @property
    def live(self) -> pl.DataFrame:
        return self.cases.filter(pl.col("retired").is_null())

    @property
    def archive(self) -> pl.DataFrame:
        return self.cases.filter(pl.col("retired").is_not_null())

    @property
    def retirements(self) -> tuple[RetiredCase, ...]:
        rows = self.archive.select("case", "retired", "reason").iter_rows()
        return tuple(RetiredCase(case, retired, reason) for case, retired, reason in rows)

    def on(self, day: date) -> SuiteManifest:
        """The suite as it stood on `day`: the cases added by then, the retirements made by then."""
        retired = pl.col("retired") <= day
        cases = self.cases.filter(pl.col("added") <= day).with_columns(
            retired=pl.when(retired).then(pl.col("retired")),
            reason=pl.when(retired).then(pl.col("reason")),
        )
        return dataclasses.replace(self, cases=cases)

    @property
    def last_change(self) -> date | None:
        """The day of the newest addition or retirement."""
        last = self.cases.select(pl.max_horizontal(pl.col("added").max(), pl.col("retired").max()))
        day = last.item()
        return day if isinstance(day, date) else None

    @property
    def retired_names(self) -> frozenset[str]:
        return frozenset(self.archive["case"].to_list())

    @property
    def first_day(self) -> date | None:
        first = self.cases["added"].min()
        return self.started or (first if isinstance(first, date) else None)


def load_manifest(path: Path, content: bytes | None = None) -> SuiteManifest:
    """Read and check `suite.yaml` (or `content`, as it stood at a git revision, `path` naming
    it): every problem names the file, the line and the field."""
    data, check = load_mapping(
        path, TOP_FIELDS, "a suite manifest has `suite` and `cases`", content
    )
    lines = check.lines
    suite = check.text(data.get("suite"), "suite")
    version = check.text(data["version"], "version") if data.get("version") is not None else None
    started = check.day(data["started"], "started") if "started" in data else None
    coverage = check.mapping(data.get("coverage"), "coverage", ("min_cases",))
    min_cases = check.count(coverage.get("min_cases", MIN_CASES), "coverage.min_cases", least=1)
    intake = check.mapping(data.get("intake"), "intake", QUOTAS)
    quotas = Quotas(*(check.count(intake.get(q, 0), f"intake.{q}") for q in QUOTAS))
    rows = [
        *_entries(check, data.get("cases"), "cases", CASE_FIELDS, archived=False),
        *_entries(check, data.get("archive"), "archive", ARCHIVE_FIELDS, archived=True),
    ]
    # Column by column, through Arrow: polars builds a list column from Python lists one Series
    # per case (2 s at 10,000 cases); Arrow builds every column in one call each.
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(ARROW_SCHEMA)
    table = pa.table(
        [
            pa.array(values, type=field.type)
            for field, values in zip(ARROW_SCHEMA, columns, strict=True)
        ],
        schema=ARROW_SCHEMA,
    )
    cases = pl.DataFrame(pl.from_arrow(table))
    again = cases.filter(~pl.col("case").is_first_distinct())
    if again.height:
        case, where = again["case"][0], again["where"][0]
        raise check.bad(f"{where}.case", f"case {case!r} is listed twice")
    return SuiteManifest(path, suite, version, started, min_cases, quotas, cases, lines)


def _entries(
    check: FieldChecker, value: Any, where: str, fields: tuple[str, ...], *, archived: bool
) -> list[tuple[Any, ...]]:
    """One row per case: (case, intent, added, flags, endpoints, retired, reason, where)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise check.bad(where, "a list of cases")
    rows = []
    for i, raw in enumerate(value):
        at = f"{where}.{i}"
        if not isinstance(raw, dict):
            raise check.bad(at, "a case is a mapping (case, intent, added, ...)")
        for key in raw:
            if key not in fields:
                hint = " (only archived cases have it)" if key in ARCHIVE_FIELDS else ""
                raise check.bad(f"{at}.{key}", f"unknown field{hint}")
        rows.append(
            (
                check.text(raw.get("case"), f"{at}.case"),
                check.text(raw.get("intent"), f"{at}.intent"),
                check.day(raw.get("added"), f"{at}.added"),
                *(check.names(raw.get(ref), f"{at}.{ref}") for ref in REFERENCES),
                check.day(raw.get("retired"), f"{at}.retired") if archived else None,
                check.text(raw.get("reason"), f"{at}.reason") if archived else None,
                at,
            )
        )
    return rows


# --------------------------------------------------------------------------- retirement


def load_retirements(
    path: Path | None, base: Path | None = None, *, base_ref: str | None = None
) -> Retirements:
    """The manifest's retired cases for the gate, and those retired where the change is going:
    in the manifest `base`, or in `path` as it is at the git revision `base_ref`. Neither given:
    retirements added in the change under test cannot be told."""
    if path is None:
        if base is not None:
            raise InputError(base, "a base suite manifest needs --suite (or a workspace's)")
        return Retirements()
    cases = load_manifest(path).retirements
    if base is not None:
        return Retirements(cases, load_manifest(base).retired_names)
    if base_ref is None:
        return Retirements(cases)
    at = read_at_ref(path, base_ref)
    if at.content is None:  # the change adds the manifest: every retirement in it is its own
        return Retirements(cases, frozenset())
    return Retirements(cases, load_manifest(at.name, at.content).retired_names)


@dataclass(frozen=True)
class Retirement:
    """What a retirement wrote."""

    manifest: SuiteManifest  # as it reads now
    message: str  # what was done, in words
    layout_kept: bool  # False when the file had to be written out whole (comments dropped)


def retire(path: Path, case: str, reason: str, today: date) -> Retirement:
    """Move `case` to the archive with `today` and `reason`, rewriting `suite.yaml` atomically.

    The file is edited, not re-emitted, so that comments and layout stay as the team wrote them:
    the case's lines leave `cases` and an archive entry is appended. The edited text is checked as
    a manifest before it takes the old file's place.
    """
    manifest = load_manifest(path)
    if not reason.strip():
        raise InputError(Path("--reason"), "a retirement needs a reason; it is empty")
    known = manifest.cases.filter(pl.col("case") == case)
    if known.height == 0:
        raise InputError(path, f"no case {case!r} in the suite", field="case")
    if known["retired"][0] is not None:
        raise InputError(
            path,
            f"{case} is already retired ({known['retired'][0]}: {known['reason'][0]})",
            line=manifest.lines.line(f"{known['where'][0]}.case") if manifest.lines else None,
            field=f"{known['where'][0]}.case",
        )
    text = path.read_text(encoding="utf-8")
    entry = {k: v for k, v in _raw_entry(text, case).items() if k in CASE_FIELDS}
    entry |= {"retired": today, "reason": reason}
    new_text = _moved_to_archive(text, case, entry)
    layout_kept = new_text is not None
    if new_text is None:  # a layout we cannot edit in place: the data re-emitted as block YAML
        data = yaml.load(text, Loader=yaml.SafeLoader)
        data["cases"] = [c for c in data["cases"] if c.get("case") != case]
        data["archive"] = [*(data.get("archive") or []), entry]
        new_text = dump_yaml(data, width=100)

    def check(staged: Path) -> None:
        load_manifest(staged)

    write_atomic(path, new_text, overwrite=True, check=check)
    updated = load_manifest(path)
    message = (
        f"retired {case} on {today}: {reason} ({updated.live.height} live cases, "
        f"{updated.archive.height} archived)"
    )
    if not layout_kept:
        message += "; the file was written out whole, its comments dropped"
    return Retirement(updated, message, layout_kept)


def _raw_entry(text: str, case: str) -> dict[str, Any]:
    data = yaml.load(text, Loader=yaml.SafeLoader)
    return next(c for c in data["cases"] if c.get("case") == case)


def _last_line(node: yaml.Node) -> int:
    """The line a node's own text ends on (0-based): comments after it are not part of it."""
    if (
        isinstance(node, yaml.MappingNode | yaml.SequenceNode)
        and node.value
        and not node.flow_style
    ):
        last = node.value[-1]
        return _last_line(last[1] if isinstance(node, yaml.MappingNode) else last)
    end = node.end_mark
    return end.line if end.column > 0 or end.line == node.start_mark.line else end.line - 1


def _moved_to_archive(text: str, case: str, entry: dict[str, Any]) -> str | None:
    """`text` with the case's block-sequence item cut and appended to a block `archive`; None
    when the layout is one this edit cannot keep (flow-style lists, two cases on a line)."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    assert root is not None  # the text was just read as a manifest
    keys = {key.value: key for key, _ in root.value}
    sections = {key.value: value for key, value in root.value}
    cases = sections["cases"]
    if cases.flow_style:
        return None
    at = next(
        i
        for i, node in enumerate(cases.value)
        if any(k.value == "case" and v.value == case for k, v in node.value)
    )
    item = cases.value[at]
    first, last = item.start_mark.line, _last_line(item)
    neighbours = [cases.value[i] for i in (at - 1, at + 1) if 0 <= i < len(cases.value)]
    if any(_last_line(n) >= first and n.start_mark.line <= last for n in neighbours):
        return None  # another case shares its lines
    flow = yaml.dump(
        entry,
        Dumper=SafeDumper,
        default_flow_style=True,
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
    )
    new_item = f"{' ' * max(item.start_mark.column - 2, 0)}- {flow.strip()}\n"
    lines = text.splitlines(keepends=True)
    archive = sections.get("archive")
    if archive is None:
        del lines[first : last + 1]
        body = "".join(lines)
        return f"{body}{'' if body.endswith(chr(10)) else chr(10)}archive:\n{new_item}"
    if isinstance(archive, yaml.ScalarNode) and archive.value == "":  # `archive:` and nothing
        after = keys["archive"].start_mark.line
    elif isinstance(archive, yaml.SequenceNode) and archive.value and not archive.flow_style:
        after = _last_line(archive.value[-1])
    else:
        return None
    lines.insert(after + 1, new_item)  # the later edit first: the earlier lines stay in place
    if after < first:
        first, last = first + 1, last + 1
    del lines[first : last + 1]
    return "".join(lines)
