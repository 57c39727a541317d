"""Snapshots of the red-case table and the case drill-down, at the common terminal size and at
80x24 (panels stack, the rest scrolls): on the fixture workspace (hostile text, infra, unpaired,
checks) and on the bundled samples a new user opens first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flipgate.session import Comparison
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen
from tests.conftest import SAMPLES

from .conftest import ScreenApp, keys, load_comparison, open_app

WIDE = (140, 45)
NARROW = (80, 24)
CASES = ("evil-[bold red]\x1b[31m", "lst-001", "lst-007", "lst-008", "chk-001")

Snap = Callable[..., bool]


def red_cases(comparison: Comparison, **kwargs: Any) -> ScreenApp[None]:
    return ScreenApp(lambda: RedCasesScreen(comparison, **kwargs))


def case(comparison: Comparison, name: str) -> ScreenApp[str]:
    return ScreenApp(lambda: CaseScreen(comparison, name, CASES))


def test_red_cases_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(red_cases(comparison), terminal_size=WIDE)


def test_red_cases_pass_to_fail_narrow(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(red_cases(comparison, filter="pass_to_fail"), terminal_size=NARROW)


def test_case_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(case(comparison, "lst-001"), terminal_size=WIDE)


def test_case_unified_diff_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(case(comparison, "lst-001"), run_before=keys("d"), terminal_size=WIDE)


def test_case_narrow(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(case(comparison, "lst-007"), terminal_size=NARROW)


@pytest.fixture(scope="module")
def listing_reviewer() -> Comparison:
    return load_comparison(SAMPLES / "listing-reviewer")


@pytest.fixture(scope="module")
def agent_suite() -> Comparison:
    return load_comparison(SAMPLES / "agent-suite")


def test_sample_red_cases_wide(snap_compare: Snap, listing_reviewer: Comparison) -> None:
    assert snap_compare(red_cases(listing_reviewer), terminal_size=WIDE)


def test_sample_case_with_reasons_wide(snap_compare: Snap, listing_reviewer: Comparison) -> None:
    app = red_cases(listing_reviewer, filter="pass_to_fail")
    assert snap_compare(app, run_before=keys("enter"), terminal_size=WIDE)


def test_sample_checks_case_diff_narrow(snap_compare: Snap, agent_suite: Comparison) -> None:
    app = red_cases(agent_suite, filter="pass_to_fail")
    assert snap_compare(app, run_before=keys("enter", "d"), terminal_size=NARROW)


# --------------------------------------------------------------------------- trajectories

AGENT_CASES = ("refund-001", "refund-002")


def agent_case(comparison: Comparison) -> ScreenApp[str]:
    return ScreenApp(lambda: CaseScreen(comparison, "refund-001", AGENT_CASES))


def test_trajectory_wide(snap_compare: Snap, agent_comparison: Comparison) -> None:
    assert snap_compare(agent_case(agent_comparison), terminal_size=WIDE)


def test_trajectory_narrow(snap_compare: Snap, agent_comparison: Comparison) -> None:
    assert snap_compare(agent_case(agent_comparison), terminal_size=NARROW)


def test_trajectory_unfolded_turn_diff_narrow(
    snap_compare: Snap, agent_comparison: Comparison
) -> None:
    app = agent_case(agent_comparison)
    assert snap_compare(
        app, run_before=keys("k", "enter", "k", "k", "k", "D"), terminal_size=NARROW
    )


def test_inspect_agent_log_wide(snap_compare: Snap) -> None:
    """The real Inspect log of a refund agent: the candidate skips the confirmation."""
    logs = Path(__file__).parents[1] / "fixtures" / "inspect_agent"
    comparison = load_comparison(logs / "baseline.eval", logs / "candidate.eval", change=["prompt"])
    app = red_cases(comparison)
    assert snap_compare(app, run_before=keys("enter"), terminal_size=WIDE)


@pytest.mark.parametrize(
    ("theme", "size"),
    [
        ("dark", WIDE),
        ("dark", NARROW),
        ("light", WIDE),
        ("light", NARROW),
        ("high-contrast", WIDE),
        ("high-contrast", NARROW),
    ],
    ids=lambda value: value if isinstance(value, str) else f"{value[0]}x{value[1]}",
)
def test_sample_agent_case_in_each_theme(
    snap_compare: Snap, theme: str, size: tuple[int, int]
) -> None:
    app = open_app(SAMPLES / "agent-suite", theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=keys("r", "enter"))
