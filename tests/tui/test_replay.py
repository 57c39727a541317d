"""`flipgate replay`: a signed decision's review log walked again, read-only (issue 24 item 4);
a decision that does not verify, or has no log, is bad input naming why."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from flipgate.cli import main
from flipgate.core.decision.file import write_decision
from flipgate.core.decision.record import Reviewer
from flipgate.core.decision.review import build_record
from flipgate.core.decision.review_log import Looked
from flipgate.core.decision.signing import find_signing_key
from flipgate.session import replay_request
from flipgate.tui.app import ReplayApp
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.replay import ReplayScreen
from tests.conftest import KeyMaker
from tests.tui.test_app import plain

from .conftest import load_comparison, settled

# A fixed clock for the log and the record, so that the replay's pictures are the same everywhere.
SIGNED = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
LOG = (
    Looked("case_opened", at=SIGNED.replace(minute=12), case="lst-001", rep=0),
    Looked("outputs_viewed", at=SIGNED.replace(minute=14), case="lst-001", rep=1, view="unified"),
    Looked(
        "finding_recorded",
        at=SIGNED.replace(minute=21),
        triage_class="regression",
        finding="cause",
    ),
    Looked("case_added", at=SIGNED.replace(minute=25), case="lst-007"),
)
Sign = Callable[..., Path]


@pytest.fixture
def sign(
    workspace: Path, isolated_git: Path, make_key: KeyMaker, allow: Callable[[str, Path], Path]
) -> Sign:
    """`sign(review_log=...)` writes a decision on the workspace's runs, signed by an allowed key;
    returns its path (the allowed signers beside it: `tmp_path/allowed_signers`)."""
    key = make_key("rita")
    allow("rita@example.com", key)

    def write(review_log: tuple[Looked, ...] | None = LOG) -> Path:
        record = build_record(
            load_comparison(workspace),
            workspace=workspace,
            decision="reject",
            cause="regression",
            reason="lst-001 broke on the model change",
            reviewer=Reviewer("Rita Reviewer", "rita@example.com"),
            cases_reviewed=("lst-001", "lst-007") if review_log else ("lst-001",),
            cases_added=("lst-007",) if review_log else ("lst-001",),
            review_log=review_log,
            created=SIGNED,
        )
        return write_decision(record, find_signing_key(key), workspace / "decisions")

    return write


def files(folder: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_the_log_is_listed_and_a_case_step_opens_where_the_reviewer_was(
    workspace: Path, sign: Sign, tmp_path: Path
) -> None:
    decision = sign()
    before = files(workspace)
    request, record = replay_request(decision, tmp_path / "allowed_signers")
    app = ReplayApp(request, record, decision)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        header = plain(screen.query_one("#replay-header", Static).content)
        assert "reject (class found: Regression) by Rita Reviewer <rita@example.com>" in header
        assert "4 steps; 2 cases reviewed, 1 of them added by hand" in header
        steps = screen.query_one(OptionList)
        shown = [plain(steps.get_option_at_index(i).prompt) for i in range(steps.option_count)]
        assert [line.split("  ", 2)[2].strip() for line in shown] == [
            "opened case lst-001 (rep 0)",
            "case lst-001 rep 1: outputs as unified",
            "recorded Regression: cause",
            "added case lst-007 by hand to the cases reviewed",
        ]
        await pilot.press("right_square_bracket")  # the first step
        await settled(pilot)
        case = app.screen
        assert isinstance(case, CaseScreen)
        assert (case.detail.case, case.rep_no, case.mode) == ("lst-001", 0, "outputs")
        await pilot.press("escape", "right_square_bracket")
        await settled(pilot)
        case = app.screen
        assert isinstance(case, CaseScreen)
        assert (case.rep_no, case.mode) == (1, "unified")
        header = plain(case.query_one("#case-header", Static).content)
        assert "replaying, read-only: case lst-001 rep 1: outputs as unified" in header
        await pilot.press("d", "n", "escape", "right_square_bracket")  # a finding: said, no screen
        await settled(pilot)
        assert app.screen is screen
    assert app.review_log is None  # nothing recorded
    assert files(workspace) == before  # nothing written


def test_a_decision_that_does_not_verify_or_has_no_log_is_bad_input(
    workspace: Path, sign: Sign, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    allowed = str(tmp_path / "allowed_signers")
    without = sign(review_log=None)
    assert main(["replay", str(without), "--allowed-signers", allowed]) == 2
    said = capsys.readouterr().err
    assert str(without) in said and "review_log" in said and "no review log" in said

    decision = sign()
    data = decision.read_bytes()
    tampered = decision.with_name("tampered.yaml")
    tampered.write_bytes(data.replace(b"view: unified", b"view: outputs"))
    assert main(["replay", str(tampered), "--allowed-signers", allowed]) == 2
    said = capsys.readouterr().err
    assert f"{tampered}: signature: the signature does not match the file: " in said
    assert said.rstrip().endswith("(a decision replays only when it verifies)")

    stranger = tmp_path / "nobody"
    stranger.write_text("")
    assert main(["replay", str(decision), "--allowed-signers", str(stranger)]) == 2
    assert "signer" in capsys.readouterr().err


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("size", [(140, 45), (80, 24)], ids=["140x45", "80x24"])
def test_snapshot(
    snap_compare: Any,
    sign: Sign,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    theme: str,
    size: tuple[int, int],
) -> None:
    """The list a replay opens on, its path relative (the test runs beside its copy) and its
    times from the fixed clock: the same picture wherever it runs."""
    decision = sign()
    request, record = replay_request(decision, tmp_path / "allowed_signers")
    monkeypatch.chdir(tmp_path)
    app = ReplayApp(request, record, decision.relative_to(tmp_path), theme=theme)
    assert snap_compare(app, terminal_size=size)
