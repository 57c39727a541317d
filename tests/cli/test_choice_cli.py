"""`flipgate decide CAMPAIGN --choose NAME` and `flipgate verify` of the choice it writes: the
person's choice after a tie (seed 003), signed with the ranking seen (docs/rank.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.decision.choice import ChoiceRecord, is_choice, write_choice
from flipgate.core.decision.record import Reviewer, now_utc
from flipgate.core.decision.signing import find_signing_key
from flipgate.session import GateRequest, ranking_seen
from tests.cli.conftest import ANA, Signer, written_in
from tests.conftest import copy_sample, passfail_rows, write_run

REASON = "MERGE's misses are on cases we do not ship — CLAUDE = MERGE within noise; ✓"


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return copy_sample("winner-rule", tmp_path / "campaign")


def _choose(workspace: Path, ana: Signer, name: str, *extra: str) -> int:
    return main(
        ["decide", str(workspace), "--choose", name, "--reason", REASON, "--reviewer", ANA,
         "--key", str(ana.key), *extra]
    )  # fmt: skip


def test_a_choice_in_the_tie_group_is_signed_and_verifies(
    campaign: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _choose(campaign, ana, "MERGE") == 0
    # MERGE ties CLAUDE's group, but on its own it does not clear: said, and recorded
    assert "MERGE on its own: does not clear the incumbent (MERGE passes 1 case and ties" in (
        capsys.readouterr().out
    )
    written = written_in(campaign / "decisions")
    assert written.name.endswith(".yaml") and "-choice-" in written.name and is_choice(written)
    text = written.read_text(encoding="utf-8")
    assert text.startswith("flipgate_choice: 1\nchosen: MERGE\nclearance: not_better\n")
    assert REASON in text and "digest: sha256:" in text
    # the ranking seen: the group, the labels, each candidate's key, completeness and evidence
    for line in (
        "top_group:\n    - CLAUDE\n    - MERGE\n",
        "winner: CLAUDE\n",
        "clearance: clears\n",
        "- name: HURRIED\n",
        "release_key: 3\n",
        "complete: false\n",
        "improvement_p_holm: null\n",
        "path: candidates/MERGE\n",
    ):
        assert line in text, line  # fmt: skip
    capsys.readouterr()
    assert ana.verify(written) == 0
    out = capsys.readouterr().out
    for check in ("signature", "signer", "ranking", "choice"):
        assert f"✓ {check}:" in out
    assert "MERGE, in the first tie group (CLAUDE = MERGE); its own clearance: not_better" in out
    assert "verified:" in out


def test_any_changed_byte_or_run_fails_verification(
    campaign: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _choose(campaign, ana, "CLAUDE") == 0
    written = written_in(campaign / "decisions")
    original = written.read_bytes()

    written.write_bytes(original.replace(b"chosen: CLAUDE", b"chosen: MERGE"))
    capsys.readouterr()
    assert ana.verify(written) == 1
    assert "✗ signature:" in capsys.readouterr().out

    written.write_bytes(original)
    with (campaign / "candidates" / "MERGE" / "results.jsonl").open("a") as handle:
        handle.write("\n")  # same results, other bytes: the run is not the one ranked
    assert ana.verify(written) == 1
    out = capsys.readouterr().out
    assert "✓ signature:" in out
    assert "✗ ranking:" in out and "ranking.candidates[1].digest" in out


def test_a_changed_spec_is_a_different_ranking(
    campaign: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _choose(campaign, ana, "CLAUDE") == 0
    written = written_in(campaign / "decisions")
    (campaign / "gate.yaml").write_text(
        (campaign / "gates" / "three-repetitions.yaml").read_text(encoding="utf-8")
    )
    capsys.readouterr()
    assert ana.verify(written) == 1
    out = capsys.readouterr().out
    assert "ranking.spec_digest" in out
    assert "✗ choice: CLAUDE may not be chosen: CLAUDE is incomplete" in out


def test_an_incomplete_or_unknown_candidate_is_refused_and_nothing_written(
    campaign: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _choose(campaign, ana, "HURRIED") == 2
    assert "HURRIED is incomplete (1 repetition missing)" in capsys.readouterr().err
    assert _choose(campaign, ana, "nobody") == 2
    assert "'nobody' is not a candidate of this campaign (CLAUDE, MERGE, HURRIED)" in (
        capsys.readouterr().err
    )
    assert not (campaign / "decisions").exists()


def _separated(root: Path) -> Path:
    """STRONG passes all 12 cases, WEAK none, as the incumbent: two tie groups, STRONG > WEAK."""
    cases = [f"c{i:02}" for i in range(12)]
    write_run(root / "baseline", passfail_rows({c: [False, False] for c in cases}), run_id="inc")
    for name, passed in (("STRONG", True), ("WEAK", False)):
        rows = passfail_rows({c: [passed, passed] for c in cases})
        write_run(root / "candidates" / name, rows, run_id=name.lower())
    return root


def test_a_choice_below_the_first_tie_group_is_refused(
    tmp_path: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = _separated(tmp_path / "campaign")
    assert main(["rank", str(campaign)]) == 0
    assert "STRONG > WEAK" in capsys.readouterr().out
    assert _choose(campaign, ana, "WEAK") == 2
    assert "WEAK is not in the first tie group (STRONG)" in capsys.readouterr().err
    assert not (campaign / "decisions").exists()
    assert _choose(campaign, ana, "STRONG") == 0


def test_in_a_dead_heat_either_may_be_chosen_and_the_record_says_no_winner(
    tmp_path: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    campaign = tmp_path / "campaign"
    cases = [f"c{i}" for i in range(4)]
    write_run(campaign / "baseline", passfail_rows({c: [False, False] for c in cases}), run_id="i")
    for name in ("ALPHA", "BETA"):  # the same results: equal on the key and on the mean
        rows = passfail_rows({c: [c != "c3", c != "c3"] for c in cases})
        write_run(campaign / "candidates" / name, rows, run_id=name.lower())
    assert main(["rank", str(campaign)]) == 1  # a dead heat: a person chooses
    assert _choose(campaign, ana, "BETA") == 0
    written = written_in(campaign / "decisions")
    text = written.read_text(encoding="utf-8")
    assert "  winner: null\n  clearance: tied\n" in text
    capsys.readouterr()
    assert ana.verify(written) == 0
    assert "✓ choice: BETA, in the first tie group (ALPHA = BETA)" in capsys.readouterr().out


def test_verify_flags_a_signed_choice_the_ranking_does_not_allow(
    tmp_path: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    # signed by an allowed key, but made without `decide`'s refusal: verify still says no
    campaign = _separated(tmp_path / "campaign")
    _, seen = ranking_seen(GateRequest.of([campaign], shape="ranking"))
    record = ChoiceRecord("WEAK", "by hand", Reviewer.parse(ANA), now_utc(), seen)
    written = write_choice(record, find_signing_key(ana.key), campaign / "decisions")
    assert ana.verify(written) == 1
    out = capsys.readouterr().out
    assert "✓ ranking:" in out
    assert "✗ choice: WEAK may not be chosen: WEAK is not in the first tie group" in out


def test_a_choice_is_never_written_over_and_takes_no_gate_decision_flags(
    campaign: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = campaign / "decisions" / "the-choice.yaml"
    assert _choose(campaign, ana, "CLAUDE", "--out", str(out)) == 0
    signed = out.read_bytes()
    assert _choose(campaign, ana, "MERGE", "--out", str(out)) == 2
    assert "exists; a signed decision is never written over" in capsys.readouterr().err
    assert out.read_bytes() == signed
    assert _choose(campaign, ana, "CLAUDE", "--decision", "accept") == 2
    assert "--decision: a choice takes --reason only" in capsys.readouterr().err
    # without --choose, a gate decision still needs its decision and cause
    code = main(
        ["decide", str(campaign), "--reason", "r", "--reviewer", ANA, "--key", str(ana.key)]
    )
    assert code == 2
    assert "--decision: required (or --choose NAME on a campaign)" in capsys.readouterr().err


def test_a_choice_needs_a_campaign_workspace(
    tmp_path: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = copy_sample("winner-rule", tmp_path / "campaign")
    runs = [str(workspace / "baseline"), str(workspace / "candidates" / "CLAUDE")]
    code = main(
        ["decide", *runs, "--choose", "CLAUDE", "--reason", "r", "--reviewer", ANA,
         "--key", str(ana.key)]
    )  # fmt: skip
    assert code == 2
    assert "a choice is made on a campaign workspace" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("recorded", "verifies"), [(None, True), ("clears", True), ("tied", False)]
)
def test_a_choice_verifies_with_its_own_clearance_or_without_one_as_older_files(
    campaign: Path,
    ana: Signer,
    capsys: pytest.CaptureFixture[str],
    recorded: str | None,
    verifies: bool,
) -> None:
    # a file from before the chosen candidate's clearance was recorded has none: it verifies;
    # one recording another clearance than the runs give (made by hand, signed) does not
    _, seen = ranking_seen(GateRequest.of([campaign], shape="ranking"))
    record = ChoiceRecord("CLAUDE", "r", Reviewer.parse(ANA), now_utc(), seen, recorded)
    written = write_choice(record, find_signing_key(ana.key), campaign / "decisions")
    assert ("clearance: clears\nreason" in written.read_text()) == (recorded == "clears")
    assert ana.verify(written) == (0 if verifies else 1)
    out = capsys.readouterr().out
    if verifies:
        assert (
            "✓ choice: CLAUDE, in the first tie group (CLAUDE = MERGE); its own clearance: " in out
        )
    else:
        assert (
            "✗ choice: CLAUDE's own clearance is recorded as tied; the runs ranked again give clears"
            in out
        )
