"""The shared ledger (issue 24 item 2): git notes under refs/notes/flipgate, on a real repository
with a bare remote in a temporary folder; two clones append, push and fetch, and each sees both.
Every git command here runs under the test's own identity and config (`isolated_git`)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from flipgate.cli import main
from tests.cli.test_attempts_cli import pair

REF = "refs/notes/flipgate"


def git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def clones(tmp_path: Path, isolated_git: Path) -> tuple[Path, Path]:
    """A bare remote holding one commit with a workspace, and two clones of it."""
    for name, value in (("user.name", "Test Runner"), ("user.email", "runner@example.com")):
        git(tmp_path, "config", "--global", name, value)
    git(tmp_path, "config", "--global", "init.defaultBranch", "main")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "init", "--quiet", str(seed))
    pair(seed / "ws", broken=8)
    git(seed, "add", ".")
    git(seed, "commit", "--quiet", "-m", "a workspace")
    git(seed, "push", "--quiet", str(remote), "main")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "--quiet", str(remote), str(clone))
    return a, b


def gate(clone: Path, ledger: str, *extra: str) -> tuple[int, dict[str, Any], str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["gate", str(clone / "ws"), "--ledger", ledger, "--format", "json", *extra])
    return code, json.loads(out.getvalue()) if out.getvalue().strip() else {}, err.getvalue()


def attempts(
    clone: Path, ledger: str, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, int, str]]:
    """(change, attempt, candidate run) of every attempt `flipgate history` shows in `clone`."""
    monkeypatch.chdir(clone)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["history", "--ledger", ledger, "--format", "json"]) == 0
    data = json.loads(out.getvalue())
    return sorted(
        (c["change_id"], a["attempt"], a["runs"]["candidate"]["run_id"])
        for c in data["changes"]
        for a in c["attempts"]
    )


def test_two_clones_append_push_and_fetch_and_each_sees_both(
    clones: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = clones
    code, report, said = gate(a, "git:origin", "--change-id", "pr-1")
    assert code == 1 and report["attempt"]["attempt"] == 1
    assert "attempt 1 of change pr-1 recorded" in said
    # b fetches a's attempt before judging its own: the second look at pr-1
    pair(b / "ws", broken=8, run="cand-b")
    code, report, _ = gate(b, "git:origin", "--change-id", "pr-1")
    assert report["attempt"] == {
        "change_id": "pr-1", "attempt": 2, "look": 2, "earlier": ["BLOCK"], "refusing": ["BLOCK"]
    }  # fmt: skip
    both = [("pr-1", 1, "cand-1"), ("pr-1", 2, "cand-b")]
    assert attempts(a, "git:origin", monkeypatch) == both
    assert attempts(b, "git:origin", monkeypatch) == both
    # the notes are on the commit checked out, and the remote holds them as any ref
    head = git(a, "rev-parse", "HEAD")
    assert git(a, "notes", "--ref", REF, "list").split() == [git(a, "notes", "--ref", REF,
                                                               "list", head), head]  # fmt: skip
    assert git(a, "ls-remote", "origin", REF).split()[0] == git(a, "rev-parse", REF)


def test_a_clone_s_own_attempts_are_kept_when_both_moved(
    clones: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """a appends without pushing; b appends and pushes; a, fetching, keeps its own on top."""
    a, b = clones
    assert gate(a, "git", "--change-id", "pr-1")[0] == 1  # local only
    pair(b / "ws", broken=8, run="cand-b")
    assert gate(b, "git:origin", "--change-id", "pr-2")[0] == 1
    expected = [("pr-1", 1, "cand-1"), ("pr-2", 1, "cand-b")]
    assert attempts(a, "git:origin", monkeypatch) == expected
    pair(a / "ws", broken=8, run="cand-a2")
    _, report, _ = gate(a, "git:origin", "--change-id", "pr-2")
    assert report["attempt"]["attempt"] == 2  # judged with b's attempt of pr-2
    everything = [*expected, ("pr-2", 2, "cand-a2")]
    assert attempts(b, "git:origin", monkeypatch) == everything
    # and by hand: git push and git fetch carry the ref like any other
    assert attempts(b, "git", monkeypatch) == everything


def test_fetched_and_pushed_by_hand(
    clones: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = clones
    assert gate(a, "git")[0] == 1
    git(a, "push", "--quiet", "origin", REF)
    git(b, "fetch", "--quiet", "origin", f"{REF}:{REF}")
    [(change, number, run)] = attempts(b, "git", monkeypatch)
    assert (number, run) == (1, "cand-1") and change.startswith("key:")


def test_a_notes_ref_that_is_not_ours_is_bad_input(clones: tuple[Path, Path]) -> None:
    a, _ = clones
    git(a, "notes", "--ref", REF, "add", "-m", "LGTM, shipped", "HEAD")
    before = git(a, "rev-parse", REF)
    code, report, said = gate(a, "git")
    assert (code, report) == (2, {})
    assert f"{REF}: field 'flipgate_attempt': the note on " in said
    assert "not a flipgate attempt" in said
    assert git(a, "rev-parse", REF) == before  # nothing written


def test_a_note_edited_by_hand_is_caught(clones: tuple[Path, Path]) -> None:
    a, _ = clones
    for run in ("r1", "r2"):
        pair(a / "ws", broken=8, run=run)
        gate(a, "git", "--change-id", "pr-1")
    first, second = git(a, "notes", "--ref", REF, "show", "HEAD").splitlines()
    edited = first.replace('"verdict":"BLOCK"', '"verdict":"PASS"')
    note = a.parent / "edited"
    note.write_text(f"{edited}\n{second}\n")
    git(a, "notes", "--ref", REF, "add", "-f", "-F", str(note), "HEAD")
    code, _, said = gate(a, "git", "--change-id", "pr-1")
    assert code == 2
    assert f"{REF}: field 'prev': the note on " in said and "line 2: names the entry" in said
    # a line removed: the next one's link breaks the same way
    git(a, "notes", "--ref", REF, "add", "-f", "-m", second, "HEAD")
    assert "line 1: names the entry before it as sha256:" in gate(a, "git")[2]
