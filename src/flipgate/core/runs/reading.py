"""Read a run (SPEC §2) into its tidy frames (see `model`), checking every line (see `checks`).

JSONL is read in one columnar pass (Arrow's reader) when its fields have the types SPEC §2 gives
them. When they do not (bad JSON, a field of the wrong type, a label given as a string on some
lines and as a mapping on others, a key given twice, bytes that are not UTF-8), the file is read
again line by line, which either accepts the mix or names the exact line and field that is
wrong. Before either parses a byte, a line nested too deep is refused.

    reading.py   the entry point: a run's folder, its run.yaml or a log, to a `Run`
    nesting.py   how deep each line nests, found without parsing
    columns.py   the columnar path (Arrow's JSON reader, Parquet)
    records.py   the line-by-line path, also taken by importers' records
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.runs.checks import validate
from flipgate.core.runs.columns import read_jsonl, read_parquet, results_estimate
from flipgate.core.runs.manifest import (
    MANIFEST_FIELDS,
    check_manifest,
    labels_of,
    parse_time,
    read_manifest,
    stated_completeness,
)
from flipgate.core.runs.memory import available_memory, check_all_fit
from flipgate.core.runs.model import Frames, Labels, Progress, Run
from flipgate.core.runs.records import frames_from_records
from flipgate.core.runs.texts import Texts
from flipgate.core.vocab import Coded

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Completeness


def load_run(
    path: Path,
    *,
    progress: Progress | None = None,
    import_options: Any = None,
    lean: bool = False,
) -> Run:
    """Load a run directory, the path of its `run.yaml`, or an Inspect/promptfoo log.

    A run's texts (stored outputs, trajectories, the lines' other fields) are checked, then left
    where they are stored, read by line when asked for (`Run.texts`). `lean` is for the headless
    gate, which needs no reasons either: from Parquet, only the columns the verdict needs are
    read; from JSONL, every field is parsed and its type checked, and only those are kept.
    """
    from flipgate.core.importers import ImportOptions, detect_format, read_external

    report = progress or (lambda _message: None)
    if not path.exists():
        raise InputError(path, "no such run (expected a run directory, its run.yaml, or a log)")
    if not path.is_dir() and path.name != "run.yaml":
        report(f"importing {path.name}")  # read_external names a file that is neither tool's
        imported = read_external(path, import_options or ImportOptions())
        return run_from_records(
            imported.manifest,
            imported.records,
            source=path,
            manifest_path=path,
            source_format=imported.tool,
            notes=tuple(imported.notes),
            completeness=imported.completeness,
        )
    run_dir = path if path.is_dir() else path.parent
    manifest_path = run_dir / "run.yaml"
    if not manifest_path.exists():
        single_log = run_dir / "results.json"
        if single_log.exists() and detect_format(single_log) is not None:
            return load_run(single_log, progress=progress, import_options=import_options)
        raise InputError(run_dir, "not a run: no run.yaml in this folder")
    manifest, completeness = read_manifest(manifest_path)
    jsonl, parquet = run_dir / "results.jsonl", run_dir / "results.parquet"
    if jsonl.exists() and parquet.exists():
        raise InputError(
            run_dir, "a run holds exactly one of results.jsonl and results.parquet, not both"
        )
    if not jsonl.exists() and not parquet.exists():
        raise InputError(run_dir, "no results: a run needs results.jsonl or results.parquet")
    labels = labels_of(manifest, manifest_path)
    results = jsonl if jsonl.exists() else parquet
    report(f"reading {run_dir.name}/{results.name}")
    if results == jsonl:
        frames, texts = read_jsonl(jsonl, lean=lean)
    else:
        frames, texts = read_parquet(parquet, lean=lean)
    report(f"checking {run_dir.name}")
    validate(frames, results, labels)
    return _make_run(manifest, run_dir, (frames, texts), labels, "flipgate", (), completeness)


def results_file(path: Path) -> Path | None:
    """The results file of the run at `path` (a run directory or its `run.yaml`); None for a log
    or a folder that is not one run (`load_run` says what is wrong with it)."""
    run_dir = path if path.is_dir() else path.parent if path.name == "run.yaml" else None
    if run_dir is None:
        return None
    found = [run_dir / f"results.{suffix}" for suffix in ("jsonl", "parquet")]
    held = [file for file in found if file.is_file()]
    return held[0] if len(held) == 1 else None


def check_runs_fit(paths: Sequence[Path], *, lean: bool = False) -> None:
    """Refuse the runs at `paths`, before any is read, when reading them all would take more
    memory than is free (`memory.check_all_fit`); each reader checks its own file again, against
    what is free once the others are held."""
    if available_memory() is None:
        return
    files = [
        (results, found)
        for path in paths
        if (results := results_file(path)) is not None
        and (found := results_estimate(results, lean=lean)) is not None
    ]
    check_all_fit(files)


def run_from_records(
    manifest: dict[str, Any],
    records: Iterable[dict[str, Any]],
    *,
    source: Path,
    manifest_path: Path | None = None,
    source_format: str = "flipgate",
    notes: tuple[Coded, ...] = (),
    completeness: Completeness | None = None,
) -> Run:
    """Build a run from records in the results.jsonl shape (importers, tests); its completeness
    as given, else as the manifest states it."""
    where = manifest_path or source
    manifest = check_manifest(manifest, where)
    labels = labels_of(manifest, where)
    if completeness is None:
        completeness = stated_completeness(manifest, where)
    frames, texts = frames_from_records(((i + 1, r) for i, r in enumerate(records)), source)
    validate(frames, source, labels)
    return _make_run(manifest, source, (frames, texts), labels, source_format, notes, completeness)


def _make_run(
    manifest: dict[str, Any],
    path: Path,
    read: tuple[Frames, Texts],
    labels: Labels,
    source_format: str,
    notes: tuple[Coded, ...],
    completeness: Completeness | None,
) -> Run:
    change = manifest.get("change") or {}
    (reps, decided, checks), texts = read
    return Run(
        path=path,
        run_id=manifest["run_id"],
        suite=manifest.get("suite", "full"),
        created=parse_time(manifest.get("created")),
        key={str(k): str(v) for k, v in (manifest.get("key") or {}).items()},
        change_keys=tuple(change.get("keys", [])),
        change_summary=change.get("summary"),
        labels=labels,
        manifest=manifest,
        reps=reps,
        decided=decided,
        checks=checks,
        source_format=source_format,
        notes=notes,
        extra_manifest={k: v for k, v in manifest.items() if k not in MANIFEST_FIELDS},
        completeness=completeness,
        texts=texts,
    )
