"""The same triage from both front ends: on every sample workspace, the broken cases a decision
signed with `flipgate decide` places in each triage class are those the app's checklist places
(the identical baseline runs read by both: on agent-suite they put a second case in flaky).

Each path is taken as a user takes it: `flipgate decide` signs a decision file, read back; the
app `flipgate open` starts is driven to its checklist (`c`), whose worker gathers the evidence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.decision.file import verify_decision
from flipgate.present.triage import placements
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.triage import TriageScreen
from tests.conftest import KeyMaker, copy_sample
from tests.session.test_same_answer import PAIRS
from tests.tui.conftest import on_top, open_app, settled

Placed = dict[str, str]  # broken case -> triage class


def by_the_cli(workspace: Path, key: Path) -> Placed:
    """The broken cases of the decision `flipgate decide WORKSPACE` signs, by class."""
    out = workspace.parent / "decision.yaml"
    code = main(
        [
            "decide", str(workspace), "--decision", "reject", "--cause", "regression",
            "--reason", "parity", "--reviewer", "Ana <ana@example.com>", "--key", str(key),
            "--out", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    record = verify_decision(out).record
    assert record is not None
    return {p.case: p.triage_class for p in record.broken_cases}


async def by_the_app(workspace: Path) -> Placed:
    """The broken cases the app's checklist places, by class, once its worker has gathered."""
    app = open_app(workspace)
    async with app.run_test(size=(140, 45)) as pilot:
        await settled(pilot)
        assert isinstance(on_top(app), OverviewScreen)
        await pilot.press("c")
        await settled(pilot)
        screen = on_top(app)
        assert isinstance(screen, TriageScreen) and screen.steps
        return {p.case: p.triage_class for p in placements(screen.comparison, screen.steps)}


@pytest.mark.parametrize("sample", PAIRS)
async def test_cli_and_app_place_the_broken_cases_alike(
    sample: str, tmp_path: Path, isolated_git: Path, make_key: KeyMaker
) -> None:
    workspace = copy_sample(sample, tmp_path / "ws")
    cli = by_the_cli(workspace, make_key("ana"))
    assert cli == await by_the_app(workspace)
    if sample == "agent-suite":  # a lean read put 012 and 183 in regression, the repeats in
        # flaky; 127 is there by the judge alone (rejudged/)
        assert sorted(case for case, klass in cli.items() if klass == "flaky") == [
            "case-012",
            "case-127",
            "case-183",
        ]
