"""`flipgate gate --ledger` and `flipgate history` (issue 24 items 2 and 3): every gate of a change
appended as an attempt and judged with the earlier ones; a PASS after a BLOCK or INCONCLUSIVE of
the same change refused, except the escalation seed 001 prescribes; two gates at once, both kept.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flipgate.cli import main
from flipgate.core.attempts.entry import chained, digest_of, parse_attempt
from tests.conftest import passfail_rows, write_run

CASES = [f"c{i:02d}" for i in range(40)]
KEY = {"model": "m1", "prompt": "p1"}
FLIPGATE = (sys.executable, "-m", "flipgate")


def pair(ws: Path, broken: int, fixed: int = 0, *, run: str = "cand-1", **manifest: Any) -> Path:
    """A workspace whose candidate breaks `broken` cases and fixes `fixed` (of 40, 3 reps each)."""
    base = {case: [i < 40 - fixed] * 3 for i, case in enumerate(CASES)}
    cand = {case: [i >= broken] * 3 for i, case in enumerate(CASES)}
    shutil.rmtree(ws / "candidate", ignore_errors=True)
    write_run(ws / "baseline", passfail_rows(base), run_id="base-1", key=KEY)
    manifest.setdefault("key", KEY)
    write_run(ws / "candidate", passfail_rows(cand), run_id=run, **manifest)
    return ws


def gate(ws: Path, *extra: str, ledger: Path | str) -> tuple[int, dict[str, Any], str]:
    """`flipgate gate WS --ledger LEDGER --format json`, in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["gate", str(ws), "--ledger", str(ledger), "--format", "json", *extra])
    return code, json.loads(out.getvalue()) if out.getvalue().strip() else {}, err.getvalue()


def history(ledger: Path | str, *extra: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["history", "--ledger", str(ledger), "--format", "json", *extra]) == 0
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def test_every_gate_is_an_attempt_and_a_pass_after_a_block_is_refused(tmp_path: Path) -> None:
    ws, ledger = tmp_path / "ws", tmp_path / "attempts.sqlite"
    code, report, said = gate(pair(ws, broken=8), "--change-id", "pr-42", ledger=ledger)
    assert (code, report["verdict"]) == (1, "BLOCK")
    assert report["attempt"] == {
        "change_id": "pr-42", "attempt": 1, "look": 1, "earlier": [], "refusing": []
    }  # fmt: skip
    assert "attempt 1 of change pr-42 recorded (entry sha256:" in said
    # the same change, rerun: a fresh candidate run of the same system that happens to pass
    code, report, _ = gate(pair(ws, broken=0, run="cand-2"), "--change-id", "pr-42", ledger=ledger)
    assert (code, report["verdict"]) == (4, "INVALID")
    [reason] = report["invalid"]
    assert reason["code"] == "rerun_until_green"
    assert reason["message"].startswith(
        "rerun until green: attempt 2 of this change; the earlier attempts said BLOCK"
    )
    assert report["attempt"]["look"] == 2
    # a new change declared (another prompt: another system measured) may pass, at look 3
    moved = {**KEY, "prompt": "p2"}
    code, report, _ = gate(
        pair(ws, broken=0, run="cand-3", key=moved, change={"keys": ["prompt"]}),
        "--change-id",
        "pr-42",
        ledger=ledger,
    )
    assert (code, report["verdict"]) == (0, "PASS")
    assert report["attempt"]["earlier"] == ["BLOCK", "INVALID"]
    assert report["attempt"]["look"] == 3
    seen = history(ledger, "--change-id", "pr-42")
    [change] = seen["changes"]
    assert [(a["attempt"], a["verdict"]) for a in change["attempts"]] == [
        (1, "BLOCK"),
        (2, "INVALID"),
        (3, "PASS"),
    ]


