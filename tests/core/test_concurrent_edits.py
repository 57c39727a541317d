"""Writers at once, as separate processes, on every file the tool edits: each writer's change is
in the file after, and nothing is left beside it. Then SIGTERM and SIGINT in the middle of a
write: the file stays as it was, and no staged copy or lock file is left in the workspace."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.core.errors import InputError
from flipgate.core.io.edit import EditedFile, edit

WRITERS = 4
ROUNDS = 3
TODAY = date(2026, 12, 1)
DIGEST = "sha256:" + "0" * 64
CASES = 100  # the flaky list may hold 5 of them: room for every writer


# --------------------------------------------------------------------------- in each writer


def _widen_the_window() -> None:
    """Each writer pauses between reading the file and replacing it: writers that did not take
    turns would each replace what the others wrote, every time."""
    replace = EditedFile.replace

    def slow(self: EditedFile, data: str | bytes) -> None:
        time.sleep(0.05)
        replace(self, data)

    EditedFile.replace = slow  # type: ignore[method-assign]  # in the writer's process only


def _all_at_once(folder: Path, writer: int) -> None:
    """Wait until every writer of the round has started, then go."""
    (folder / f"ready-{writer}").touch()
    deadline = time.monotonic() + 60
    while len(list(folder.glob("ready-*"))) < WRITERS:
        if time.monotonic() > deadline:
            raise TimeoutError("the other writers did not start")
        time.sleep(0.001)


def _write(kind: str, target: str, writer: int) -> str:
    """One writer's change to `target` (run in a separate process), or its refusal."""
    try:
        return _change(kind, Path(target), writer)
    except InputError as refused:  # said, not raised: it does not cross back to the test whole
        return f"refused: {refused}"


def _change(kind: str, path: Path, writer: int) -> str:
    from flipgate.present.curation import done_words

    _all_at_once(path.parent / "go", writer)
    if kind == "suite retire":
        from flipgate.core.suite.manifest import retire

        return done_words(retire(path, f"c{writer}", f"gone {writer}", TODAY))
    if kind in ("flaky add", "flaky remove"):
        from flipgate.core.curation.entries import add, remove
        from flipgate.core.gate.spec import default_spec
        from flipgate.core.runs.reading import run_from_records

        if kind == "flaky remove":
            return done_words(remove(path, f"case-{writer:03d}", "repaired", TODAY))
        rows = [{"case": f"case-{i:03d}", "passed": True} for i in range(CASES)]
        run = run_from_records({"run_id": "base", "key": {"model": "m"}}, rows, source=path)
        spec = default_spec()
        case = f"case-{writer:03d}"
        return done_words(add(path, case, "qa", "flips", "seen", TODAY, suite=[run], spec=spec))
    if kind == "triage walk":
        from flipgate.core.triage.walk import RunMark, TriageWalk, save_walk

        walk = TriageWalk(RunMark(f"base-{writer}", DIGEST), RunMark(f"cand-{writer}", DIGEST))
        save_walk(path, walk)
        return "saved"
    assert kind == "rerun plan written over"  # `write_rerun_plan(..., overwrite=True)`'s edit
    with edit(path) as file:
        file.replace(_plan(writer))
    return "written"


def _plan(writer: int) -> str:
    return "".join(f"- {{case: w{writer}-{i}, direction: b}}\n" for i in range(200))


# --------------------------------------------------------------------------- the test


@pytest.fixture(scope="module")
def writers() -> Iterator[ProcessPoolExecutor]:
    pool = ProcessPoolExecutor(
        WRITERS, mp_context=get_context("spawn"), initializer=_widen_the_window
    )
    yield pool
    pool.shutdown()


def _manifest() -> str:
    cases = "".join(f"  - {{case: c{i}, intent: a, added: 2026-01-02}}\n" for i in range(CASES))
    return f"# the suite's record\nsuite: s\ncases:\n{cases}archive:\n"


def _flaky(entries: int) -> str:
    return "entries:\n" + "".join(
        f"  - case: case-{i:03d}\n    owner: qa\n    added: 2026-11-01\n"
        f"    reason: r\n    evidence: e\n"
        for i in range(entries)
    )


