"""The triage walk and the decision screen, driven with Pilot on the fixture workspace."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from textual.pilot import Pilot
from textual.widgets import Input, OptionList, Select, Static, TextArea

from flipgate.core.decision.file import verify_decision
from flipgate.core.decision.record import Reviewer
from flipgate.core.decision.review_log import Looked, reviewed_cases
from flipgate.core.gate.compare import Comparison
from flipgate.core.triage.evidence import TriageStep, evidence, named_cases
from flipgate.core.triage.flaky import NoisyCase
from flipgate.core.triage.regression import FlippedCases
from flipgate.core.triage.walk import TriageWalk, load_walk, save_walk, walk_path
from flipgate.core.vocab import Coded, TriageClass
from flipgate.present.triage import placements
from flipgate.session import triaging
from flipgate.tui.screens import decision, triage
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.decision import DecisionScreen
from flipgate.tui.screens.triage import TriageScreen
from flipgate.tui.widgets.reviewed import CaseList, listing
from tests.conftest import copy_sample
from tests.tui.test_app import plain

from .conftest import ScreenApp, keys, load_comparison, on_top, open_app, settled

SIZE = (140, 45)
REGRESSED: dict[str, tuple[TriageClass, ...]] = {"c1": ("regression",), "c2": ("regression",)}


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated git config (GIT_CONFIG_GLOBAL) naming the reviewer; no signing key yet."""
    if shutil.which("ssh-keygen") is None or shutil.which("git") is None:
        pytest.skip("ssh-keygen and git are needed")
    config = tmp_path / "gitconfig"
    config.write_text("[user]\n\tname = Rita Reviewer\n\temail = rita@example.com\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    monkeypatch.chdir(tmp_path)
    return config


def git_set(name: str, value: str) -> None:
    subprocess.run(["git", "config", "--global", name, value], check=True)


def triage_app(comparison: Comparison, workspace: Path) -> ScreenApp[None]:
    return ScreenApp(lambda: TriageScreen(comparison, walk_path(workspace)))


async def test_walk_the_five_steps_leave_and_resume(workspace: Path) -> None:
    comparison = load_comparison(workspace)
    saved = walk_path(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert [s.klass for s in screen.steps] == [
            "infra",
            "flaky",
            "grader",
            "stale_baseline",
            "regression",
        ]
        note = screen.query_one("#note", Input)
        for finding, text in (
            ("o", "infra under 1%"),
            ("o", "nothing listed"),
            ("u", "[bold]judge[/] looks fine"),  # markup-looking text stays literal
            ("o", ""),
            ("c", "the model change"),
        ):
            await pilot.press(finding)
            if text:
                await pilot.press("n", text[0])  # typed; the rest set at once, to keep this fast
                assert note.has_focus
                note.insert_text_at_cursor(text[1:])
                await pilot.press("enter")  # back to the step list
            await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.current == 5  # the decision line
        shown = str(screen.query_one("#step-summary", Static).render())
        assert "[bold]judge[/] looks fine" in shown
        assert "Class found: regression" in shown

    written = yaml.safe_load(saved.read_text())["walks"][0]["checklist"]
    assert [(e["class"], e["finding"], e["note"]) for e in written] == [
        ("infra", "ruled_out", "infra under 1%"),
        ("flaky", "ruled_out", "nothing listed"),
        ("grader", "unclear", "[bold]judge[/] looks fine"),
        ("stale_baseline", "ruled_out", ""),
        ("regression", "cause", "the model change"),
    ]

    # Open the screen again: the walk resumes, notes and findings as left.
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        assert screen.walk is not None and screen.walk.cause == "regression"
        assert screen.current == 0  # every class has a finding: start at the top
        assert screen.query_one("#note", Input).value == "infra under 1%"
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert screen.query_one("#note", Input).value == "[bold]judge[/] looks fine"
    assert load_walk(saved, comparison).findings["grader"].finding == "unclear"


async def test_a_note_is_saved_when_committed_not_per_keystroke(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saves: list[str] = []

    def counted(path: Path, walk: TriageWalk) -> TriageWalk:
        saves.append(walk.findings["infra"].note)
        return save_walk(path, walk)

    monkeypatch.setattr(triage, "save_walk", counted)
    comparison = load_comparison(workspace)
    saved = walk_path(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        await pilot.press("n", *"half")
        assert saves == [] and not saved.exists()
        assert "note not saved yet" in str(screen.query_one("#save-state", Static).render())
        await pilot.press("enter")  # committed
        assert saves == ["half"]
        assert load_walk(saved, comparison).findings["infra"].note == "half"
        await pilot.press("n", "end", *" way")
        screen.query_one("#steps", OptionList).focus()  # leaving the field commits it too
        await pilot.pause()
        assert saves == ["half", "half way"]
        await pilot.press("o")  # a finding is saved at once
        assert saves == ["half", "half way", "half way"]
    assert load_walk(saved, comparison).findings["infra"].finding == "ruled_out"


async def test_a_step_naming_thousands_of_cases_lists_the_first_and_counts_the_rest(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:

    def crowded(comparison: Comparison, repeats: object = ()) -> list[TriageStep]:
        steps = evidence(comparison)
        cases = tuple(f"case-{i:05d}" for i in range(2500))
        split = (NoisyCase(case, None, None, "both", (1, 3), (2, 3)) for case in cases)
        facts: tuple[Coded, ...] = (FlippedCases(2500, 2500, 0), *split)
        return [replace(steps[0], cases=cases, facts=facts), *steps[1:]]

    monkeypatch.setattr(triaging, "evidence", crowded)
    comparison = load_comparison(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        cases = screen.query_one("#step-cases", OptionList)
        assert cases.option_count == triage.SHOWN + 1
        more = cases.get_option_at_index(triage.SHOWN)
        assert more.disabled
        assert "… 2400 more: the red-case table (r on the overview)" in str(more.prompt)
        facts = plain(screen.query_one("#step-facts", Static).content)
        last = triage.FACTS_SHOWN - 2  # the first fact counts the flips, then one a case
        assert f"case-{last:05d}" in facts and f"case-{last + 1:05d}" not in facts
        assert f"{2501 - triage.FACTS_SHOWN} more like these" in facts


async def test_a_named_case_opens_the_drill_down(workspace: Path) -> None:
    comparison = load_comparison(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        index = next(i for i, s in enumerate(screen.steps) if s.cases)
        step = screen.steps[index]
        screen.query_one("#steps", OptionList).highlighted = index
        await pilot.pause()
        screen.query_one("#step-cases", OptionList).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CaseScreen)
        assert app.screen.cases == step.cases
        assert app.screen.detail.case == step.cases[0]
        await pilot.press("escape")
        await pilot.pause()
        assert on_top(app) is screen


async def test_a_step_s_case_list_fills_the_pane_below_its_facts(workspace: Path) -> None:
    """Issue 29 item 8: the list was a 6-row box with its own scrollbar above empty rows."""
    comparison = load_comparison(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        screen.query_one("#steps", OptionList).highlighted = 4  # regression
        await pilot.pause()
        body = screen.query_one("#step-body")
        cases = screen.query_one("#step-cases", OptionList)
        facts = screen.query_one("#step-facts")
        assert cases.option_count == 3
        assert cases.region.y > facts.region.bottom
        assert cases.region.bottom == body.region.bottom
        assert cases.region.height > 6
        assert body.max_scroll_y == 0  # one pane, no scrollbar of its own


async def test_the_decision_line_leads_to_the_decision_screen(workspace: Path) -> None:
    comparison = load_comparison(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        await pilot.press("c")  # infra is the cause, for this test
        screen.query_one("#steps", OptionList).focus()
        screen.query_one("#steps", OptionList).highlighted = 5
        await pilot.press("enter")
        await pilot.pause()
        decision = app.screen
        assert isinstance(decision, DecisionScreen)
        assert decision.query_one("#cause", Select).value == "infra"
        assert decision.cases == named_cases(screen.steps)
        await settled(pilot)
        assert len(decision.query_one(CaseList).listed) == len(decision.cases)


# 5,000 cases named: every one by the flaky step, every other one by the regression step too
FLAKY_THEN_REGRESSION: tuple[TriageClass, ...] = ("flaky", "regression")
MANY: dict[str, tuple[TriageClass, ...]] = {
    f"case-{i:05d}": FLAKY_THEN_REGRESSION[: 1 + i % 2] for i in range(5000)
}


def decision_app(
    workspace: Path, cases: Mapping[str, Sequence[TriageClass]], log: Sequence[Looked] = ()
) -> ScreenApp[Path | None]:
    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison)
    return ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases=cases, log=log))


def opened_log(*cases: str) -> tuple[Looked, ...]:
    """A review log that opened `cases`, in order."""
    return tuple(Looked("case_opened", case=case) for case in cases)


async def test_the_cases_reviewed_are_counted_by_class_searched_and_shown_literally(
    workspace: Path,
) -> None:
    cases = {**MANY, "[bold]odd\x1b": ("grader",)}
    app = decision_app(workspace, cases, opened_log("case-00001", "[bold]odd\x1b", "c9"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        await settled(pilot)  # listed in a worker
        counted = screen.query_one("#cases-count", Static)
        assert counts(counted)[0] == (
            "3 cases reviewed, for the file: 3 opened [o], 0 added by hand [+]; of the cases "
            "named by the triage: Flaky cases 1 of 5,000, Grader 1 of 1, Regression 1 of 2,500"
        )
        shown = screen.query_one(CaseList)
        assert len(shown.listed) == 5002  # those named, and c9, opened from the red cases
        assert shown.size.height == 8  # as many as fit: only they are painted
        assert row_text(shown, 0) == "[ ] case-00000  Flaky cases"
        assert painted(shown, 0) == "▌[ ] case-00000  Flaky cases"  # the cursor's bar
        assert painted(shown, 1) == " [o] case-00001  Flaky cases, Regression"
        assert row_text(shown, 5001) == "[o] c9"
        screen.query_one("#cases-search", Input).value = "0499"
        await pilot.pause()
        assert counts(counted)[1] == "11 of 5,002 cases match “0499”, 0 ticked"
        assert len(shown.listed) == 11
        assert row_text(shown, 0) == "[ ] case-00499  Flaky cases, Regression"
        screen.query_one("#cases-search", Input).value = "BOLD"
        await pilot.pause()
        assert row_text(shown, 0) == "[o] [bold]odd␛  Grader"
        screen.query_one("#cases-search", Input).value = ""
        await pilot.pause()
        assert len(shown.listed) == 5002
        assert counts(counted)[0].startswith("3 cases reviewed")


def counts(counted: Static) -> list[str]:
    return plain(counted.content).strip().splitlines()


def row_text(case_list: CaseList, row: int) -> str:
    """A row of those listed, as painted when in view, without the cursor's bar."""
    return case_list.line(row)


def painted(case_list: CaseList, y: int) -> str:
    """The list's line `y` as it is painted now."""
    return case_list.render_line(y).text.rstrip()


async def test_nothing_is_pre_ticked_cases_opened_stay_and_others_are_added_by_hand(
    workspace: Path,
) -> None:
    app = decision_app(workspace, MANY, opened_log("case-00002", "case-00001"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        await settled(pilot)
        counted = screen.query_one("#cases-count", Static)
        shown = screen.query_one(CaseList)
        shown.focus()
        await pilot.press("space", "down", "space", "down", "down", "space")
        assert row_text(shown, 0) == "[+] case-00000  Flaky cases"
        assert row_text(shown, 1) == "[o] case-00001  Flaky cases, Regression"  # stays opened
        assert row_text(shown, 3) == "[+] case-00003  Flaky cases, Regression"
        assert counts(counted)[0] == (
            "4 cases reviewed, for the file: 2 opened [o], 2 added by hand [+]; of the cases "
            "named by the triage: Flaky cases 4 of 5,000, Regression 2 of 2,500"
        )
        await pilot.press("end", "space")  # the last case, scrolled to
        assert row_text(shown, 4999) == "[+] case-04999  Flaky cases, Regression"
        assert shown.scroll_y > 4900
        assert painted(shown, int(4999 - shown.scroll_y)).startswith("▌[+] case-04999")
        await pilot.press("space")  # taken off again
        screen.query_one("#cases-search", Input).value = "case-0049"
        await pilot.pause()
        screen.query_one(CaseList).focus()
        await pilot.press("a")  # add the ten listed
        assert counts(counted)[1] == "10 of 5,000 cases match “case-0049”, 10 ticked"
        await pilot.press("n")  # and take them off
        assert counts(counted)[1].endswith(", 0 ticked")
        await pilot.press("down", "space")  # add case-00491 again
        assert counts(counted)[1].endswith(", 1 ticked")
        reviewed, added = reviewed_cases(screen.review_log)
        assert reviewed == ("case-00002", "case-00001", "case-00000", "case-00003", "case-00491")
        assert added == ("case-00000", "case-00003", "case-00491")
        events = [(e.event, e.case) for e in screen.review_log]
        assert events[:5] == [
            ("case_opened", "case-00002"),
            ("case_opened", "case-00001"),
            ("case_added", "case-00000"),
            ("case_added", "case-00003"),
            ("case_added", "case-04999"),
        ]
        assert events[5] == ("case_removed", "case-04999")
        assert events.count(("case_removed", "case-00491")) == 1


async def test_the_cases_are_listed_off_the_ui_thread_and_painted_where_seen(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """About 100,000 cases named at a million: a line each built in a worker, and a frame paints
    the lines in view, not the cases (it took 0.93 s of the event loop at a million)."""
    threads: list[threading.Thread] = []
    painted_rows: list[int] = []

    def listed(*args: Any) -> Any:
        threads.append(threading.current_thread())
        return listing(*args)

    shown = CaseList.line

    def line(case_list: CaseList, row: int) -> str:
        painted_rows.append(row)
        return shown(case_list, row)

    monkeypatch.setattr(decision, "listing", listed)
    app = decision_app(workspace, MANY)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        [thread] = threads
        assert thread is not threading.main_thread()
        case_list = app.screen.query_one(CaseList)
        monkeypatch.setattr(CaseList, "line", line)
        case_list.focus()
        await pilot.press("a", "end", "n")
        await pilot.pause()
        assert painted_rows and len(set(painted_rows)) <= 3 * case_list.size.height


async def test_a_click_puts_the_cursor_on_the_case_clicked(workspace: Path) -> None:
    app = decision_app(workspace, MANY)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        await settled(pilot)
        case_list = screen.query_one(CaseList)
        case_list.focus()
        await pilot.pause()
        await pilot.click(CaseList, offset=(6, 2))  # on the third case
        await pilot.press("space")
        assert case_list.cursor == 2
        assert row_text(case_list, 2) == "[+] case-00002  Flaky cases"


async def test_tab_goes_round_the_fields_and_git_is_asked_off_the_ui_thread(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[threading.Thread] = []

    def from_git() -> Reviewer:
        asked.append(threading.current_thread())
        return Reviewer("Rita Reviewer", "rita@example.com")

    monkeypatch.setattr(Reviewer, "from_git", from_git)
    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison)
    app = ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases=REGRESSED))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        assert asked and threading.main_thread() not in asked
        assert screen.query_one("#reviewer", Input).value == "Rita Reviewer <rita@example.com>"
        visited = []
        for _ in range(len(screen.focus_chain)):
            assert screen.focused is not None
            visited.append(screen.focused)
            await pilot.press("tab")
        assert screen.focused is screen.query_one("#decision", Select)  # round again
        assert [w.id for w in visited] == [
            "decision",
            "cause",
            "reason",
            "reviewer",
            "key",
            "cases-search",
            "cases-list",
            "sign",
        ]


async def fill_and_sign(pilot: Pilot[Any], screen: DecisionScreen, reason: str) -> None:
    screen.query_one("#decision", Select).value = "reject"
    screen.query_one("#reason", TextArea).text = reason
    screen.action_sign()
    await settled(pilot)


async def test_the_decision_is_signed_written_and_verifies(
    workspace: Path, git_home: Path, tmp_path: Path
) -> None:
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"rita@example.com {(tmp_path / 'key.pub').read_text()}")
    git_set("user.signingkey", str(key))
    git_set("gpg.ssh.allowedSignersFile", str(allowed))

    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison).record(
        "regression", finding="cause", note="broke on the model change"
    )
    log = (
        Looked("case_opened", case="c2", rep=1),
        Looked("outputs_viewed", case="c2", rep=1, view="unified"),
        Looked("finding_recorded", triage_class="regression", finding="cause"),
    )
    app = ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases=REGRESSED, log=log))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)  # git's reviewer is read in a worker
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        assert screen.query_one("#reviewer", Input).value == "Rita Reviewer <rita@example.com>"
        assert screen.query_one("#cause", Select).value == "regression"
        await fill_and_sign(pilot, screen, "false negatives up on prohibited items")
        assert screen.written is not None
        shown = str(screen.query_one("#outcome", Static).render())
        assert "it verifies" in shown and str(screen.written) in shown

    assert screen.written.parent == workspace / "decisions"
    verified = verify_decision(screen.written)
    assert verified.ok, verified.failures
    assert verified.record is not None
    assert verified.record.decision == "reject"
    assert verified.record.cause == "regression"
    assert verified.record.cases_reviewed == ("c2",)  # opened; c1, named, was not
    assert verified.record.cases_added == ()
    assert verified.record.review_log == log
    assert verified.record.checklist[-1].note == "broke on the model change"


async def test_no_signing_key_is_a_clear_error_and_the_reason_stays(
    workspace: Path, git_home: Path
) -> None:
    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison)
    app = ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases={}))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)  # git's reviewer is read in a worker
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        screen.query_one("#cause", Select).value = "flaky"
        await fill_and_sign(pilot, screen, "case c1 is on the flaky list")
        shown = str(screen.query_one("#outcome", Static).render())
        assert "not signed, nothing written" in shown
        assert "no SSH signing key" in shown
        # the form's words, on lines of their own: not the command line's option, not a ␊
        assert "--key" not in shown and "␊" not in shown and "Signing key path" in shown
        assert screen.query_one("#reason", TextArea).text == "case c1 is on the flaky list"
        assert screen.written is None
        assert not (workspace / "decisions").exists()