def test_the_prescribed_escalations_are_not_rerunning_until_green(tmp_path: Path) -> None:
    ws, ledger = tmp_path / "ws", tmp_path / "attempts.sqlite"
    # smoke: 3 broke, 0 fixed, margin 1: INCONCLUSIVE, run the full set
    code, report, _ = gate(pair(ws, broken=3, suite="smoke"), ledger=ledger)
    assert (code, report["escalation"]["action"]) == (3, "run_full_set")
    code, report, _ = gate(pair(ws, broken=0, run="cand-full"), ledger=ledger)
    assert (code, report["verdict"]) == (0, "PASS")
    assert report["attempt"]["earlier"] == ["INCONCLUSIVE"] and not report["attempt"]["refusing"]

    # full: INCONCLUSIVE, then the flipped cases rerun on the same runs: the escalation
    other = tmp_path / "other.sqlite"
    pair(ws, broken=5, fixed=2)
    code, report, _ = gate(ws, ledger=other)
    assert (code, report["escalation"]["action"]) == (3, "rerun_flipped")
    flipped = [f["case"] for f in report["flipped"]]
    write_run(tmp_path / "rb", passfail_rows({c: [True] * 5 for c in flipped}), key=KEY)
    write_run(tmp_path / "rc", passfail_rows({c: [True] * 5 for c in flipped}), key=KEY)
    reruns = ["--rerun-baseline", str(tmp_path / "rb"), "--rerun-candidate", str(tmp_path / "rc")]
    code, report, _ = gate(ws, *reruns, ledger=other)
    assert (code, report["verdict"]) == (0, "PASS")
    assert report["attempt"]["look"] == 1  # the same runs: their first look again, then the rerun
    [change] = history(other)["changes"]
    assert [(a["verdict"], a["first_verdict"], a["looks"]) for a in change["attempts"]] == [
        ("INCONCLUSIVE", None, 1),
        ("PASS", "INCONCLUSIVE", 2),
    ]
    # but the full set gated again, with no rerun, is a rerun until green
    code, report, _ = gate(pair(ws, broken=0, run="cand-again"), ledger=other)
    assert report["invalid"][0]["code"] == "rerun_until_green"
    assert report["attempt"]["look"] == 3


def test_a_case_that_flips_in_many_changes_is_a_flaky_candidate(tmp_path: Path) -> None:
    ws, ledger = tmp_path / "ws", tmp_path / "attempts.sqlite"
    for change in ("pr-1", "pr-2", "pr-3"):
        gate(pair(ws, broken=1, run=f"cand-{change}"), "--change-id", change, ledger=ledger)
    gate(pair(ws, broken=2, run="cand-pr-4"), "--change-id", "pr-4", ledger=ledger)
    seen = history(ledger, "--case", "c00")
    assert seen["flaky_candidates"] == [
        {"case": "c00", "changes": 4, "pass_to_fail": 4, "fail_to_pass": 0}
    ]
    assert [g["flipped"] for g in seen["case"]["gates"]] == ["pass_to_fail"] * 4
    assert seen["case"]["flaky_candidate"]["changes"] == 4
    c01 = history(ledger, "--case", "c01")["case"]
    assert [g["flipped"] for g in c01["gates"]] == [None, None, None, "pass_to_fail"]
    assert c01["flaky_candidate"] is None


def test_two_gates_at_once_lose_no_attempt(tmp_path: Path) -> None:
    """Two `flipgate gate` processes on one change, started together: both recorded, the second
    judged with the first whichever wins the lock."""
    ledger = tmp_path / "attempts.sqlite"
    spaces = [pair(tmp_path / name, broken=8, run=f"cand-{name}") for name in ("a", "b")]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    jobs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flipgate",
                "gate",
                str(ws),
                "--ledger",
                str(ledger),
                "--change-id",
                "pr-7",
                "--format",
                "json",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for ws in spaces
    ]
    reports = []
    for job in jobs:
        out, err = job.communicate(timeout=300)
        assert job.returncode == 1, err
        reports.append(json.loads(out))
    assert sorted(r["attempt"]["attempt"] for r in reports) == [1, 2]
    [change] = history(ledger)["changes"]
    assert [a["attempt"] for a in change["attempts"]] == [1, 2]
    assert {a["runs"]["candidate"]["run_id"] for a in change["attempts"]} == {"cand-a", "cand-b"}


# --------------------------------------------------------------------------- tampering


@pytest.fixture
def three(tmp_path: Path) -> Path:
    """A ledger of three attempts on two changes."""
    ledger = tmp_path / "attempts.sqlite"
    ws = tmp_path / "ws"
    for run, change in (("r1", "pr-1"), ("r2", "pr-2"), ("r3", "pr-1")):
        gate(pair(ws, broken=8, run=run), "--change-id", change, ledger=ledger)
    return ledger


