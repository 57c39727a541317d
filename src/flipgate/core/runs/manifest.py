"""`run.yaml` (SPEC §2): the run's id, suite, time, declared change, cache key and labels."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import load_yaml
from flipgate.core.runs.model import Labels
from flipgate.core.vocab import SUITES

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Completeness

# whether the run finished, and which repetitions it lacks (docs/importers.md): the field that
# `core.importers.completeness` reads and writes, checked here before its reader is imported
COMPLETENESS = "completeness"
MANIFEST_FIELDS = frozenset({"run_id", "suite", "created", "change", "key", "labels", COMPLETENESS})


def read_manifest(path: Path) -> tuple[dict[str, Any], Completeness | None]:
    """run.yaml's fields, checked, and the completeness it states (None: it states none)."""
    data, lines = load_yaml(path)
    if not isinstance(data, dict):
        raise InputError(path, "run.yaml must be a mapping", line=1)
    try:
        return check_manifest(data, path), stated_completeness(data, path)
    except InputError as exc:
        raise InputError(
            path, exc.message, line=lines.line(exc.field or ""), field=exc.field
        ) from None


def check_manifest(data: dict[str, Any], path: Path) -> dict[str, Any]:
    run_id = data.get("run_id")
    if not isinstance(run_id, str) or not run_id.strip():
        raise InputError(path, "required: a non-empty string naming the run", field="run_id")
    suite = data.get("suite", "full")
    if suite not in SUITES:
        raise InputError(path, f"must be 'smoke' or 'full', not {suite!r}", field="suite")
    created = data.get("created")
    if created is not None:
        try:
            parse_time(created)
        except ValueError:
            raise InputError(path, f"not an ISO 8601 time: {created!r}", field="created") from None
    change = data.get("change")
    if change is not None:
        if not isinstance(change, dict):
            raise InputError(path, "must be a mapping with `keys` and `summary`", field="change")
        keys = change.get("keys", [])
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise InputError(path, "must be a list of key components", field="change.keys")
        summary = change.get("summary")
        if summary is not None and not isinstance(summary, str):
            raise InputError(path, "must be text", field="change.summary")
    key = data.get("key", {})
    if not isinstance(key, dict):
        raise InputError(path, "must be a mapping of component -> version", field="key")
    for component, version in key.items():
        if isinstance(version, dict | list):
            raise InputError(path, "must be a version, not a structure", field=f"key.{component}")
    labels_of(data, path)
    return data


def stated_completeness(manifest: dict[str, Any], path: Path) -> Completeness | None:
    """The `completeness` a manifest states, read strictly (a wrong field is an InputError);
    None when it states none. Its reader imports pydantic, so only a run that states one pays."""
    if manifest.get(COMPLETENESS) is None:
        return None
    from flipgate.core.importers.completeness import Completeness

    return Completeness.from_manifest(manifest, path)


def labels_of(manifest: dict[str, Any], path: Path) -> Labels:
    given = manifest.get("labels") or {}
    if not isinstance(given, dict) or not set(given) <= {"negative", "positive", "abstain"}:
        raise InputError(path, "must map negative, positive and abstain to labels", field="labels")
    for role, label in given.items():
        if not isinstance(label, str) or not label.strip():
            raise InputError(path, "must be a non-empty string", field=f"labels.{role}")
    labels = Labels(**given)
    if len(set(labels.all())) != 3:
        raise InputError(path, "the three labels must differ", field="labels")
    return labels


def parse_time(value: Any) -> datetime | None:
    """`created` as an aware time (UTC when the file gives no zone); ValueError if it is none."""
    if value is None:
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        raise ValueError(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
