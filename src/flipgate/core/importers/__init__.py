"""Read the logs of the eval tools people already use, as runs in our format (SPEC §2, §8).

An importer (`base.Importer`) turns one log into an `ImportedRun`: the `run.yaml` mapping and the
`results.jsonl` records it would have written. `flipgate.core.runs.reading` validates and loads those
exactly as it loads our own files, so every check of SPEC §2 applies to imported logs too. Here:
the registry that picks the importer of a file, and the writer of an imported run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from flipgate.core.errors import InputError
from flipgate.core.importers import deepeval, inspect_log, lm_eval, promptfoo, table
from flipgate.core.importers.base import (
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    Option,
)
from flipgate.core.io.atomic import write_folder_atomic
from flipgate.core.io.files import unwritable
from flipgate.core.io.yamlio import dump_yaml

IMPORTERS: tuple[Importer, ...] = (  # asked in turn
    inspect_log.IMPORTER,
    promptfoo.IMPORTER,
    lm_eval.IMPORTER,
    deepeval.IMPORTER,
    table.IMPORTER,  # last: it knows a file by its name, the others by what it holds
)


_FORMATS = (
    "an Inspect AI .eval/.json, a promptfoo results.json/.jsonl, lm-eval's results_*.json or "
    "samples_*.jsonl, a DeepEval test_run_*.json, or a CSV/JSONL/Parquet table"
)


def importer_for(path: Path) -> Importer | None:
    """The importer that recognises the file at `path`; None for ours or an unknown file.

    Told by content, not by extension; a run directory (or its run.yaml) is ours.
    """
    if not path.is_file() or path.name == "run.yaml":
        return None
    file = LogFile(path)
    return next((i for i in IMPORTERS if i.recognises(file)), None)


def detect_format(path: Path) -> str | None:
    """The name of the importer of `path` ("inspect", "promptfoo"), or None."""
    importer = importer_for(path)
    return importer.name if importer else None


def read_external(path: Path, options: ImportOptions | None = None) -> ImportedRun:
    """Import a log through the importer that recognises it; anything else is an InputError."""
    if not path.is_file():
        raise InputError(path, f"not a log file ({_FORMATS})")
    file = LogFile(path)
    options = options or ImportOptions()
    for importer in IMPORTERS:
        if importer.recognises(file):
            _refuse_others_options(path, importer, options)
            return importer.read(file, options)
    raise InputError(path, f"not a log flipgate reads ({_FORMATS})")


def _refuse_others_options(path: Path, importer: Importer, chosen: ImportOptions) -> None:
    """An option of another tool's logs changes nothing here: said, not silently ignored."""
    defaults = ImportOptions()
    for option in options():
        given = getattr(chosen, option.field) != getattr(defaults, option.field)
        if given and option not in importer.options:
            tools = ", ".join(other.title for other in takers(option))
            raise InputError(
                path,
                f"applies to {tools} only; this is read as {importer.title}",
                field=option.flag,
            )


def import_options(given: Mapping[str, Any]) -> ImportOptions:
    """The options from what a user gave, by field: a switch's bool, a value's text, the list of
    a repeated value's texts; a badly written one is an InputError naming its flag."""
    chosen: dict[str, Any] = {}
    for option in options():
        value = given.get(option.field)
        if value is None or value is False or value == []:
            continue
        try:
            chosen[option.field] = option.read(value)
        except ValueError as bad:
            raise InputError(Path(option.flag), str(bad)) from None
    return ImportOptions(**chosen)


def options() -> tuple[Option, ...]:
    """Every importer's options, in the registry's order, each once (some are shared)."""
    return tuple(dict.fromkeys(option for importer in IMPORTERS for option in importer.options))


def takers(option: Option) -> tuple[Importer, ...]:
    """The importers that take `option`."""
    return tuple(importer for importer in IMPORTERS if option in importer.options)


def write_run(imported: ImportedRun, out_dir: Path) -> None:
    """Write run.yaml + results.jsonl into `out_dir`, all or nothing.

    The run is built in a temporary directory beside `out_dir` and renamed into place, so a
    failure (or a crash) leaves no half-written run behind. An existing non-empty `out_dir` is
    refused: an import never overwrites a run.
    """
    try:
        lines = [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in imported.records]
        manifest = dump_yaml(imported.manifest)
    except (TypeError, ValueError, yaml.YAMLError) as exc:
        raise InputError(imported.source, f"cannot write the imported run: {exc}") from None
    files = {"run.yaml": manifest, "results.jsonl": "".join(line + "\n" for line in lines)}
    try:
        write_folder_atomic(out_dir, files)
    except FileExistsError:
        raise InputError(
            out_dir, "already exists and is not an empty directory; choose a new one"
        ) from None
    except OSError as exc:
        raise unwritable(out_dir, exc) from None


__all__ = [
    "IMPORTERS",
    "ImportOptions",
    "ImportedRun",
    "Importer",
    "detect_format",
    "import_options",
    "importer_for",
    "options",
    "read_external",
    "write_run",
]
