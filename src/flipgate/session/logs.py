"""Another tool's log written out as a run in our format (`flipgate import`)."""

from __future__ import annotations

from pathlib import Path

from flipgate.core.importers import ImportedRun, ImportOptions, read_external, write_run
from flipgate.core.io.remote import fetched
from flipgate.core.runs.reading import run_from_records


def import_log(log: str | Path, out_dir: Path, options: ImportOptions) -> ImportedRun:
    """Read `log` (a path or a URL) with its importer, check it as a run, then write it to
    `out_dir` (a new folder, all or nothing): a log the gate could not read is never written
    out."""
    imported = read_external(fetched(log), options)
    run_from_records(
        imported.manifest, imported.records, source=imported.source, source_format=imported.tool
    )
    write_run(imported, out_dir)
    return imported
