"""Content digests: of a run (its `run.yaml` and results file), of an external log, of bytes.

A signed decision records these so that `flipgate verify` can tell whether the runs it was made
on are still the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from flipgate.core.errors import InputError

RUN_FILE = "run.yaml"
RESULTS_FILES = ("results.jsonl", "results.parquet")
_CHUNK = 1 << 20


def bytes_digest(data: bytes) -> str:
    """`sha256:<hex>` of `data` (the gate spec, the flaky list)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def run_digest(path: Path) -> str:
    """`sha256:<hex>` of a run's content.

    For a run directory (or its `run.yaml`): `run.yaml` and its one results file, each fed as
    (name, length, bytes) in name order, so renaming a file or moving bytes from one file to the
    other changes the digest. For any other file (an Inspect or promptfoo log): the sha256 of
    the file's bytes, the same figure `sha256sum` prints.
    """
    path = Path(path)
    if path.is_file() and path.name != RUN_FILE:
        digest = hashlib.sha256()
        _feed(digest.update, path)
        return "sha256:" + digest.hexdigest()
    run_dir = path.parent if path.name == RUN_FILE else path
    digest = hashlib.sha256()
    for file in _run_files(run_dir):
        name = file.name.encode()
        digest.update(len(name).to_bytes(8, "big") + name)
        digest.update(file.stat().st_size.to_bytes(8, "big"))
        _feed(digest.update, file)
    return "sha256:" + digest.hexdigest()


def _run_files(run_dir: Path) -> list[Path]:
    if not run_dir.is_dir():
        raise InputError(run_dir, "no such run directory or log file")
    run_yaml = run_dir / RUN_FILE
    if not run_yaml.is_file():
        raise InputError(run_dir, f"not a run: no {RUN_FILE}")
    results = [run_dir / name for name in RESULTS_FILES if (run_dir / name).is_file()]
    if len(results) != 1:
        found = "neither" if not results else "both"
        raise InputError(
            run_dir, f"a run holds exactly one of {' or '.join(RESULTS_FILES)}; found {found}"
        )
    return sorted([run_yaml, *results], key=lambda file: file.name)


def _feed(update: Callable[[bytes], None], file: Path) -> None:
    """Stream `file` into a hash's `update`; a file that changes size while read is an error."""
    expected = file.stat().st_size
    read = 0
    with file.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            update(chunk)
            read += len(chunk)
    if read != expected:
        raise InputError(file, f"changed while being read ({expected} bytes, then {read})")
