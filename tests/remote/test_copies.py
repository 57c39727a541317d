"""The copy a URL is read from (issue 25 item 4): the user's alone (mode 0700), removed when the
process exits (whatever the exit) and at once when the copy fails, and bounded: a run bigger
than the disk has free is refused before a byte is copied, naming the URL and the size."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections import namedtuple
from collections.abc import Iterator
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.io import remote
from tests.conftest import REPO
from tests.remote.conftest import PAIR, Store, serving

Usage = namedtuple("Usage", "total used free")  # shutil.disk_usage's answer


@pytest.fixture
def pair_site(tmp_path: Path) -> Iterator[str]:
    """The sample pair served over HTTP; one run whose files.txt names a file that is missing."""
    site = tmp_path / "site"
    shutil.copytree(PAIR, site / PAIR.name)
    shutil.copytree(PAIR / "baseline", site / "half")
    (site / "half" / remote.HTTP_LISTING).write_text("run.yaml\nresults.jsonl\nmissing.jsonl\n")
    with serving(site) as url:
        yield url


def copies() -> list[Path]:
    """The copies this process holds now."""
    return sorted(remote._scratch_folder().glob("copy-*"))


def test_a_copy_is_the_users_alone(pair_site: str) -> None:
    local = remote.fetched(f"{pair_site}/{PAIR.name}/baseline")
    for folder in (remote._scratch_folder(), local.parent):
        assert folder.stat().st_mode & 0o777 == 0o700
    assert (local / "results.jsonl").read_bytes() == (
        PAIR / "baseline" / "results.jsonl"
    ).read_bytes()


def test_a_copy_that_fails_is_removed_at_once(pair_site: str) -> None:
    before = copies()
    with pytest.raises(InputError, match="no such object"):
        remote.fetched(f"{pair_site}/half")
    assert copies() == before  # run.yaml and results.jsonl had been copied, and are gone


def flipgate(*args: str, tmp: Path) -> subprocess.Popen[str]:
    """The console script in a process of its own, its copies under `tmp`."""
    environment = {**os.environ, "TMPDIR": str(tmp)}
    process = subprocess.Popen(
        [sys.executable, "-c", "from flipgate.launch import run; run()", *args],
        cwd=REPO,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    process.wait(timeout=120)
    return process


def test_the_copies_are_removed_when_the_command_ends(pair_site: str, tmp_path: Path) -> None:
    """On a verdict, on bad input (exit 2) and on SIGTERM: the console script ends with
    os._exit, which runs no atexit handler, so it removes them itself."""
    runs = [f"{pair_site}/{PAIR.name}/baseline", f"{pair_site}/{PAIR.name}/candidate"]
    for args, status in (
        (runs, {0, 1, 3, 4}),
        ([runs[0], f"{pair_site}/{PAIR.name}/no-such-arm"], {2}),
    ):
        tmp = tmp_path / f"tmp-{len(status)}"
        tmp.mkdir()
        process = flipgate("gate", *args, tmp=tmp)
        assert process.returncode in status, process.communicate()
        assert list(tmp.iterdir()) == []


def test_sigterm_removes_the_copies(pair_site: str, tmp_path: Path) -> None:
    """The app holds its copies while it is open; a SIGTERM then removes them."""
    runs = [f"{pair_site}/{PAIR.name}/baseline", f"{pair_site}/{PAIR.name}/candidate"]
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code = (
        "import sys, time; from flipgate.session import GateRequest; "
        "GateRequest.of(sys.argv[1:]); print('copied', flush=True); time.sleep(60)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, *runs],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "copied\n"
    assert [p.name[:16] for p in tmp.iterdir()] == ["flipgate-remote-"]
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGTERM
    assert list(tmp.iterdir()) == []


def full_disk(monkeypatch: pytest.MonkeyPatch, free: int) -> None:
    """The disk under the copies as if `free` bytes were left beyond the room kept free."""
    usage = Usage(total=1 << 40, used=1 << 39, free=remote.ROOM_BYTES + free)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage)


def test_a_run_bigger_than_the_free_disk_is_refused_before_it_is_copied(
    store: Store, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    size = sum(p.stat().st_size for p in (PAIR / "candidate").iterdir())
    full_disk(monkeypatch, free=1000)
    before = copies()
    url = f"{store.prefix}/{PAIR.name}/candidate"
    assert main(["gate", str(PAIR / "baseline"), url]) == 2
    err = capsys.readouterr().err
    assert f"flipgate: error: {url}: too big to copy here: {size:,} bytes to copy" in err
    assert "1,000 bytes free" in err
    assert copies() == before


def test_a_file_bigger_than_the_free_disk_is_refused_over_http(
    pair_site: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """By the answer's length, before its body is read."""
    full_disk(monkeypatch, free=1000)
    url = f"{pair_site}/{PAIR.name}/candidate"
    assert main(["gate", str(PAIR / "baseline"), url]) == 2
    assert f"{url}/results.jsonl: too big to copy here" in capsys.readouterr().err
