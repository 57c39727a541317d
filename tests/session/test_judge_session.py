"""Judge repeats through the session (issue 23 item 2): a workspace's `rejudged/` is read beside
the runs, measured in `gate`, and the same figures reach the report, the JSON and the app."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import flipgate.tui.factory as factory
from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.present.report import to_json, to_markdown, to_text
from flipgate.session import GateRequest, gate, read
from flipgate.tui.app import GateApp
from flipgate.tui.messages import Loaded
from tests.conftest import write_run

CASES = [f"c{i:02d}" for i in range(40)]
CHANGED, MODEL = {"model": "m2", "prompt": "p1"}, {"keys": ["model"]}
MOVED = {"c01", "c02", "c03", "c04"}  # the judge's second pass fails these: 4 of 40 outputs


def rows(failing: set[str]) -> list[dict[str, object]]:
    return [
        {"case": c, "rep": 0, "passed": {"correct": c not in failing}, "output": f"{c} answer"}
        for c in CASES
    ]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write_run(tmp_path / "baseline", rows(set()), run_id="base")
    write_run(tmp_path / "candidate", rows({"c05"}), run_id="cand", key=CHANGED, change=MODEL)
    # `inspect score` keeps the log's run id: a pass is named by its folder
    write_run(tmp_path / "rejudged" / "baseline" / "pass-1", rows(MOVED), run_id="base")
    return tmp_path


def test_the_judge_alone_reaches_the_report_the_json_and_the_app(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    comparison = gate(read(GateRequest.of([workspace])))
    [repeats] = comparison.judge_repeats
    assert (repeats.arm, repeats.passes) == ("baseline", ("base", "pass-1"))
    [rate] = repeats.rules
    assert (rate.outputs, rate.flipped) == (40, 4)
    assert repeats.unstable_cases == tuple(sorted(MOVED))

    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(to_text(comparison))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "the judge alone  baseline, judged 2 times (the run and 1 rejudging" in text
    assert "correct: 4 of 40 outputs flipped (10%, 95% CI 2.79% to 23.7%)" in text
    assert "4 cases unstable under the judge alone: c01, c02, c03, c04" in text
    assert "correct: 4 of 40 outputs flipped" in to_markdown(comparison)

    assert main(["gate", str(workspace), "--format", "json"]) != 2
    printed = json.loads(capsys.readouterr().out)
    assert printed["judge_repeats"] == json.loads(json.dumps(to_json(comparison)["judge_repeats"]))
    [arm] = printed["judge_repeats"]
    assert arm["rules"][0]["flipped"] == 4 and arm["rules"][0]["method"] == "clopper_pearson"
    assert [u["case"] for u in arm["unstable"]] == sorted(MOVED)

    started: list[GateApp] = []

    def run_app(app: GateApp) -> int:
        started.append(app)
        return 0

    monkeypatch.setattr(factory, "run_app", run_app)
    assert main(["open", str(workspace)]) == 0
    loaded = started[0].read()
    assert isinstance(loaded, Loaded)
    assert loaded.comparison.judge_repeats == comparison.judge_repeats


def test_a_rejudging_of_other_outputs_is_refused_naming_the_pass(workspace: Path) -> None:
    changed = rows(set())
    changed[3]["output"] = "a new answer"
    write_run(workspace / "rejudged" / "candidate" / "pass-1", changed, key=CHANGED, change=MODEL)
    with pytest.raises(InputError) as refused:
        gate(read(GateRequest.of([workspace])))
    assert refused.value.path.name == "pass-1" and refused.value.line == 4


def test_no_such_rejudged_folder_is_bad_input(workspace: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        GateRequest.of([workspace], rejudged=workspace / "nowhere")


def test_flaky_propose_rejudged_proposes_the_judges_unstable_cases(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["flaky", "propose", "--rejudged", "-w", str(workspace), "--format", "json"]) == 0
    proposal = json.loads(capsys.readouterr().out)
    assert proposal["judge_alone"] and proposal["runs"] == ["base", "pass-1"]
    # the cap is 5% of 40 cases: two slots; every unstable case is proposed, two fit
    assert [(p["case"], p["fits"]) for p in proposal["proposals"]] == [
        ("c01", True),
        ("c02", True),
        ("c03", False),
        ("c04", False),
    ]
    assert proposal["proposals"][0]["evidence"] == (
        "verdict flipped in 1 of 2 judgings of the same stored outputs (judge alone): pass, "
        "fail (correct 4/40 outputs flipped)"
    )
    assert main(["flaky", "propose", "--rejudged", "-w", str(workspace)]) == 0
    printed = capsys.readouterr().out
    assert "2 judgings of one run's stored outputs: base, pass-1" in printed
    assert "judge alone" in printed


def test_flaky_propose_rejudged_without_a_pass_is_bad_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_run(tmp_path / "baseline", rows(set()))
    write_run(tmp_path / "candidate", rows(set()))
    assert main(["flaky", "propose", "--rejudged", "-w", str(tmp_path)]) == 2
    assert "at least one judging pass" in capsys.readouterr().err
