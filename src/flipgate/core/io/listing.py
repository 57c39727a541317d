"""The one way a folder is listed: the runs of `history/`, `candidates/` and `baseline-repeats/`,
the signed decisions of `decisions/`.

Hidden entries are skipped: a notebook's `.ipynb_checkpoints`, an editor's `.#file`, a Finder
`.DS_Store` are no run and no decision. A name that is not UTF-8 (`q\\xff`, from a tarball made
elsewhere) is refused naming it, exit 2: no reader, report or key can carry it as text.
"""

from __future__ import annotations

import os
from pathlib import Path

from flipgate.core.errors import InputError


def text_name(name: str) -> str | None:
    """`name` as it would be shown, when it is not UTF-8 text (`q\\xff`); None when it is."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return repr(os.fsencode(name))[2:-1]  # the bytes as Python writes them: q\xff
    return None


def _visible(folder: Path) -> list[Path]:
    """The entries of `folder` that are not hidden, in name order."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        raise InputError(folder, f"cannot be listed: {exc.strerror or exc}") from None
    entries = []
    for name in names:
        if name.startswith("."):
            continue
        if (shown := text_name(name)) is not None:
            raise InputError(
                folder / shown,
                "a name that is not UTF-8 text: rename it (only UTF-8 names are read)",
            )
        entries.append(folder / name)
    return entries


def folders_in(folder: Path) -> tuple[Path, ...]:
    """The folders in `folder` (links to folders too), hidden ones skipped, in name order; none
    when `folder` is not a folder."""
    if not folder.is_dir():
        return ()
    return tuple(path for path in _visible(folder) if path.is_dir())


def files_in(folder: Path, suffix: str) -> tuple[Path, ...]:
    """The files in `folder` whose names end in `suffix`, hidden ones skipped, in name order."""
    if not folder.is_dir():
        return ()
    return tuple(p for p in _visible(folder) if p.name.endswith(suffix) and p.is_file())
