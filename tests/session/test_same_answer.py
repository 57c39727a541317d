"""The same answer from every front end (issue 21): on every sample workspace, and with every
option that changes the comparison, `flipgate gate` prints the comparison that `flipgate open`
shows and that a campaign's overview shows for the same runs.

Each path is taken as a user takes it: the command line's `main`, the app that `flipgate open`
starts (its loading worker's and its re-gate worker's jobs), the campaign app that `flipgate
open` starts on a campaign holding the same runs (its ranking, then the candidate chosen). What
is compared is the whole JSON report (the run paths resolved: a campaign's candidate is a link
to the pair's run), and the flaky and retired sets each comparison was judged with.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import flipgate.cli.gate as gate_command
import flipgate.tui.factory as factory
from flipgate.cli import main
from flipgate.present.report import to_json
from flipgate.session import (
    Comparison,
    GateInputs,
    GateRequest,
    gate,
    gate_again,
    priced,
    read,
    read_again,
)
from flipgate.tui.app import GateApp
from flipgate.tui.campaign import CampaignApp
from flipgate.tui.messages import Loaded, Ranked
from tests.conftest import SAMPLES, copy_sample

PAIRS = ("agent-suite", "listing-reviewer", "listing-reviewer-decisive", "support-assistant")
CAMPAIGN = "winner-rule"
WORKSPACE_FILES = ("gate.yaml", "flaky.yaml", "suite.yaml", "baseline-repeats", "reruns")
CANDIDATE = "the-candidate"  # the pair's candidate, as a campaign names it
FIXTURES = Path(__file__).parents[1] / "fixtures"


# --------------------------------------------------------------------------- the three paths


def by_the_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]
) -> tuple[dict[str, Any], Comparison]:
    """`flipgate gate ARGS --format json`: what it printed, and the comparison it printed."""
    printed: list[Comparison] = []

    def recorded(inputs: GateInputs) -> tuple[Comparison, None]:
        printed.append(gate(inputs))
        return printed[-1], None

    monkeypatch.setattr(gate_command, "gate_and_record", recorded)
    code = main(["gate", *args, "--format", "json"])
    out, err = capsys.readouterr()
    assert code != 2, err
    [comparison] = printed
    return json.loads(out), comparison


def opened(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> GateApp:
    """The app `flipgate open ARGS` starts, the runs read and checked."""
    started: list[GateApp] = []

    def run_app(app: GateApp) -> int:
        started.append(app)
        return 0

    monkeypatch.setattr(factory, "run_app", run_app)
    assert main(["open", *args]) == 0
    [app] = started
    return app


def by_the_app(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> Comparison:
    """What the overview of `flipgate open ARGS` shows: the loading worker's answer, with the
    rerun plan priced as its dialog prices it when opened (the app gates without pricing)."""
    app = opened(monkeypatch, args)
    loaded = app.read()
    assert isinstance(loaded, Loaded)
    return priced(loaded.comparison, app.request.rerun_target)


def by_the_campaign(monkeypatch: pytest.MonkeyPatch, args: list[str], name: str) -> Comparison:
    """What the overview of candidate `name` shows in `flipgate open CAMPAIGN ARGS`."""
    app = opened(monkeypatch, args)
    assert isinstance(app, CampaignApp)
    assert isinstance(app.read(), Ranked)
    return priced(app.compare_candidate(name), app.request.rerun_target)


def as_campaign(workspace: Path, folder: Path, *, files: bool = True) -> Path:
    """A campaign holding the pair's runs (links to them) and, with `files`, its gate spec,
    flaky list and suite manifest (copies: git reads them at a revision) and its identical
    baseline runs and rerun results."""
    (folder / "candidates").mkdir(parents=True)
    (folder / "baseline").symlink_to(workspace / "baseline")
    (folder / "candidates" / CANDIDATE).symlink_to(workspace / "candidate")
    for name in WORKSPACE_FILES if files else ():
        if (workspace / name).is_dir():
            (folder / name).symlink_to(workspace / name)
        elif (workspace / name).exists():
            shutil.copy(workspace / name, folder / name)
    return folder


def assert_same(report: dict[str, Any], comparisons: dict[str, Comparison]) -> None:
    """Each comparison reports what the command line printed, judged with the same sets."""
    expected = resolved(report)
    for path, comparison in comparisons.items():
        got = resolved(to_json(comparison))
        if path == "campaign":  # a campaign reads no rejudged/ (docs/who-flipped.md says why)
            assert got["judge_repeats"] == [], path
            got["judge_repeats"] = expected["judge_repeats"]
        assert got == expected, path
    judged = {
        path: (c.flaky.cases, c.retired.names, c.retired.base) for path, c in comparisons.items()
    }
    assert len(set(judged.values())) == 1, judged


def resolved(report: dict[str, Any]) -> dict[str, Any]:
    """The report as JSON reads it, each run's path resolved."""
    plain: dict[str, Any] = json.loads(json.dumps(report))
    for run in plain["runs"].values():
        run["path"] = os.path.realpath(run["path"])
    return plain


