"""The suite's own record, `suite.yaml`: every case's intent, the date it was added and the flags
and endpoints it references; the archive of retired cases with their date and reason; the intake
quotas. Retiring a case moves it to the archive: nothing is ever deleted.

    suite: support-assistant
    version: suite@v14
    anchor: open-7b@frozen      # a frozen system re-run on every suite version (seed 002)
    coverage: {min_cases: 3}
    intake: {sampled_per_month: 8, escalations_per_month: 6, retirements_per_month: 2}
    cases:
      - {case: sa-001, intent: billing_question, added: 2025-05-12, endpoints: [POST /v2/refunds]}
      - {case: sa-002, intent: refund, added: 2025-05-12, weight: 2}   # counts twice in a weighted rate
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
from flipgate.core.io.digest import bytes_digest
from flipgate.core.io.edit import edit
from flipgate.core.io.gitref import read_at_ref
from flipgate.core.io.yamledit import append_items, apply, drop_item
from flipgate.core.io.yamlio import LineIndex, SafeDumper, dump_yaml
from flipgate.core.runs.workspace import SUITE_MANIFEST
from flipgate.core.suite.fields import FieldChecker, load_mapping
from flipgate.core.vocab import BaseFile

MANIFEST = SUITE_MANIFEST
TOP_FIELDS = ("suite", "version", "started", "anchor", "coverage", "intake", "cases", "archive")
CASE_FIELDS = ("case", "intent", "added", "flags", "endpoints", "weight")
ARCHIVE_FIELDS = (*CASE_FIELDS, "retired", "reason")
REFERENCES = ("flags", "endpoints")  # what a case may point at in the registry
MONTH = 365.25 / 12  # days: ages are told in months
MIN_CASES = 3  # an intent with fewer live cases than this is a gap (seed 002)
QUOTAS = ("sampled_per_month", "escalations_per_month", "retirements_per_month")
# Past any suite's intake; the quotas are counted in 64-bit columns (a year of 10^26 a month was
# a traceback in the intake's table, issue 28 item 14)
MAX_PER_MONTH = 10**9
ARROW_SCHEMA = pa.schema(
    [
        ("case", pa.string()),
        ("intent", pa.string()),
        ("added", pa.date32()),
        ("flags", pa.list_(pa.string())),
        ("endpoints", pa.list_(pa.string())),
        ("weight", pa.float64()),  # in a weighted pass rate (default 1)
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
    anchor: str | None = None  # the frozen system (a runs' `key.model`) re-run on every version
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
    def weighted(self) -> bool:
        """Whether any case weighs other than 1: pass rates are then given weighted too."""
        return bool((self.cases["weight"] != 1).any())

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
    return _parse(path, content)[0]


def _parse(
    path: Path, content: bytes | None, *, outline: bool = False
) -> tuple[SuiteManifest, dict[str, Any]]:
    """The manifest, and the data it was read from (with `outline`, where its parts lie in the
    text: `manifest.lines.outline`)."""
    data, check = load_mapping(
        path, TOP_FIELDS, "a suite manifest has `suite` and `cases`", content, outline=outline
    )
    lines = check.lines
    suite = check.text(data.get("suite"), "suite")
    version = check.text(data["version"], "version") if data.get("version") is not None else None
    anchor = check.text(data["anchor"], "anchor") if data.get("anchor") is not None else None
    started = check.day(data["started"], "started") if "started" in data else None
    coverage = check.mapping(data.get("coverage"), "coverage", ("min_cases",))
    min_cases = check.count(coverage.get("min_cases", MIN_CASES), "coverage.min_cases", least=1)
    intake = check.mapping(data.get("intake"), "intake", QUOTAS)
    quotas = Quotas(
        *(check.count(intake.get(q, 0), f"intake.{q}", most=MAX_PER_MONTH) for q in QUOTAS)
    )
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
    manifest = SuiteManifest(
        path, suite, version, started, min_cases, quotas, cases, anchor=anchor, lines=lines
    )
    return manifest, data


def _entries(
    check: FieldChecker, value: Any, where: str, fields: tuple[str, ...], *, archived: bool
) -> list[tuple[Any, ...]]:
    """One row per case: (case, intent, added, flags, endpoints, weight, retired, reason, where)."""
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
                check.weight(raw.get("weight", 1), f"{at}.weight"),
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
    digest = bytes_digest(path.read_bytes())  # what a pre-registration fixes
    if base is not None:
        return Retirements(cases, load_manifest(base).retired_names, digest)
    if base_ref is None:
        return Retirements(cases, digest=digest)
    at = read_at_ref(path, base_ref)
    if at.content is None:  # the change adds (or moves) the manifest: every retirement is its own
        not_found: tuple[tuple[BaseFile, str], ...] = (("suite_manifest", str(at.name)),)
        return Retirements(cases, frozenset(), digest, base_not_found=not_found)
    return Retirements(cases, load_manifest(at.name, at.content).retired_names, digest)


@dataclass(frozen=True)
class Retirement:
    """What a retirement wrote (facts; words: `present/curation.py`)."""

    manifest: SuiteManifest  # as it reads now
    case: str
    day: date
    reason: str
    layout_kept: bool  # False when the file had to be written out whole (comments dropped)


def retire(path: Path, case: str, reason: str, today: date) -> Retirement:
    """Move `case` to the archive with `today` and `reason`, rewriting `suite.yaml` under its lock.

    The file is read and parsed once. It is edited, not re-emitted, so that comments and layout
    stay as the team wrote them: the case's lines leave `cases` and an archive entry is appended
    (`core.io.yamledit`, which checks each piece it cuts and adds). A layout that edit cannot
    keep is written out whole, and that text is read back as a manifest before it is written.
    """
    if not reason.strip():
        raise InputError(Path("--reason"), "a retirement needs a reason; it is empty")
    with edit(path) as file:
        if file.before is None:
            raise InputError(path, "no such file")
        manifest, data = _parse(path, file.before, outline=True)
        known = manifest.cases.filter(pl.col("case") == case)
        if known.height == 0:
            raise InputError(path, f"no case {case!r} in the suite", field="case")
        where = str(known["where"][0])
        if known["retired"][0] is not None:
            raise InputError(
                path,
                f"{case} is already retired ({known['retired'][0]}: {known['reason'][0]})",
                line=manifest.lines.line(f"{where}.case") if manifest.lines else None,
                field=f"{where}.case",
            )
        index = int(where.rpartition(".")[2])
        raw = data["cases"][index]
        entry = {k: raw[k] for k in CASE_FIELDS if k in raw}
        entry |= {"retired": today, "reason": reason}
        text = file.before.decode("utf-8")
        outline = manifest.lines.outline if manifest.lines else None
        new_text = apply(
            text,
            [
                drop_item(text, outline, data, "cases", index),
                append_items(text, outline, data, "archive", [entry], _flow_item(entry)),
            ],
        )
        layout_kept = new_text is not None
        if new_text is None:  # a layout we cannot edit in place: the data written out whole
            whole = dict(data)
            whole["cases"] = [c for i, c in enumerate(data["cases"]) if i != index]
            whole["archive"] = [*(data.get("archive") or []), entry]
            new_text = dump_yaml(whole, width=100)
            load_manifest(path, new_text.encode("utf-8"))
        file.replace(new_text)
    updated = _retired(manifest, case, today, reason)
    return Retirement(updated, case, today, reason, layout_kept)


def _flow_item(entry: dict[str, Any]) -> str:
    """`entry` as a list item on one line, as the archive's entries are written."""
    flow = yaml.dump(
        entry,
        Dumper=SafeDumper,
        default_flow_style=True,
        sort_keys=False,
        allow_unicode=True,
        width=10**9,
    )
    return f"- {flow.strip()}\n"


def _retired(manifest: SuiteManifest, case: str, today: date, reason: str) -> SuiteManifest:
    """The manifest as the retirement left it, without reading the file again: the case moved to
    the end of the archive, every entry's place in the file (`where`) counted anew."""
    moved = manifest.cases.filter(pl.col("case") == case).with_columns(
        retired=pl.lit(today, pl.Date), reason=pl.lit(reason, pl.String)
    )
    live = manifest.live.filter(pl.col("case") != case)
    archive = pl.concat([manifest.archive, moved])
    places = [f"cases.{i}" for i in range(live.height)]
    places += [f"archive.{i}" for i in range(archive.height)]
    cases = pl.concat([live, archive]).with_columns(where=pl.Series(places, dtype=pl.String))
    return dataclasses.replace(manifest, cases=cases, lines=None)
