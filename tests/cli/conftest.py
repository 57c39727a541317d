"""What the command-line tests of signed files share: a reviewer with a key, the
allowed-signers file that lists it, and `flipgate verify` run with that file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from flipgate.cli import main
from tests.conftest import KeyMaker

ANA = "Ana Reviewer <ana@example.com>"


@dataclass(frozen=True)
class Signer:
    """A reviewer's private key, and an allowed-signers file that lists its public half."""

    key: Path
    allowed_signers: Path

    def verify(self, path: Path) -> int:
        """`flipgate verify PATH` with this signer allowed: its exit code."""
        return main(["verify", str(path), "--allowed-signers", str(self.allowed_signers)])


@pytest.fixture
def ana(isolated_git: Path, make_key: KeyMaker, allow: Callable[[str, Path], Path]) -> Signer:
    """Ana (`ANA`), with a key of her own, allowed to sign."""
    key = make_key("ana")
    return Signer(key, allow("ana@example.com", key))


def written_in(folder: Path) -> Path:
    """The one file a command wrote in `folder` (a workspace's `decisions/`)."""
    [written] = folder.iterdir()
    return written
