"""Files as they stand at a git revision: the gate's settings where the change is going (`--base-ref`).

A change under test may tighten its gate, never loosen it; to tell, the gate spec and the flaky
list are read as they are at the base revision, from the repository that holds them, with git
itself (no library reads every ref format, worktree and packfile as git does).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.errors import InputError

BASE_REF_OPTION = Path("--base-ref")


@dataclass(frozen=True)
class AtRef:
    """One file at one revision: `name` as git writes it (`main:sample_runs/x/gate.yaml`), for
    errors; `content` None when the file did not exist there."""

    name: Path
    content: bytes | None


def read_at_ref(path: Path, ref: str) -> AtRef:
    """`path` (which need not exist now) as it is at `ref` in the repository holding it.

    A ref git cannot resolve, a path outside any repository, or no git at all: an input error.
    """
    if not ref or ref.startswith("-"):
        raise InputError(BASE_REF_OPTION, f"not a git revision: {ref!r}")
    absolute = Path(os.path.abspath(path))
    folder = next(p for p in absolute.parents if p.is_dir())
    top = _git(folder, "rev-parse", "--show-toplevel", failure="not inside a git repository")
    commit = _git(
        folder,
        "rev-parse",
        "--verify",
        "--quiet",
        f"{ref}^{{commit}}",
        failure=f"no revision {ref!r} in the repository at {top.decode().strip()}",
    )
    # git names paths from the top of the work tree, with symlinks in the folders resolved
    inside = Path(os.path.realpath(folder)) / absolute.relative_to(folder)
    relative = inside.relative_to(Path(top.decode().strip())).as_posix()
    spec = f"{commit.decode().strip()}:{relative}"
    name = Path(f"{ref}:{relative}")
    if subprocess.run(_command(folder, "cat-file", "-e", spec), capture_output=True).returncode:
        return AtRef(name, None)
    return AtRef(name, _git(folder, "cat-file", "blob", spec, failure=f"cannot read {name}"))


def _command(folder: Path, *args: str) -> list[str]:
    return ["git", "-C", str(folder), *args]


def _git(folder: Path, *args: str, failure: str) -> bytes:
    try:
        done = subprocess.run(_command(folder, *args), capture_output=True)
    except FileNotFoundError:
        raise InputError(
            BASE_REF_OPTION,
            "git is not installed: name the base's files with --base-gate and --base-flaky instead",
        ) from None
    if done.returncode:
        detail = done.stderr.decode(errors="replace").strip().splitlines()
        raise InputError(BASE_REF_OPTION, failure + (f" ({detail[-1]})" if detail else ""))
    return done.stdout
