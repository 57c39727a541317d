"""`flipgate rank`: its exit codes, its two ways of naming the runs, bad input (its golden files:
tests/present/test_golden.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from flipgate.cli import main
from tests.conftest import PROMPTFOO_LOGS, SAMPLES, copy_sample, passfail_rows, write_run

SAMPLE = "sample_runs/winner-rule"


@pytest.fixture(autouse=True)
def beside_the_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES.parent)  # paths in the output are as the user typed them: relative


def test_the_sample_names_the_three_labels_apart(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rank", SAMPLE]) == 0
    out = capsys.readouterr().out
    assert "highest mean: MERGE (0.500, 6 of 12 cells)" in out
    assert "winner by the release key: CLAUDE (2 of 6 cases" in out
    assert "clears the incumbent: yes" in out
    assert "the mean and the release key disagree" in out


def test_runs_on_the_command_line_are_named_by_run_id(capsys: pytest.CaptureFixture[str]) -> None:
    w = Path(SAMPLE)
    code = main(
        [
            "rank",
            str(w / "baseline"),
            str(w / "candidates/MERGE"),
            str(w / "candidates/CLAUDE"),
            "--gate",
            str(w / "gate.yaml"),
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["labels"]["winner"] == "wr-claude"
    assert [c["name"] for c in data["candidates"]] == ["wr-claude", "wr-merge"]


def test_no_candidate_that_may_replace_the_incumbent_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    w = Path(SAMPLE)
    # MERGE alone wins, and ties the incumbent's one fully resolved case.
    code = main(
        ["rank", str(w / "baseline"), str(w / "candidates/MERGE"), "--gate", str(w / "gate.yaml")]
    )
    assert code == 1
    assert "clears the incumbent: no (wr-merge passes 1 case and ties" in capsys.readouterr().out


def test_the_default_gate_is_the_workspace_s(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Without the workspace's gate.yaml the default majority collapse applies: the same counts on
    # two repetitions, but the JSON says which rule it used.
    w = Path(SAMPLE)
    main(["rank", str(w / "baseline"), str(w / "candidates/CLAUDE"), "--format", "json"])
    rule = json.loads(capsys.readouterr().out)["release_rule"]
    assert rule["ordinary"] == "majority" and "strict majority" in rule["message"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "nowhere: no such workspace"),
        (["sample_runs/listing-reviewer"], "not a campaign workspace"),
        ([f"{SAMPLE}/baseline"], "or the runs, INCUMBENT CANDIDATE [CANDIDATE ...]"),
        ([SAMPLE, f"{SAMPLE}/candidates/MERGE"], "a workspace stands alone"),
        ([f"{SAMPLE}/baseline", "missing-run"], "missing-run: no such run"),
    ],
)
def test_bad_input_exits_2_naming_the_file(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rank", *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""


def test_a_bad_line_in_a_candidate_names_its_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = tmp_path / "campaign"
    copy_sample("winner-rule", workspace)
    results = workspace / "candidates/MERGE/results.jsonl"
    results.write_text(results.read_text() + '{"case": "i7", "rep": -1, "passed": true}\n')
    assert main(["rank", str(workspace)]) == 2
    captured = capsys.readouterr()
    assert f"{results}:13: field 'rep'" in captured.err and captured.out == ""


def test_two_candidates_with_one_run_id_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = passfail_rows({"a": [True]})
    incumbent = write_run(tmp_path / "incumbent", rows)
    one, two = (write_run(tmp_path / name, rows, run_id="same") for name in ("one", "two"))
    assert main(["rank", str(incumbent), str(one), str(two)]) == 2
    assert "two candidates are named 'same'" in capsys.readouterr().err


def test_untrusted_names_are_shown_literally(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = passfail_rows({"a": [True]})
    incumbent = write_run(tmp_path / "incumbent", rows)
    hostile = write_run(tmp_path / "hostile", rows, run_id="[bold red]x\x1b[2J|<b>*")
    assert main(["rank", str(incumbent), str(hostile)]) == 1
    text = capsys.readouterr().out
    assert "[bold red]x␛[2J|<b>*" in text and "\x1b[2J" not in text
    main(["rank", str(incumbent), str(hostile), "--format", "markdown"])
    md = capsys.readouterr().out
    assert "\\[bold red\\]x" in md and "&lt;b&gt;" in md and "\\|" in md


def test_open_on_a_campaign_starts_the_app_which_reads_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import flipgate.tui.factory
    from flipgate.tui.campaign import CampaignApp
    from tests.cli.headless import until_loaded

    started: list[object] = []

    def run_app(app: CampaignApp) -> int:
        started.append(app)
        return until_loaded(app)  # the app reads the campaign in its worker

    monkeypatch.setattr(flipgate.tui.factory, "run_app", run_app)
    assert main(["open", SAMPLE]) == 0
    [app] = started
    assert isinstance(app, CampaignApp) and app.campaign is not None
    assert [name for name, _ in app.campaign.candidates] == ["CLAUDE", "HURRIED", "MERGE"]

    workspace = tmp_path / "campaign"
    copy_sample("winner-rule", workspace)
    results = workspace / "candidates/HURRIED/results.jsonl"
    results.write_text("not json\n")
    assert main(["open", str(workspace)]) == 2  # found while the app loads: it ends the app
    assert f"{results}:1" in capsys.readouterr().err and len(started) == 2


def test_logs_are_read_with_the_importers_options(capsys: pytest.CaptureFixture[str]) -> None:
    logs = [str(PROMPTFOO_LOGS / arm / "results.json") for arm in ("baseline", "candidate")]
    assert main(["rank", *logs, "--format", "json"]) == 1
    both_prompts = json.loads(capsys.readouterr().out)
    assert main(["rank", *logs, "--select", "prompt=terse", "--format", "json"]) == 1
    terse = json.loads(capsys.readouterr().out)
    # both prompts of each file are cases apart; --select keeps one prompt's
    assert (both_prompts["cases"], terse["cases"]) == (40, 20)
    assert terse["candidates"][0]["name"].endswith(":prompt=terse")


@pytest.mark.parametrize(
    ("gate", "code", "winner", "clearance"),
    [
        ("at-least-4", 1, "CLAUDE", "below_minimum"),  # resolves 2 of the 4 asked
        ("by-mean", 0, "MERGE", "clears"),  # 6/12 above the incumbent's 4/12
        ("three-repetitions", 1, None, "no_complete_candidate"),  # each ran two
    ],
)
def test_the_samples_release_settings(
    gate: str, code: int, winner: str | None, clearance: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/rank.md's worked examples, one gate file each in sample_runs/winner-rule/gates/."""
    args = ["rank", SAMPLE, "--gate", f"{SAMPLE}/gates/{gate}.yaml", "--format", "json"]
    assert main(args) == code
    data = json.loads(capsys.readouterr().out)
    assert data["labels"]["winner"] == winner
    assert data["labels"]["clearance"]["code"] == clearance


def test_hurried_is_said_to_be_passed_over_in_every_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 26, defect 1: HURRIED's key, 3, is the best, and it is incomplete."""
    for fmt in ("text", "markdown"):
        assert main(["rank", SAMPLE, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "HURRIED is incomplete (1 repetition missing)" in out
    assert "| HURRIED | ✗ incomplete |" in out  # the Markdown table (the text one wraps by width)
    assert main(["rank", SAMPLE, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["passed_over"]] == ["HURRIED"]


def test_a_candidate_run_once_cannot_replace_the_incumbent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26, defect 2: CLAUDE from winner-rule, its first repetition only, would resolve 3."""
    once = tmp_path / "once"
    shutil.copytree(Path(SAMPLE) / "candidates" / "CLAUDE", once)
    lines = (once / "results.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line).get("rep", 0) == 0]
    (once / "results.jsonl").write_text("\n".join(kept) + "\n")
    args = ["rank", f"{SAMPLE}/baseline", str(once), "--gate", f"{SAMPLE}/gate.yaml"]
    assert main([*args, "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (claude,) = data["candidates"]
    assert claude["release_key"] == 3 and not claude["complete"]
    assert claude["gaps"]["missing_reps"] == 6 and data["repetitions"] == 12
