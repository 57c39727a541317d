"""Where the attempts are kept: one interface, two backends.

- `SqliteLedger` (`--ledger PATH`): one SQLite file, Python's standard library, no set-up; every
  append is one transaction that checks the whole chain first, so two CI jobs appending at once
  each wait their turn and neither is lost.
- `NotesLedger` (`--ledger git`, or `git:REMOTE`): git notes under `refs/notes/flipgate` on the
  change's commit, which every CI job of a repository reaches with no new service; with a remote
  named, each read fetches the ref and each append pushes it.

`append` takes the ids of the change's attempts its caller judged with: when another attempt of
the same change arrived meanwhile, it refuses (`LedgerConflict`) and the caller judges again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from flipgate.core.attempts.entry import Attempt

GIT = "git"  # `--ledger git`: git notes in the repository; `git:REMOTE` fetches and pushes them


class LedgerConflict(Exception):
    """Another attempt of the change was appended after the caller read the ledger."""


class Ledger(Protocol):
    """A ledger of attempts (see the module's docstring)."""

    @property
    def where(self) -> str:
        """The ledger in words: its file, or its ref and repository."""
        ...

    def read(self) -> tuple[Attempt, ...]:
        """Every attempt, each chain checked (a broken one is an `InputError`), oldest first."""
        ...

    def append(self, attempt: Attempt, seen: Sequence[str]) -> Attempt:
        """`attempt` chained after the last entry and numbered on its change, written whole;
        `seen` are the ids of the change's attempts it was judged with (`LedgerConflict` when
        they are no longer all there are). Returns the entry written."""
        ...


@dataclass(frozen=True)
class Place:
    """A ledger named on the command line or in gate.yaml: a file, or git notes."""

    path: Path | None = None  # the SQLite file
    git: Path | None = None  # a folder inside the repository whose notes keep the attempts
    remote: str | None = None  # fetched before reading, pushed after appending

    @classmethod
    def parse(cls, text: str, folder: Path, *, git: Path) -> Place:
        """`git`, `git:REMOTE` (the notes of the repository holding `git`), or a path (relative
        to `folder`)."""
        if text == GIT:
            return cls(git=git)
        if text.startswith(GIT + ":") and len(text) > len(GIT) + 1:
            return cls(git=git, remote=text[len(GIT) + 1 :])
        return cls(path=folder / text)


def open_ledger(place: Place) -> Ledger:
    if place.path is not None:
        from flipgate.core.attempts.sqlite import SqliteLedger

        return SqliteLedger(place.path)
    assert place.git is not None
    from flipgate.core.attempts.notes import NotesLedger

    return NotesLedger(place.git, place.remote)
