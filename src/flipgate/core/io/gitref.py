"""Files as they stand at a git revision: the gate's settings where the change is going (`--base-ref`).

A change under test may tighten its gate, never loosen it; to tell, the gate spec and the flaky
list are read as they are at the base revision, from the repository that holds them, with git
itself (no library reads every ref format, worktree and packfile as git does). A link at the
revision, in the file's name or of the file itself, is followed within the tree at the revision
(git's `cat-file --follow-symlinks`); one that leads out of the tree, nowhere, or round in a
loop is refused, never read as the text of the link.
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
    name = Path(f"{ref}:{relative}")
    if "\n" in relative:
        raise InputError(name, "a name with a line break cannot be read at a revision")
    answer = _git(
        folder,
        "cat-file",
        "--batch",
        "--follow-symlinks",
        failure=f"cannot read {name}",
        given=f"{commit.decode().strip()}:{relative}\n".encode(),
    )
    return AtRef(name, _blob(answer, name))


# What git's batch answers for a name it cannot give as an object (`git help cat-file`).
_NOT_AN_OBJECT = {
    b"symlink": "a link out of the repository, to {target}: only files in the tree are read",
    b"dangling": "a link to nothing in the tree at that revision",
    b"loop": "a link that leads round in a loop",
}


def _blob(answer: bytes, name: Path) -> bytes | None:
    """The file's bytes from `cat-file --batch`'s answer; None when the name is not in the tree."""
    head, _, rest = answer.partition(b"\n")
    words = head.split()
    if head.endswith(b" missing") or words[:1] == [b"notdir"]:
        return None
    if words[:1] in ([kind] for kind in _NOT_AN_OBJECT):
        target = rest[: int(words[1])].decode(errors="replace")
        raise InputError(name, _NOT_AN_OBJECT[words[0]].format(target=repr(target)))
    if len(words) != 3 or words[1] != b"blob":
        kind = {b"tree": "folder", b"commit": "submodule"}.get(words[1:2][0] if words[1:] else b"")
        raise InputError(name, f"is {'a ' + kind if kind else 'no file'} at that revision")
    return rest[: int(words[2])]


def _command(folder: Path, *args: str) -> list[str]:
    return ["git", "-C", str(folder), *args]


def _git(folder: Path, *args: str, failure: str, given: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(_command(folder, *args), capture_output=True, input=given)
    except FileNotFoundError:
        raise InputError(
            BASE_REF_OPTION,
            "git is not installed: name the base's files with --base-gate and --base-flaky instead",
        ) from None
    if done.returncode:
        detail = done.stderr.decode(errors="replace").strip().splitlines()
        raise InputError(BASE_REF_OPTION, failure + (f" ({detail[-1]})" if detail else ""))
    return done.stdout
