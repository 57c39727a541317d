"""`flipgate decide` and `flipgate verify` as a reviewer uses them from a shell."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.decision.file import verify_decision
from tests.cli.conftest import ANA, Signer, written_in
from tests.conftest import KeyMaker, copy_sample


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_sample("agent-suite", tmp_path / "ws")


def _decide(workspace: Path, ana: Signer, *extra: str) -> int:
    return main(
        [
            "decide", str(workspace), "--decision", "reject", "--cause", "regression",
            "--reason", "Refunds regressed — 7 of 9 broke again; רגרסיה ✓",
            "--reviewer", ANA, "--key", str(ana.key),
            "--case", "case-012", *extra,
        ]
    )  # fmt: skip


def test_decide_then_verify(
    workspace: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _decide(workspace, ana) == 0
    written = written_in(workspace / "decisions")
    text = written.read_text(encoding="utf-8")
    assert "verdict: INCONCLUSIVE" in text and "רגרסיה ✓" in text
    # each of the nine broken cases with the class its evidence put it in, and why
    record = verify_decision(written).record
    assert record is not None
    placed = {p.case: (p.triage_class, p.why) for p in record.broken_cases}
    assert len(placed) == 9
    assert placed["case-061"] == (
        "regression",
        "no earlier step explains it; its output changed: the model flipped it",
    )
    assert placed["case-012"][0] == "flaky" and placed["case-109"][0] == "infra"
    assert placed["case-127"] == (
        "grader",
        "rep 0: output identical; baseline passed, candidate failed (9 such pairs of repetitions)",
    )
    capsys.readouterr()
    assert ana.verify(written) == 0
    assert "verified" in capsys.readouterr().out

    # a changed run fails verification, naming the run
    with (workspace / "candidate" / "results.jsonl").open("a") as handle:
        handle.write("\n")
    assert ana.verify(written) == 1
    assert "✗ candidate run" in capsys.readouterr().out


def test_unknown_signer_fails(
    workspace: Path, isolated_git: Path, make_key: KeyMaker, allow: Callable[[str, Path], Path]
) -> None:
    unlisted = Signer(make_key("ana"), allow("bob@example.com", make_key("bob")))
    assert _decide(workspace, unlisted) == 0
    assert unlisted.verify(written_in(workspace / "decisions")) == 1


def test_no_key_is_a_clear_error_and_nothing_written(
    workspace: Path, isolated_git: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["decide", str(workspace), "--decision", "accept", "--cause", "flaky", "--reason", "r",
         "--reviewer", "A <a@example.com>"]
    )  # fmt: skip
    assert code == 2
    assert "ssh-keygen -t ed25519" in capsys.readouterr().err
    assert not (workspace / "decisions").exists()


def test_empty_reason_and_bad_choice(
    workspace: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["decide", str(workspace), "--decision", "accept", "--cause", "flaky", "--reason", "  ",
         "--reviewer", "A <a@example.com>", "--key", str(ana.key)]
    )  # fmt: skip
    assert code == 2 and "reason" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["decide", str(workspace), "--decision", "merge", "--cause", "flaky", "--reason", "x"])


def test_verify_missing_file_exits_2(tmp_path: Path) -> None:
    assert main(["verify", str(tmp_path / "nope.yaml")]) == 2


def test_a_saved_triage_walk_goes_into_the_decision(workspace: Path, ana: Signer) -> None:
    from flipgate.core.triage.walk import save_walk, start_walk, walk_path
    from flipgate.session import GateRequest, gate, read

    walk = start_walk(gate(read(GateRequest.of([workspace]))))
    walk = walk.record("infra", finding="ruled_out", note="one timeout, on a case that passed")
    save_walk(walk_path(workspace), walk.record("regression", finding="cause", note="refunds"))
    assert _decide(workspace, ana) == 0
    written = written_in(workspace / "decisions")
    text = written.read_text(encoding="utf-8")
    assert "finding: ruled_out" in text and "one timeout, on a case that passed" in text
    assert "finding: cause" in text


def test_verify_shows_a_hostile_run_id_without_obeying_it(
    workspace: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run_id of `\\e]0;PWNED\\a\\e[2J` retitled and cleared the terminal verify ran in."""
    manifest = workspace / "candidate" / "run.yaml"
    text = manifest.read_text(encoding="utf-8")
    run_id = next(line for line in text.splitlines() if line.startswith("run_id:"))
    manifest.write_text(text.replace(run_id, 'run_id: "\\e]0;PWNED\\a\\e[2J"'), encoding="utf-8")
    assert _decide(workspace, ana) == 0
    written = written_in(workspace / "decisions")
    capsys.readouterr()
    assert ana.verify(written) == 0
    out = capsys.readouterr().out
    assert "␛]0;PWNED␇␛[2J" in out and "\x1b" not in out and "\x07" not in out


def test_a_decision_that_cannot_be_written_after_signing_says_why(
    workspace: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = workspace / "a-file"
    blocker.write_text("")
    out = blocker / "decision.yaml"
    assert _decide(workspace, ana, "--out", str(out)) == 2
    assert f"{out}: cannot be written" in capsys.readouterr().err
    assert not (workspace / "decisions").exists()


def test_a_case_reviewed_must_be_in_a_run(
    workspace: Path, ana: Signer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _decide(workspace, ana, "--case", "case-999") == 2
    assert "--case: in neither run: 'case-999'" in capsys.readouterr().err
    assert not (workspace / "decisions").exists()
