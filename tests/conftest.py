"""Shared test helpers: the environment every test runs in (`environment`), the bundled samples
as git holds them (`SAMPLES`, `copy_sample`), the real tools' logs, small runs and workspaces in
our format, throwaway SSH keys."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings

from flipgate.session import samples as bundled

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
# Logs written by the real tools, each folder's README saying how: tests/fixtures/TOOL/NAME/.
FIXTURES = REPO / "tests" / "fixtures"
INSPECT_LOGS = FIXTURES / "inspect" / "listing-review"
PROMPTFOO_LOGS = FIXTURES / "promptfoo" / "app-review"

# What a user's shell may set that would change what the tests see: colours and terminal size
# (Rich and Textual read them), where settings and data live, git's own configuration (a
# signing key, `commit.gpgsign`, an allowed-signers file), a pager or editor, the locale, an
# ssh-agent. `environment` clears them for every test and sets the few the tests rely on.
CLEARED = (
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "PAGER",
    "GIT_PAGER",
    "EDITOR",
    "VISUAL",
    "GIT_EDITOR",
    "LANGUAGE",
    "LC_ALL",
    "PYTHONIOENCODING",
    "SSH_AUTH_SOCK",
    "SSH_ASKPASS",
    "SSH_ASKPASS_REQUIRE",
)
CLEARED_PREFIXES = ("GIT_", "TEXTUAL_", "LC_")
KEPT = ("TEXTUAL_SNAPSHOT_TEMPDIR",)  # pytest-textual-snapshot's own, set as the session starts


@pytest.fixture(autouse=True)
def environment(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs as a new user would: a home of its own with an empty git configuration,
    empty XDG folders, a UTF-8 locale, a 256-colour terminal, and the working folder an empty
    one outside any repository (so a relative path means what the test says, and no
    repository's own git configuration answers). Returns the home."""
    for name in os.environ:
        if (name in CLEARED or name.startswith(CLEARED_PREFIXES)) and name not in KEPT:
            monkeypatch.delenv(name)
    root = tmp_path_factory.mktemp("environment")
    home, work = root / "home", root / "work"
    for folder in (home, work, home / ".config", home / ".local" / "share"):
        folder.mkdir(parents=True)
    (home / ".gitconfig").touch()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(root))
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()  # today's date is UTC's in the test process too
    monkeypatch.chdir(work)
    return home


BUNDLED = Path("src", "flipgate", "samples")  # the package's sample workspaces, in the repository


def pristine_samples(repo: Path, into: Path) -> Path:
    """`repo`'s bundled sample workspaces as git holds them (its index: what is committed or
    staged), checked out to `into/sample_runs/` and made read-only.

    Never the working tree's files: trying a sample there (the README's tour, or `flipgate open`
    on the package's folder) leaves a triage walk, decisions, a rerun plan or an edited flaky
    list, and the tests would then see the user's work. Outside a git checkout (an unpacked
    source archive) the working tree is all there is, and is copied.
    """
    root = into / "sample_runs"
    quiet_git = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_CONFIG_GLOBAL": os.devnull,  # no autocrlf or filter of the user's rewrites a file
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    tracked = subprocess.run(
        ["git", "-C", str(repo), "ls-files", "-z", "--", str(BUNDLED)],
        capture_output=True,
        env=quiet_git,
        check=False,
    )
    if tracked.returncode == 0 and tracked.stdout:
        checkout = into / "checkout"
        subprocess.run(
            ["git", "-C", str(repo), "checkout-index", "-z", "--stdin", f"--prefix={checkout}/"],
            input=tracked.stdout,
            env=quiet_git,
            check=True,
        )
        (checkout / BUNDLED).rename(root)
        shutil.rmtree(checkout)
    else:
        shutil.copytree(repo / BUNDLED, root)
    for folder, _, names in os.walk(root):
        for name in names:
            Path(folder, name).chmod(0o444)
    for folder, _, _ in os.walk(root, topdown=False):
        Path(folder).chmod(0o555)  # a test that writes into a shared sample fails at once
    return root


def _writable(root: Path) -> None:
    for folder, _, _ in os.walk(root):
        Path(folder).chmod(0o755)


def _remove(root: Path) -> None:
    _writable(root)
    shutil.rmtree(root)


# Every test reads the samples here, or works in a copy from here (`copy_sample`).
SAMPLES = pristine_samples(REPO, Path(tempfile.mkdtemp(prefix="flipgate-samples-")))
atexit.register(_remove, SAMPLES.parent)


@pytest.fixture
def pristine_bundle(monkeypatch: pytest.MonkeyPatch) -> Path:
    """`flipgate samples` and plain `flipgate` copy the pristine samples, not the package's
    folder as it stands in this checkout."""
    monkeypatch.setattr(bundled, "bundle", lambda: SAMPLES)
    return SAMPLES


def files_below(root: Path) -> dict[str, bytes]:
    """Every file below `root` by its relative path, with its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def copy_sample(name: str, destination: Path) -> Path:
    """A writable copy of the pristine sample workspace `name` (or a folder in one,
    `support-assistant/decisions`) at `destination`."""
    shutil.copytree(SAMPLES / name, destination, copy_function=shutil.copyfile)
    _writable(destination)
    return destination


# Nine aliases of nine aliases of ... "lol": 400 bytes of YAML that expand past a gigabyte.
ALIAS_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)

RunWriter = Callable[..., Path]
KeyMaker = Callable[..., Path]


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
    verdicts: Mapping[str, Sequence[bool | None]], safety: Iterable[str] = ()
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
def isolated_git(environment: Path) -> Path:
    """The test's own empty git config (`environment` made it), for a test that signs."""
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    return environment / ".gitconfig"


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
