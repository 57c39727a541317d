"""`flipgate power` and `flipgate calibrate` as a user calls them, through `flipgate.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.cli import main
from tests.conftest import copy_sample


def run_json(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> dict[str, Any]:
    assert main([*map(str, argv), "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


# --------------------------------------------------------------------------- power


def test_power_prints_seed_001_s_figures(capsys: pytest.CaptureFixture[str]) -> None:
    figures = run_json(
        capsys,
        "power",
        "--regression",
        "4",
        "--unpaired",
        "184/200",
        "176/200",
        "--threshold",
        "90%",
        "--case-rate",
        "0.9",
    )
    assert figures["unpaired"]["p_two_sided"] == pytest.approx(0.18, abs=0.005)
    assert figures["unpaired"]["points"] == pytest.approx(-4.0)
    (needed,) = figures["cases_needed"]
    assert needed["unpaired_two_sided"] == 882
    assert needed["paired"] < needed["unpaired_one_sided"] < needed["unpaired_two_sided"]
    assert figures["repetitions"]["majority"] == pytest.approx(0.972)
    assert figures["repetitions"]["all"] == pytest.approx(0.729)


def test_power_on_a_small_suite_and_a_coin_flip(capsys: pytest.CaptureFixture[str]) -> None:
    figures = run_json(capsys, "power", "--cases", "50", "--threshold", "0.9", "--case-rate", "0.5")
    assert figures["threshold"]["below"] == pytest.approx(0.21, abs=0.005)
    assert figures["repetitions"]["any"] == pytest.approx(0.875)
    chances = figures["chances"]
    assert [c["points"] for c in chances] == [1, 2, 3, 5]
    assert all(c["block"] + c["inconclusive"] + c["pass"] == pytest.approx(1) for c in chances)
    assert [c["block"] for c in chances] == sorted(c["block"] for c in chances)


def test_power_reads_the_gate_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gate = tmp_path / "gate.yaml"
    gate.write_text("alpha: 0.01\nsets: {smoke: {margin: 0, flip_cap: 2}}\n")
    figures = run_json(capsys, "power", "--gate", gate, "--suite", "smoke")
    assert figures["rule"] == {
        "alpha": 0.01,
        "look": 1,
        "boundary": 0.005,  # the first look spends half of alpha
        "test": "exact",
        "margin": 0,
        "flip_cap": 2,
    }
    later = run_json(capsys, "power", "--gate", gate, "--suite", "smoke", "--look", "2")
    assert later["rule"]["boundary"] == 0.0025


def test_power_plans_repetitions_and_allows_for_clones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """15% of cases unstable at 80% a run: more repetitions leave less noise and need fewer
    cases; clones (design effect 2) need about twice as many."""
    figures = run_json(
        capsys, "power", "--regression", "3", "--unstable-share", "0.15", "--case-rate", "0.8"
    )
    rows = figures["plan"]["regressions"][0]["reps"]
    assert [row["reps"] for row in rows] == [1, 3, 5]
    assert rows[0]["flip_share"] == pytest.approx(0.15 * 2 * 0.8 * 0.2)
    cases = [row["cases"] for row in rows]
    assert cases == sorted(cases, reverse=True)
    assert all(row["runs"] == 2 * row["reps"] * row["cases"] for row in rows)
    plain = figures["cases_needed"][0]["paired"]
    cloned = run_json(capsys, "power", "--regression", "3", "--design-effect", "2")
    assert cloned["design_effect"] == 2 and cloned["cases_needed"][0]["paired"] >= 2 * plain - 2


@pytest.mark.parametrize(
    "argv",
    [
        ["--flip-share", "2"],
        ["--unpaired", "5/4", "1/4"],
        ["--cases", "0"],
        # Each was a traceback (a division by zero, a math domain error) or "--3 points".
        ["--regression", "0"],
        ["--regression", "-3"],
        ["--regression", "100"],
        ["--target", "1"],
        ["--target", "0"],
        ["--pass-rate", "0.01", "--regression", "5"],
        ["--pass-rate", "0"],
        ["--design-effect", "0.5"],
        ["--look", "0"],
        ["--unstable-share", "0.2", "--plan-reps", "0"],
        # Issue 28 item 14: a 1 TiB allocation, and a table of log-factorials as long
        ["--cases", "100000000000"],
        ["--case-rate", "0.9", "--reps", "1000000000"],
        ["--unstable-share", "0.2", "--plan-reps", "3", "1000000000"],
    ],
)
def test_power_refuses_bad_numbers(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["power", *argv])
    except SystemExit as exit:  # argparse's own refusal
        code = int(exit.code or 0)
    assert code == 2
    assert "error:" in capsys.readouterr().err


def test_power_prices_a_threshold_and_repetitions_past_a_thousand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 28 item 14: math.comb(n, j) past 1,030 trials is no float: a fixed threshold on a
    suite of 5,000 cases and 1,100 repetitions of a case were tracebacks."""
    argv = ["--threshold", "0.9", "--cases", "5000", "--case-rate", "0.6", "--reps", "1100"]
    assert main(["power", *argv, "--format", "json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    # sd of the pass share 0.0038: 90% is 5.2 sd below 92%, and 60% of 1,100 is 6.6 sd above half
    assert 0 < figures["threshold"]["below"] < 1e-6
    assert figures["repetitions"]["majority"] == pytest.approx(1.0, abs=1e-9)


# --------------------------------------------------------------------------- calibrate


@pytest.fixture
def agent_suite(tmp_path: Path) -> Path:
    return copy_sample("agent-suite", tmp_path / "agent-suite")


def test_calibrate_a_workspace_prints_the_proposal_and_writes_nothing(
    agent_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(agent_suite.rglob("*"))
    report = run_json(capsys, "calibrate", agent_suite)
    assert report["comparisons"] == 6  # three runs, every ordered pair
    assert {(p["b"], p["c"]) for p in report["pairs"]} == {
        (2, 0),
        (1, 0),
        (0, 2),
        (1, 2),
        (0, 1),
        (2, 1),
    }
    assert report["largest_one_way"] == 2
    assert report["false_block"] == 0 and report["false_inconclusive"] == 0
    assert report["flipped"] == ["case-033", "case-104", "case-183"]  # the listed ones left out
    assert report["written"] is None
    chosen = report["proposed"]
    proposed = {"margin": chosen["margin"], "flip_cap": chosen["flip_cap"]}
    assert yaml.safe_load(report["proposal"])["sets"]["full"] == proposed
    evidence = [line for line in report["proposal"].splitlines() if line.startswith("#")]
    assert evidence[0].startswith("# Proposed by `flipgate calibrate` on ")  # present's words
    assert evidence[4].startswith("# full: margin 2 -> 4, flip cap 10 -> 5: what a change")
    assert evidence[6].startswith("# proposed: margin 4, flip cap 5: with no change false BLOCK")
    # 2 of 198 paired cases flip, at most 2.6% at 95%: b - c stays within 4, b within 5, each 95%
    assert report["noise"]["flip_share"] == pytest.approx(2 / 198)
    assert (chosen["margin"], chosen["flip_cap"]) == (4, 5)
    assert [row["points"] for row in chosen["pass"]] == [2.0, 3.0, 5.0]
    assert report["current"]["false_inconclusive"] > chosen["false_inconclusive"]
    assert main(["calibrate", str(agent_suite)]) == 0
    said = capsys.readouterr().out
    assert "proposed spec (written nowhere; --out FILE writes it):" in said
    assert "# Review it, then replace gate.yaml in a change of its own" in said
    assert sorted(agent_suite.rglob("*")) == before


def test_calibrate_writes_the_proposal_to_a_new_file_only(
    agent_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (agent_suite / "gate.yaml").read_bytes()
    out = tmp_path / "gate.calibrated.yaml"
    report = run_json(capsys, "calibrate", agent_suite, "--out", out)
    assert Path(report["written"]) == out and out.read_text() == report["proposal"]
    chosen = report["proposed"]
    proposed = {"margin": chosen["margin"], "flip_cap": chosen["flip_cap"]}
    assert yaml.safe_load(out.read_text())["sets"]["full"] == proposed
    assert (agent_suite / "gate.yaml").read_bytes() == before
    # Again: never over the first.
    assert main(["calibrate", str(agent_suite), "--out", str(out)]) == 2
    assert "already exists: the proposal goes to a new file" in capsys.readouterr().err


def test_calibrate_never_writes_over_gate_yaml(
    agent_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = agent_suite / "gate.yaml"
    before = gate.read_bytes()
    assert main(["calibrate", str(agent_suite), "--out", str(gate)]) == 2
    assert "never replaces the gate spec itself: give --out another file" in capsys.readouterr().err
    assert gate.read_bytes() == before


def test_calibrate_refuses_runs_of_different_systems(
    agent_suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["calibrate", str(agent_suite / "baseline"), str(agent_suite / "candidate")])
    assert code == 2
    err = capsys.readouterr().err
    assert "not an identical baseline run" in err and "key.prompt" in err
    assert not list(agent_suite.glob("gate.calibrated*"))


def test_calibrate_needs_two_runs(agent_suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", str(agent_suite / "baseline")]) == 2
    assert "give at least 2 identical baseline runs" in capsys.readouterr().err


def test_a_run_id_cannot_write_settings_into_the_proposal(
    agent_suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28 item 6: the run ids went raw into the proposal's `#` header, so a line break in
    one added settings to the file the team is told to review and adopt; ESC went in raw."""
    manifest = agent_suite / "baseline" / "run.yaml"
    data = yaml.safe_load(manifest.read_text())
    data["run_id"] = "main\nsmuggled: {max_share: 1.0}\r\u2028\x1b[2J\u0085\u202e"
    manifest.write_text(yaml.safe_dump(data))
    out = tmp_path / "gate.calibrated.yaml"
    assert main(["calibrate", str(agent_suite), "--out", str(out)]) == 0
    capsys.readouterr()
    text = out.read_text()
    assert "smuggled" not in yaml.safe_load(text)
    assert not {"\x1b", "\u2028", "\r", "\u202e"} & set(text)
    assert "main\\nsmuggled: {max_share: 1.0}\\r\\u2028\\x1b[2J\\x85\\u202e" in text.splitlines()[0]