async def test_a_new_key_signs_and_is_not_yet_trusted_rather_than_failed(
    workspace: Path, git_home: Path, tmp_path: Path
) -> None:
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    git_set("user.signingkey", str(key))  # and no allowed-signers file: a key new here
    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison)
    app = ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases={}))
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        # the required reason shows where it goes before anything is typed
        empty = screen.query_one("#reason", TextArea)
        assert "required: why this decision" in str(empty.placeholder)
        assert empty.styles.border_left[0] not in ("", "none")
        screen.query_one("#cause", Select).value = "flaky"
        await fill_and_sign(pilot, screen, "case c1 is on the flaky list")
        shown = str(screen.query_one("#outcome", Static).render())
        assert screen.written is not None
        assert "signed; its signer is not yet trusted here" in shown
        assert "does not verify" not in shown


async def test_a_missing_reason_is_refused_before_signing(workspace: Path) -> None:
    comparison = load_comparison(workspace)
    walk = load_walk(walk_path(workspace), comparison)
    app = ScreenApp(lambda: DecisionScreen(comparison, walk, workspace, cases={}))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, DecisionScreen)
        screen.query_one("#cause", Select).value = "grader"
        screen.query_one("#reviewer", Input).value = "Rita <rita@example.com>"
        await fill_and_sign(pilot, screen, "   ")
        assert "reason: a decision needs a reason" in str(
            screen.query_one("#outcome", Static).render()
        )


