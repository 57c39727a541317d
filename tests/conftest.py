"""Shared test helpers: small runs and workspaces in our format, throwaway SSH keys."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings

# Property tests draw the same examples on every run and keep no example database, so a CI
# failure reproduces anywhere; no deadline and no too-slow check, both of which a loaded
# two-core machine trips. `pytest --hypothesis-profile explore` draws new examples each run.
settings.register_profile(
    "deterministic",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", settings.get_profile("deterministic"), derandomize=False)
settings.load_profile("deterministic")

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_runs"

# Nine aliases of nine aliases of ... "lol": 400 bytes of YAML that expand past a gigabyte.
ALIAS_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)

RunWriter = Callable[..., Path]
KeyMaker = Callable[..., Path]


def load_bench(name: str) -> ModuleType:
    """bench/ holds scripts, not a package: import one by path (its data generator, say)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    spec.loader.exec_module(module)
    return module


def write_run(
    folder: Path,
    rows: Iterable[dict[str, Any]],
    *,
    run_id: str | None = None,
    key: dict[str, str] | None = None,
    **manifest: Any,
) -> Path:
    """A run folder with run.yaml and results.jsonl; rows are written as given."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "run_id": run_id or folder.name,
        "key": key or {"model": "m1", "prompt": "p1"},
        **manifest,
    }
    (folder / "run.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.fixture
def run_writer(tmp_path: Path) -> RunWriter:
    def make(name: str, rows: Iterable[dict[str, Any]], **manifest: Any) -> Path:
        return write_run(tmp_path / name, rows, **manifest)

    return make


def passfail_rows(
    verdicts: dict[str, list[bool | None]], safety: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Rows of a pass/fail suite: case -> per-rep pass (True), fail (False) or infra (None)."""
    safe = set(safety)
    rows: list[dict[str, Any]] = []
    for case, reps in verdicts.items():
        for rep, verdict in enumerate(reps):
            row: dict[str, Any] = {"case": case, "rep": rep, "safety": case in safe}
            if verdict is None:
                row |= {"status": "infra", "infra": "timeout"}
            else:
                row["passed"] = verdict
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- signing


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
            out.write(f'{email} namespaces="git,flipgate-decision,flipgate-prereg" {public}\n')
        return allowed_signers

    return add
