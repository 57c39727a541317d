"""`flipgate flaky propose|add|remove|check`, through the command line's `main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from flipgate.cli import main


def flaky(*argv: str | Path) -> int:
    return main(["flaky", *map(str, argv)])


def write_run(folder: Path, run_id: str, failing: set[str], key: str = "m1") -> Path:
    """40 cases x 3 repetitions; `failing` cases fail every repetition; case-039 is safety."""
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text(f"run_id: {run_id}\nkey: {{model: {key}}}\n")
    lines = [
        json.dumps(
            {"case": case, "rep": rep, "passed": case not in failing, "safety": case == "case-039"}
        )
        for case in (f"case-{i:03d}" for i in range(40))
        for rep in range(3)
    ]
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n")
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write_run(ws / "baseline", "base", {"case-003"})
    write_run(ws / "candidate", "cand", set())
    write_run(ws / "baseline-repeats" / "run-2", "base-r2", {"case-007", "case-039"})
    write_run(ws / "baseline-repeats" / "run-3", "base-r3", {"case-003"})
    return ws


def test_propose_json_from_a_workspace(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert flaky("propose", "-w", workspace, "--owner", "qa", "--format", "json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"] == ["base", "base-r2", "base-r3"]
    assert [(p["case"], p["flips"], p["owner"]) for p in out["proposals"]] == [
        ("case-003", 2, "qa"),
        ("case-007", 2, "qa"),
    ]
    assert out["proposals"][0]["evidence"] == (
        "flipped in 2 of 3 identical baseline runs: base fail, base-r2 pass, base-r3 fail"
    )
    assert [f["case"] for f in out["safety_findings"]] == ["case-039"]
    assert (out["cap"], out["slots_left"]) == (2, 2)


def test_propose_text_names_the_safety_finding(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = [workspace / "baseline", *sorted((workspace / "baseline-repeats").iterdir())]
    assert flaky("propose", *runs) == 0
    out = capsys.readouterr().out
    assert "Proposed entries (2):" in out
    assert "Safety cases that flipped (1)" in out and "case-039" in out
    assert "\x1b[" not in out  # no colour when not a terminal


def test_propose_refuses_runs_of_different_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a", "a", set())
    b = write_run(tmp_path / "b", "b", set(), key="m2")
    assert flaky("propose", a, b) == 2
    assert "key model is m2 in b but m1 in a" in capsys.readouterr().err


def test_add_measures_the_evidence_then_remove_retires(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = workspace / "flaky.yaml"
    assert flaky("add", "case-007", "-w", workspace, "--owner", "sam", "--reason", "order") == 0
    assert "1 of 2 slots left" in capsys.readouterr().out
    (entry,) = yaml.safe_load(path.read_text())["entries"]
    assert entry["evidence"] == (
        "flipped in 2 of 3 identical baseline runs: base pass, base-r2 fail, base-r3 pass"
    )
    assert flaky("remove", "case-007", "-w", workspace, "--note", "sorted", "--by", "lee") == 0
    data = yaml.safe_load(path.read_text())
    assert data["entries"] == []
    assert data["retired"][0]["history"][-1]["by"] == "lee"


def test_add_refusals_exit_2_and_write_nothing(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = workspace / "flaky.yaml"
    base: list[str | Path] = ["-w", workspace, "--owner", "sam", "--reason", "r", "--evidence", "e"]
    assert flaky("add", "case-039", *base) == 2
    assert "safety case" in capsys.readouterr().err
    assert flaky("add", "case-777", *base) == 2
    assert "unknown case 'case-777'" in capsys.readouterr().err
    assert flaky("add", "case-010", "-w", workspace, "--owner", "sam", "--reason", "r") == 2
    assert "--evidence is required" in capsys.readouterr().err
    assert not path.exists()
    assert flaky("add", "case-001", *base) == 0
    assert flaky("add", "case-002", *base) == 0
    before = path.read_bytes()
    assert flaky("add", "case-004", *base) == 2
    assert "2 listed, cap 2 (5% of 40 cases), 0 slots left" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_check_exits_1_on_a_gone_entry(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "flaky.yaml").write_text(
        "entries:\n"
        "  - {case: case-003, owner: a, added: 2026-11-01, reason: r, evidence: e}\n"
        "  - {case: case-404, owner: b, added: 2026-11-01, reason: r, evidence: e}\n"
    )
    assert flaky("check", "-w", workspace, "--format", "json") == 1
    out = json.loads(capsys.readouterr().out)
    assert [e["flags"] for e in out["entries"]] == [["flipped in this run"], ["gone"]]
    assert out["problems"] == ["case-404: gone from the suite"]
