"""Read the logs of the eval tools people already use, as runs in our format (SPEC §2, §8).

An importer turns one log into an `ImportedRun`: the `run.yaml` mapping and the
`results.jsonl` records it would have written. `flipgate.core.runs.reading` validates and loads those
exactly as it loads our own files, so every check of SPEC §2 applies to imported logs too.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import dump_yaml

DEFAULT_LABELS = {"negative": "approve", "positive": "reject", "abstain": "escalate"}


@dataclass(frozen=True)
class ImportOptions:
    """How to read scores that are not plain pass/fail, and which column of a file to take."""

    partial_passes: bool = False  # Inspect `P` counts as a pass
    pass_threshold: float = 1.0  # numeric Inspect scores pass at or above this
    select: dict[str, str] = field(default_factory=dict)  # promptfoo: {"provider": LABEL} ...
    labels: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_LABELS))


@dataclass(frozen=True)
class ImportedRun:
    source: Path
    tool: str  # "inspect" | "promptfoo"
    manifest: dict[str, Any]  # what run.yaml would hold
    records: list[dict[str, Any]]  # what results.jsonl would hold, one per (case, rep)
    notes: list[str] = field(default_factory=list)  # warnings a user must see (cached repeats...)


def short_digest(text: str) -> str:
    """Eight hex digits of SHA-256: enough to tell two revisions of a key component apart."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]


# The importer modules import the types above from this package, so they are imported late.


def detect_format(path: Path) -> str | None:
    """The log format of `path`: "inspect", "promptfoo", or None for ours or unknown.

    Told by content, not by extension; a run directory (or its run.yaml) is ours.
    """
    from flipgate.core.importers import inspect_log, promptfoo

    if not path.is_file() or path.name == "run.yaml":
        return None
    if inspect_log.starts_like_zip(path):
        return "inspect" if inspect_log.is_inspect_zip(path) else None
    # An Inspect JSON log holds `version` and `eval` before its (large) samples: read only those.
    try:
        doc, _ = inspect_log.leading_fields(path.read_text("utf-8"), frozenset({"version", "eval"}))
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        return None
    if inspect_log.is_inspect_json(doc):
        return "inspect"
    if promptfoo.is_promptfoo_json(doc):
        return "promptfoo"
    return None


def read_external(path: Path, options: ImportOptions | None = None) -> ImportedRun:
    """Import an Inspect AI log or a promptfoo results.json; anything else is an InputError."""
    from flipgate.core.importers import inspect_log, promptfoo

    options = options or ImportOptions()
    if not path.is_file():
        raise InputError(
            path, "not a log file (an Inspect .eval/.json or a promptfoo results.json)"
        )
    if inspect_log.starts_like_zip(path):  # even a truncated one: the reader says what is wrong
        return inspect_log.read_eval_archive(path, options)
    doc = _load_json(path)
    if inspect_log.is_inspect_json(doc):
        header, samples = inspect_log.log_from_json(doc, path)
        return inspect_log.imported_run(path, header, samples, options)
    if promptfoo.is_promptfoo_json(doc):
        return promptfoo.imported_run(path, doc, options)
    raise InputError(path, "neither an Inspect AI log nor a promptfoo results.json")


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None  # not JSON: not a format we import


def write_run(imported: ImportedRun, out_dir: Path) -> None:
    """Write run.yaml + results.jsonl into `out_dir`, all or nothing.

    The run is built in a temporary directory beside `out_dir` and renamed into place, so a
    failure (or a crash) leaves no half-written run behind. An existing non-empty `out_dir` is
    refused: an import never overwrites a run.
    """
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise InputError(out_dir, "already exists and is not an empty directory; choose a new one")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", dir=out_dir.parent))
    try:
        try:
            lines = [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in imported.records]
            manifest = dump_yaml(imported.manifest)
        except (TypeError, ValueError, yaml.YAMLError) as exc:
            raise InputError(imported.source, f"cannot write the imported run: {exc}") from None
        _write_synced(staging / "run.yaml", manifest)
        _write_synced(staging / "results.jsonl", "".join(line + "\n" for line in lines))
        try:
            os.replace(staging, out_dir)  # an empty out_dir is replaced atomically too
        except OSError as exc:  # filled or created by someone else meanwhile
            raise InputError(out_dir, f"cannot move the run into place: {exc}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _write_synced(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


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
