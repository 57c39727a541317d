"""The sample workspaces shipped inside the package, and the copies a user tries them in.

Trying a sample writes into it (a triage walk, a decision, an accepted flaky proposal, a rerun
plan), so nothing ever works in the package's own folder: `flipgate samples DIR` copies the
workspaces where the user says, and plain `flipgate` opens a copy of its own in the user's data
folder, made on first use and kept (with what the user did in it) until they remove it.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from flipgate.core.errors import InputError
from flipgate.core.io.files import writing

DEFAULT_WORKSPACE = "listing-reviewer"  # the one plain `flipgate` opens


def bundle() -> Traversable:
    """The package's folder of sample workspaces, `flipgate/samples/` (package data)."""
    return files("flipgate") / "samples"


def workspaces() -> list[Traversable]:
    """The bundled workspaces (`flipgate/samples/NAME/`), by name."""
    return sorted((item for item in bundle().iterdir() if item.is_dir()), key=lambda i: i.name)


def bundled_samples() -> Path:
    """The sample workspaces plain `flipgate` opens: the user's own copy of those shipped in the
    package (`user_samples`), so that trying them never writes into the package."""
    return user_samples()


def copy_samples(destination: Path) -> list[str]:
    """Copy every bundled workspace to `destination/NAME`; the names copied.

    Refused, with nothing written, when any of them is there already: a copy someone has tried
    holds their work. Each workspace is built beside its place and renamed into it, whole.
    """
    sources = workspaces()
    for source in sources:
        if (destination / source.name).exists():
            raise InputError(
                destination / source.name,
                "exists, and a sample is never copied over it: remove it, or name another folder",
            )
    with writing(destination):
        for source in sources:
            _copy_workspace(source, destination)
    return [source.name for source in sources]


def user_samples(environ: Mapping[str, str] = os.environ) -> Path:
    """The user's own copy of the samples, `$XDG_DATA_HOME/flipgate/samples/` (by default
    `~/.local/share/flipgate/samples/`); a workspace missing there is copied first."""
    base = Path(environ.get("XDG_DATA_HOME", "")).expanduser()
    folder = (base if base.is_absolute() else Path("~/.local/share").expanduser()) / "flipgate"
    folder /= "samples"
    for source in workspaces():
        if not (folder / source.name).exists():
            with writing(folder):
                _copy_workspace(source, folder)
    return folder


def _copy_workspace(source: Traversable, destination: Path) -> None:
    try:
        destination.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # what mkdir says of a file in the way, which reads as "it exists"
        raise NotADirectoryError(errno.ENOTDIR, "a file where a folder should be") from None
    staging = Path(tempfile.mkdtemp(prefix=f".{source.name}.", dir=destination))
    try:
        _copy_tree(source, staging / source.name)
        os.replace(staging / source.name, destination / source.name)
    finally:
        shutil.rmtree(staging)


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir()
    for item in source.iterdir():
        if item.is_dir():
            _copy_tree(item, target / item.name)
        else:
            (target / item.name).write_bytes(item.read_bytes())