# --------------------------------------------------------------------------- the options


@dataclass(frozen=True)
class Options:
    """Arguments that change the comparison; `make` writes what they name into a folder."""

    name: str
    make: Callable[[Path, Path, list[str]], list[str]]  # (workspace, folder, flipped) -> args
    workspace_files: bool = True  # False: the runs alone, no workspace around them


def spec_of(workspace: Path) -> dict[str, Any]:
    spec = workspace / "gate.yaml"
    loaded: dict[str, Any] = yaml.safe_load(spec.read_text()) if spec.exists() else {}
    return loaded


def written(path: Path, data: Any) -> str:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def manifest(retired: list[str]) -> dict[str, Any]:
    archived = {"intent": "any", "added": "2025-01-01", "retired": "2025-02-01", "reason": "test"}
    return {"suite": "test", "cases": [], "archive": [{"case": c, **archived} for c in retired]}


def entries(cases: list[str]) -> dict[str, Any]:
    entry = {"owner": "qa", "added": "2026-11-01", "reason": "noisy", "evidence": "2 of 4 runs"}
    return {"entries": [{"case": case, **entry} for case in cases]}


def clusters(workspace: Path, folder: Path, flipped: list[str]) -> list[str]:
    return ["--gate", written(folder / "gate.yaml", {**spec_of(workspace), "clusters": "template"})]


def flaky(workspace: Path, folder: Path, flipped: list[str]) -> list[str]:
    return ["--flaky", written(folder / "flaky.yaml", entries(flipped[:2]))]


def suite(workspace: Path, folder: Path, flipped: list[str]) -> list[str]:
    return ["--suite", written(folder / "suite.yaml", manifest(flipped[:1]))]


def base_files(workspace: Path, folder: Path, flipped: list[str]) -> list[str]:
    """A base whose gate was stricter, whose list was empty and whose suite retired nothing:
    every retirement and flaky entry here is the change's own."""
    strict = spec_of(workspace) | {"sets": {"full": {"margin": 0, "flip_cap": 10}}}
    return [
        *flaky(workspace, folder, flipped),
        *suite(workspace, folder, flipped),
        *("--base-gate", written(folder / "base-gate.yaml", strict)),
        *("--base-flaky", written(folder / "base-flaky.yaml", entries([]))),
        *("--base-suite", written(folder / "base-suite.yaml", manifest([]))),
    ]


OPTIONS = (
    Options("the workspace", lambda w, f, flipped: []),
    Options("the runs alone", lambda w, f, flipped: [], workspace_files=False),
    Options("--gate with clusters: template", clusters),
    Options("--flaky", flaky),
    Options("--suite", suite),
    Options("--base-gate, --base-flaky, --base-suite", base_files),
    Options("--change", lambda w, f, flipped: ["--change", "model", "--change", "judge"]),
)


