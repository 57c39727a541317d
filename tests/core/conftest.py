"""Throwaway SSH keys and an isolated git config for the decision-signing tests."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

KeyMaker = Callable[..., Path]


@pytest.fixture
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git config of our own (never the real one), a home in tmp_path, no ssh-agent."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    home = tmp_path / "home"
    home.mkdir()
    config = home / ".gitconfig"
    config.touch()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.chdir(tmp_path)  # out of any repository whose local config could answer
    return config


@pytest.fixture
def make_key(tmp_path: Path) -> KeyMaker:
    """`make_key(name, passphrase="")` writes an ed25519 key pair; returns the private key path."""
    keys = tmp_path / "keys"
    keys.mkdir()

    def make(name: str, passphrase: str = "") -> Path:
        path = keys / name
        subprocess.run(
            [
                "ssh-keygen",
                "-q",
                "-t",
                "ed25519",
                "-a",
                "1",
                "-N",
                passphrase,
                "-C",
                name,
                "-f",
                str(path),
            ],
            check=True,
            stdin=subprocess.DEVNULL,
        )
        return path

    return make


@pytest.fixture
def allow(tmp_path: Path) -> Callable[[str, Path], Path]:
    """`allow(email, key)` lists `key` (its .pub) for `email` in tmp_path/allowed_signers."""
    allowed_signers = tmp_path / "allowed_signers"

    def add(email: str, key: Path) -> Path:
        public = key.with_name(key.name + ".pub").read_text().strip()
        with allowed_signers.open("a") as out:
            out.write(f'{email} namespaces="git,flipgate-decision" {public}\n')
        return allowed_signers

    return add