FILES: dict[str, tuple[str, str]] = {
    "suite retire": ("suite.yaml", _manifest()),
    "flaky add": ("flaky.yaml", "# the team's list\nentries: []\n"),
    "flaky remove": ("flaky.yaml", _flaky(WRITERS)),
    "triage walk": ("triage.yaml", ""),
    "rerun plan written over": ("rerun-plan.yaml", "- {case: old, direction: b}\n"),
}


def _every_change_is_in(kind: str, text: str) -> None:
    data: Any = yaml.safe_load(text)
    everyone = set(range(WRITERS))
    if kind == "suite retire":
        assert {c["case"] for c in data["archive"]} == {f"c{w}" for w in everyone}
        assert len(data["cases"]) == CASES - WRITERS
        assert text.startswith("# the suite's record\n")
    elif kind == "flaky add":
        assert {e["case"] for e in data["entries"]} == {f"case-{w:03d}" for w in everyone}
    elif kind == "flaky remove":
        assert data["entries"] == []
        assert {e["case"] for e in data["retired"]} == {f"case-{w:03d}" for w in everyone}
    elif kind == "triage walk":
        assert {w["baseline"]["run_id"] for w in data["walks"]} == {f"base-{w}" for w in everyone}
    else:  # replaced whole: one writer's plan, never a mix of two
        assert text in {_plan(w) for w in everyone}


@pytest.mark.parametrize("kind", list(FILES))
def test_writers_at_once_each_keep_their_change(
    kind: str, writers: ProcessPoolExecutor, tmp_path: Path
) -> None:
    name, content = FILES[kind]
    for round_ in range(ROUNDS):
        folder = tmp_path / f"round-{round_}"
        (folder / "go").mkdir(parents=True)
        target = folder / name
        if content:
            target.write_text(content)
        jobs = [writers.submit(_write, kind, str(target), w) for w in range(WRITERS)]
        said = [job.result(timeout=120) for job in jobs]
        assert not [s for s in said if s.startswith("refused")], said
        _every_change_is_in(kind, target.read_text())
        assert sorted(p.name for p in folder.iterdir()) == sorted(["go", name])


# --------------------------------------------------------------------------- signals

STALLED_WRITER = """
import sys, threading, time
import flipgate.core.io.atomic as atomic

real = atomic._write_synced

def stalled(fd, payload):
    real(fd, payload)
    print("staged", flush=True)
    time.sleep(60)

atomic._write_synced = stalled
if sys.argv[1] == "thread":  # as the app writes: in a worker, the main thread waiting
    from datetime import date
    from pathlib import Path
    from flipgate.core.suite.manifest import retire

    atomic.remove_on_signals()  # as the console script does first
    worker = threading.Thread(
        target=retire, args=(Path(sys.argv[2]) / "suite.yaml", "c1", "gone", date.today())
    )
    worker.start()
    worker.join()
else:
    from flipgate.launch import run

    sys.argv = ["flipgate", "suite", "retire", "c1", "--reason", "gone", "-w", sys.argv[2]]
    run()
"""


@pytest.mark.parametrize(
    ("how", "sent", "status"),
    [
        ("command", signal.SIGTERM, -signal.SIGTERM),
        ("command", signal.SIGINT, 130),
        ("thread", signal.SIGTERM, -signal.SIGTERM),
    ],
)
def test_a_signal_mid_write_leaves_the_file_and_nothing_beside_it(
    tmp_path: Path, how: str, sent: signal.Signals, status: int
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    manifest = workspace / "suite.yaml"
    manifest.write_text(_manifest())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", STALLED_WRITER, how, str(workspace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "staged\n"
        staged = sorted(p.name for p in workspace.iterdir())
        assert len(staged) == 3 and ".suite.yaml.lock" in staged  # the copy, the lock
        child.send_signal(sent)
        assert child.wait(timeout=60) == status, child.stderr.read() if child.stderr else ""
    finally:
        child.kill()
        child.communicate()
    assert [p.name for p in workspace.iterdir()] == ["suite.yaml"]
    assert manifest.read_text() == _manifest()