@functools.cache
def flipped_cases(baseline: Path, candidate: Path) -> list[str]:
    """The cases that flipped between the two runs: the ones worth listing or retiring."""
    comparison = gate(read(GateRequest.of([baseline, candidate])))
    return [case for case, _ in comparison.result.flipped] or ["no-such-case"]


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: o.name)
@pytest.mark.parametrize("sample", PAIRS)
def test_a_pair_workspace_gives_one_answer(
    sample: str,
    options: Options,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    workspace = SAMPLES / sample
    runs = (
        [str(workspace)]
        if options.workspace_files
        else [str(workspace / "baseline"), str(workspace / "candidate")]
    )
    flipped = flipped_cases(workspace / "baseline", workspace / "candidate")
    given = options.make(workspace, tmp_path, flipped)
    campaign = as_campaign(workspace, tmp_path / "campaign", files=options.workspace_files)
    report, printed = by_the_cli(monkeypatch, capsys, [*runs, *given])
    assert_same(
        report,
        {
            "gate": printed,
            "open": by_the_app(monkeypatch, [*runs, *given]),
            "campaign": by_the_campaign(monkeypatch, [str(campaign), *given], CANDIDATE),
        },
    )


@pytest.mark.parametrize("options", OPTIONS[2:], ids=lambda o: o.name)
@pytest.mark.parametrize("candidate", ["CLAUDE", "HURRIED", "MERGE"])
def test_each_candidate_of_a_campaign_gives_one_answer(
    candidate: str,
    options: Options,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`gate INCUMBENT candidates/NAME` with the campaign's files named, `open` on the same,
    and the campaign's own overview of NAME."""
    workspace = SAMPLES / CAMPAIGN
    runs = [str(workspace / "baseline"), str(workspace / "candidates" / candidate)]
    runs += ["--gate", str(workspace / "gate.yaml"), "--flaky", str(workspace / "flaky.yaml")]
    flipped = flipped_cases(workspace / "baseline", workspace / "candidates" / candidate)
    given = options.make(workspace, tmp_path, flipped)
    report, printed = by_the_cli(monkeypatch, capsys, [*runs, *given])
    if "--flaky" in given:  # named twice: the last one counts, as argparse reads it
        runs = runs[:-2]
    assert_same(
        report,
        {
            "gate": printed,
            "open": by_the_app(monkeypatch, [*runs, *given]),
            "campaign": by_the_campaign(monkeypatch, [str(workspace), *given], candidate),
        },
    )


def test_rerun_results_give_one_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gate --rerun-*` and `open --rerun-*` apply them at once; the campaign's overview applies
    its `reruns/` when `l` asks (the re-gate worker's job)."""
    workspace = SAMPLES / "agent-suite"
    reruns = workspace / "reruns"
    given = [f"--rerun-{arm}={reruns / arm}" for arm in ("baseline", "candidate")]
    report, printed = by_the_cli(monkeypatch, capsys, [str(workspace), *given])
    assert report["previous"]["verdict"] == "INCONCLUSIVE"  # the rule applied twice
    campaign = opened(monkeypatch, [str(as_campaign(workspace, tmp_path / "campaign"))])
    assert isinstance(campaign, CampaignApp) and isinstance(campaign.read(), Ranked)
    first = campaign.compare_candidate(CANDIDATE)
    campaign.inputs = campaign.campaign.pair(CANDIDATE) if campaign.campaign else None
    assert_same(
        report,
        {
            "gate": printed,
            "open": by_the_app(monkeypatch, [str(workspace), *given]),
            "campaign": campaign.regated(first, reruns=True),
        },
    )


def test_identical_baseline_runs_leave_the_answer_alone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`open --baseline-repeat` feeds the triage and the curation, not the gate."""
    workspace = SAMPLES / "agent-suite"
    repeat = sorted((workspace / "baseline-repeats").iterdir())[0]
    report, printed = by_the_cli(monkeypatch, capsys, [str(workspace)])
    app = opened(monkeypatch, [str(workspace), "--baseline-repeat", str(repeat)])
    loaded = app.read()  # the loading worker's job: the app reads the runs
    assert isinstance(loaded, Loaded)
    assert app.inputs is not None and [r.path for r in app.inputs.repeats] == [repeat]
    shown = priced(loaded.comparison, app.request.rerun_target)
    assert_same(report, {"gate": printed, "open": shown})


@pytest.mark.parametrize(
    "given",
    [
        ["--change", "prompt"],
        ["--change", "prompt", "--select", "prompt=v1"],
        ["--change", "prompt", "--select", "prompt=v2"],
    ],
    ids=lambda given: " ".join(given[2:]) or "every column",
)
def test_an_importer_s_options_give_one_answer(
    given: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A promptfoo file of two prompts, one column taken with `--select`, read by every path."""
    logs = FIXTURES / "promptfoo" / "file-prompts"
    campaign = tmp_path / "campaign"
    (campaign / "candidates").mkdir(parents=True)
    (campaign / "baseline").symlink_to(logs)
    (campaign / "candidates" / CANDIDATE).symlink_to(logs)
    runs = [str(logs / "results.json")] * 2
    report, printed = by_the_cli(monkeypatch, capsys, [*runs, *given])
    assert_same(
        report,
        {
            "gate": printed,
            "open": by_the_app(monkeypatch, [*runs, *given]),
            "campaign": by_the_campaign(monkeypatch, [str(campaign), *given], CANDIDATE),
        },
    )


def test_open_retires_what_gate_retires_and_applies_a_base_suite(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The issue's case: on support-assistant's runs named one by one, neither front end reads
    the suite.yaml beside them; `--suite FILE` retires sa-024 and sa-045 in both; a base suite
    that retired nothing makes both INVALID."""
    workspace = SAMPLES / "support-assistant"
    runs = [str(workspace / "baseline"), str(workspace / "candidate")]
    runs += ["--gate", str(workspace / "gate.yaml")]
    for given, retired in (
        ([], set()),
        (["--suite", str(workspace / "suite.yaml")], {"sa-024", "sa-045"}),
    ):
        report, printed = by_the_cli(monkeypatch, capsys, [*runs, *given])
        shown = by_the_app(monkeypatch, [*runs, *given])
        assert printed.retired.names == shown.retired.names == retired
        assert_same(report, {"gate": printed, "open": shown})
    base = ["--suite", str(workspace / "suite.yaml")]
    base += ["--base-suite", written(tmp_path / "base-suite.yaml", manifest([]))]
    report, printed = by_the_cli(monkeypatch, capsys, [*runs, *base])
    shown = by_the_app(monkeypatch, [*runs, *base])
    assert report["verdict"] == shown.result.verdict == "INVALID"
    assert "the change under test retires sa-024, sa-045" in report["invalid_reasons"][-1]
    assert_same(report, {"gate": printed, "open": shown})


def test_a_base_at_a_git_revision_gives_one_answer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`--base-ref`: the gate spec, flaky list and suite manifest read with git; a case retired
    since is the change's own, in every front end."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "evals"
    workspace = repo / "support"
    copy_sample("support-assistant", workspace)
    campaign = as_campaign(workspace, repo / "campaign")
    for step in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "merged"]):
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
        subprocess.run([*git, *step], check=True, capture_output=True)
    for suite_workspace in (workspace, campaign):
        retire = ["suite", "retire", "sa-011", "--reason", "gone", "-w", str(suite_workspace)]
        assert main(retire) == 0
    capsys.readouterr()
    given = ["--base-ref", "main"]
    report, printed = by_the_cli(monkeypatch, capsys, [str(workspace), *given])
    assert report["verdict"] == "INVALID" and "retires sa-011" in report["invalid_reasons"][-1]
    assert_same(
        report,
        {
            "gate": printed,
            "open": by_the_app(monkeypatch, [str(workspace), *given]),
            "campaign": by_the_campaign(monkeypatch, [str(campaign), *given], CANDIDATE),
        },
    )


def test_after_an_edit_the_next_candidate_opened_is_judged_by_the_list_as_it_now_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A flaky entry accepted on one candidate's overview holds for the next candidate opened,
    as it does for `flipgate gate` run afterwards."""
    workspace = copy_sample(CAMPAIGN, tmp_path / "campaign")
    app = opened(monkeypatch, [str(workspace)])
    assert isinstance(app, CampaignApp) and isinstance(app.read(), Ranked)
    assert app.campaign is not None
    shown = app.compare_candidate("CLAUDE")
    app.inputs = app.campaign.pair("CLAUDE")
    written(workspace / "flaky.yaml", entries(["i3"]))  # the flaky screen's edit
    app.regated(shown)
    runs = [str(workspace / "baseline"), str(workspace / "candidates" / "MERGE")]
    runs += ["--gate", str(workspace / "gate.yaml"), "--flaky", str(workspace / "flaky.yaml")]
    report, printed = by_the_cli(monkeypatch, capsys, runs)
    assert printed.flaky.cases == {"i3"}
    merge = priced(app.compare_candidate("MERGE"), app.request.rerun_target)
    assert_same(report, {"gate": printed, "campaign": merge})


def test_allow_partial_gives_one_answer_and_is_never_pass(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A killed Inspect run: INVALID by default; with `--allow-partial`, the same INCONCLUSIVE
    from `gate` and `open`, and `rank` gates it the same way (so it cannot clear)."""
    runs = [str(FIXTURES / "inspect" / f"{name}.eval") for name in ("baseline", "killed")]
    strict, _ = by_the_cli(monkeypatch, capsys, runs)
    assert (strict["verdict"], strict["allow_partial"]) == ("INVALID", False)
    report, printed = by_the_cli(monkeypatch, capsys, [*runs, "--allow-partial"])
    assert (report["verdict"], report["rule"], report["allow_partial"]) == (
        "INCONCLUSIVE",
        "partial",
        True,
    )
    assert_same(
        report,
        {"gate": printed, "open": by_the_app(monkeypatch, [*runs, "--allow-partial"])},
    )
    assert main(["rank", *runs, "--allow-partial", "--format", "json"]) == 1
    ranked = json.loads(capsys.readouterr().out)
    assert ranked["allow_partial"] is True
    assert [c["gate"]["verdict"] for c in ranked["candidates"]] == ["INCONCLUSIVE"]


@pytest.mark.parametrize("options", [{"look": 3}, {"allow_partial": True}])
def test_gated_again_after_an_edit_it_keeps_the_look_and_the_choice(options: Any) -> None:
    """The app's re-gate after an edit (nothing edited here) gives the first answer again: at
    the look it was given (not the first), a partial run still gated by choice."""
    runs = [FIXTURES / "inspect" / f"{name}.eval" for name in ("baseline", "killed")]
    inputs = read(GateRequest.of(runs, **options))
    first = gate(inputs)
    again = gate_again(first, read_again(inputs))
    assert to_json(again) == to_json(first)
    assert (again.result.look, again.result.allow_partial) == (
        options.get("look", 1),
        options.get("allow_partial", False),
    )
