"""`GateRequest.of`: every default resolved at one place, every bad combination refused there."""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.core.errors import InputError
from flipgate.session import Base, CurationRequest, GateRequest, reading_steps
from tests.conftest import SAMPLES, write_run

AGENT = SAMPLES / "agent-suite"
SUPPORT = SAMPLES / "support-assistant"
CAMPAIGN = SAMPLES / "winner-rule"


def test_a_workspace_supplies_every_file_it_holds() -> None:
    request = GateRequest.of([AGENT])
    assert (request.baseline, request.candidate) == (AGENT / "baseline", AGENT / "candidate")
    assert (request.gate, request.flaky, request.suite) == (
        AGENT / "gate.yaml",
        AGENT / "flaky.yaml",
        None,  # agent-suite keeps no suite manifest
    )
    assert request.repeats == tuple(sorted((AGENT / "baseline-repeats").iterdir()))
    assert request.reruns is None  # found in reruns/, applied only when asked
    assert request.rerun_paths() == (AGENT / "reruns" / "baseline", AGENT / "reruns" / "candidate")
    assert (request.folder, request.decisions) == (AGENT, AGENT / "decisions")
    assert GateRequest.of([SUPPORT]).suite_workspace == SUPPORT


def test_two_runs_take_nothing_from_the_folders_around_them(tmp_path: Path) -> None:
    """The issue's bug: `open` read the suite.yaml beside two runs named one by one."""
    request = GateRequest.of([SUPPORT / "baseline", SUPPORT / "candidate"])
    assert (request.gate, request.flaky, request.suite, request.repeats) == (None, None, None, ())
    assert request.folder == SUPPORT and request.workspace is None
    assert request.flaky_path == SUPPORT / "flaky.yaml"  # where a first entry would start it
    run = write_run(tmp_path / "b" / "cand", [{"case": "a", "passed": True}])
    assert GateRequest.of([run, run / "run.yaml"]).folder == tmp_path / "b"


def test_given_files_win_and_the_change_is_split_on_commas(tmp_path: Path) -> None:
    spec = tmp_path / "gate.yaml"
    request = GateRequest.of([AGENT], gate=spec, change=["model, prompt", "judge"])
    assert request.gate == spec and request.flaky == AGENT / "flaky.yaml"
    assert request.declared_change == ("model", "prompt", "judge")


def test_a_base_at_a_revision_looks_up_the_files_this_gate_reads() -> None:
    assert GateRequest.of([AGENT], base_ref="main").base == Base(
        "main", AGENT / "gate.yaml", AGENT / "flaky.yaml", None
    )
    pair = GateRequest.of([AGENT / "baseline", AGENT / "candidate"], base_ref="main")
    assert pair.base == Base("main", None, None, None)
    named = GateRequest.of([AGENT], base_suite=SUPPORT / "suite.yaml")
    assert named.base == Base(None, None, None, SUPPORT / "suite.yaml")


def test_a_campaign_holds_its_candidates_and_opens_one_as_a_pair() -> None:
    request = GateRequest.of([CAMPAIGN], shape="pair_or_campaign")
    assert request.is_campaign and [n for n, _ in request.candidates] == [
        "CLAUDE",
        "HURRIED",
        "MERGE",
    ]
    pair = request.with_candidate("MERGE")
    assert pair.candidate == CAMPAIGN / "candidates" / "MERGE" and not pair.is_campaign
    assert pair.folder == CAMPAIGN and pair.gate == CAMPAIGN / "gate.yaml"
    ranked = GateRequest.of([AGENT / "baseline", AGENT / "candidate", AGENT], shape="ranking")
    assert ranked.candidates == ((None, AGENT / "candidate"), (None, AGENT))


@pytest.mark.parametrize(
    ("runs", "options", "said"),
    [
        ([CAMPAIGN], {}, "a workspace of candidates"),
        ([AGENT, AGENT / "candidate"], {}, "a workspace stands alone"),
        ([AGENT / "baseline", AGENT / "candidate", AGENT], {}, "exactly two runs"),
        ([AGENT], {"shape": "ranking"}, "not a campaign workspace"),
        ([AGENT], {"rerun_baseline": AGENT / "reruns" / "baseline"}, "give both"),
        ([AGENT], {"base_ref": "main", "base_gate": AGENT / "gate.yaml"}, "not both"),
        (
            [CAMPAIGN],
            {
                "shape": "pair_or_campaign",
                "rerun_baseline": AGENT / "reruns" / "baseline",
                "rerun_candidate": AGENT / "reruns" / "candidate",
            },
            "rerun results belong to one candidate",
        ),
    ],
)
def test_bad_combinations_are_refused_before_a_file_is_read(
    runs: list[Path], options: dict[str, object], said: str
) -> None:
    with pytest.raises(InputError, match=said):
        GateRequest.of(runs, **options)  # type: ignore[arg-type]


def test_the_reading_steps_count_what_is_read() -> None:
    """Spec, list, each run read and checked; the manifest, the base, the repeats, the reruns,
    the judge's repeats (agent-suite holds rejudged/)."""
    assert reading_steps(GateRequest.of([AGENT / "baseline", AGENT / "candidate"])) == 6
    reruns = AGENT / "reruns"
    request = GateRequest.of(
        [AGENT],
        base_ref="main",
        rerun_baseline=reruns / "baseline",
        rerun_candidate=reruns / "candidate",
    )
    assert reading_steps(request) == 13
    assert reading_steps(request, terms=False) == 13 - 3  # the spec, the list, the base read
    assert reading_steps(GateRequest.of([CAMPAIGN], shape="pair_or_campaign")) == 10


def test_a_curation_request_edits_only_a_list_it_was_given(tmp_path: Path) -> None:
    request = CurationRequest.of([AGENT])  # one RUN that is a workspace: the workspace
    assert request.identical[0] == AGENT / "baseline" and len(request.identical) == 3
    assert request.flaky_file == AGENT / "flaky.yaml"
    assert CurationRequest.of(workspace=tmp_path).flaky_file == tmp_path / "flaky.yaml"
    with pytest.raises(InputError, match="give --flaky FILE or -w WORKSPACE"):
        _ = CurationRequest.of([AGENT / "baseline"]).flaky_file