def tampered(ledger: Path, *statements: str) -> str:
    with sqlite3.connect(ledger) as db:
        for statement in statements:
            db.execute(statement)
    return _history_error(ledger)


def _history_error(ledger: Path) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["history", "--ledger", str(ledger)]) == 2
    return err.getvalue()


def test_a_changed_byte_is_caught(three: Path) -> None:
    flip = 'replace(entry, \'"verdict":"BLOCK"\', \'"verdict":"PASS"\')'
    said = tampered(three, f"UPDATE attempts SET entry = {flip} WHERE seq = 1")
    assert f"{three}: field 'prev': row 2: names the entry before it as sha256:" in said


def test_a_changed_byte_in_the_last_entry_is_caught(tmp_path: Path) -> None:
    """No entry names the last one: its own digest, kept beside it, does."""
    ledger = tmp_path / "attempts.sqlite"
    gate(pair(tmp_path / "ws", broken=8), ledger=ledger)
    flip = 'replace(entry, \'"verdict":"BLOCK"\', \'"verdict":"PASS"\')'
    said = tampered(ledger, f"UPDATE attempts SET entry = {flip} WHERE seq = 1")
    assert f"{ledger}: field 'digest': row 1: the digest column does not match the entry" in said


def test_a_removed_attempt_is_caught(three: Path) -> None:
    said = tampered(three, "DELETE FROM attempts WHERE seq = 2")
    assert "field 'prev': row 3" in said


def test_an_attempt_removed_and_the_chain_relinked_by_hand_is_caught(tmp_path: Path) -> None:
    """Whoever removes an attempt and relinks the next one to the one before (a chain that
    holds again) still leaves a hole in the change's numbers."""
    ledger, ws = tmp_path / "attempts.sqlite", tmp_path / "ws"
    for run in ("r1", "r2", "r3"):
        gate(pair(ws, broken=8, run=run), "--change-id", "pr-1", ledger=ledger)
    with sqlite3.connect(ledger) as db:
        [(first,), _, (third,)] = db.execute("SELECT entry FROM attempts ORDER BY seq").fetchall()
        last = parse_attempt(third, ledger, "row 3")
        relinked = chained(last, digest_of(first), last.attempt)
        db.execute("DELETE FROM attempts WHERE seq = 2")
        db.execute(
            "UPDATE attempts SET entry = ?, digest = ? WHERE seq = 3",
            (relinked.text(), relinked.digest),
        )
    said = _history_error(ledger)
    assert "field 'attempt': the attempts of 'pr-1' are numbered [1, 3]" in said


def test_a_reordered_entry_is_caught(three: Path) -> None:
    with sqlite3.connect(three) as db:
        rows = db.execute("SELECT seq, change_id, entry, digest FROM attempts").fetchall()
        (s1, c1, e1, d1), (s2, c2, e2, d2) = rows[0], rows[1]
        db.execute(
            "UPDATE attempts SET change_id=?, entry=?, digest=? WHERE seq=?", (c2, e2, d2, s1)
        )
        db.execute(
            "UPDATE attempts SET change_id=?, entry=?, digest=? WHERE seq=?", (c1, e1, d1, s2)
        )
    assert "field 'prev': row 1" in _history_error(three)


@pytest.mark.parametrize("what", ["garbage", "other database"])
def test_a_file_that_is_no_ledger_is_bad_input_and_is_left_alone(tmp_path: Path, what: str) -> None:
    ledger = tmp_path / "attempts.sqlite"
    if what == "garbage":
        ledger.write_bytes(b"not a database, just bytes\n" * 100)
    else:
        with sqlite3.connect(ledger) as db:
            db.execute("CREATE TABLE notes (body TEXT)")
    before = ledger.read_bytes()
    code, report, said = gate(pair(tmp_path / "ws", broken=0), ledger=ledger)
    assert (code, report) == (2, {})
    assert str(ledger) in said
    assert ("field 'flipgate'" in said) == (what == "other database")
    assert ledger.read_bytes() == before