async def test_a_figure_stays_with_its_label_at_80_columns(tmp_path: Path) -> None:
    """Issue 29: at 80x24 the regression step's "(counted: b = 9, c = 3)" broke as "b" / "= 9"."""
    app = open_app(copy_sample("agent-suite", tmp_path / "ws"))
    async with app.run_test(size=(80, 24)) as pilot:
        await keys("c")(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        screen.query_one("#steps", OptionList).highlighted = 4  # regression
        await settled(pilot)
        facts = screen.query_one("#step-facts", Static)
        shown = plain(facts.content, width=facts.content_region.width).replace("\u00a0", " ")
        assert "counted:" in shown
        assert "b = 9" in shown and "c = 3" in shown, shown


async def test_a_rule_name_is_never_broken_mid_word_at_80_columns(tmp_path: Path) -> None:
    """Issue 29 item 11: at 80x24 a fact labelled by a rule's name read "recalled_produ" / "cts";
    the labels' column is as wide as their longest word."""
    app = open_app(copy_sample("listing-reviewer", tmp_path / "ws"))
    async with app.run_test(size=(80, 24)) as pilot:
        await keys("c")(pilot)
        screen = app.screen
        assert isinstance(screen, TriageScreen)
        names: set[str] = set()
        for step in range(len(screen.steps)):
            screen.query_one("#steps", OptionList).highlighted = step
            await settled(pilot)
            facts = screen.query_one("#step-facts", Static)
            shown = plain(facts.content, width=facts.content_region.width)
            names |= {name for name in ("recalled_products", "prohibited_items") if name in shown}
        assert names == {"recalled_products", "prohibited_items"}


async def test_the_cases_named_and_placed_are_gathered_off_the_ui_thread(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case at a time, about 100,000 at a million cases: gathered with the evidence in the
    worker, not when `d` opens the decision screen (they stalled the event loop)."""
    threads: list[threading.Thread] = []

    def on_thread(function: Any) -> Any:
        def called(*args: Any) -> Any:
            threads.append(threading.current_thread())
            return function(*args)

        return called

    monkeypatch.setattr(triage, "named_cases", on_thread(named_cases))
    monkeypatch.setattr(triage, "placements", on_thread(placements))
    comparison = load_comparison(workspace)
    app = triage_app(comparison, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("d")
        await settled(pilot)
        decision = app.screen
        assert isinstance(decision, DecisionScreen)
        assert decision.cases and decision.placed
    assert len(threads) == 2 and threading.main_thread() not in threads
