"""Snapshots of the red-case table and the case drill-down, at the common terminal size and at
80x24 (panels stack, the rest scrolls): on the fixture workspace (hostile text, infra, unpaired,
checks) and on the bundled samples a new user opens first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flipgate.core.gate.compare import Comparison
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen

from .conftest import SAMPLES, ScreenApp, load_comparison

WIDE = (140, 45)
NARROW = (80, 24)
CASES = ("evil-[bold red]\x1b[31m", "lst-001", "lst-007", "lst-008", "chk-001")

Snap = Callable[..., bool]


def red_cases(comparison: Comparison, **kwargs: Any) -> ScreenApp:
    return ScreenApp(lambda: RedCasesScreen(comparison, **kwargs))


def case(comparison: Comparison, name: str) -> ScreenApp:
    return ScreenApp(lambda: CaseScreen(comparison, name, CASES))


def test_red_cases_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(red_cases(comparison), terminal_size=WIDE)


def test_red_cases_pass_to_fail_narrow(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(red_cases(comparison, filter="pass_to_fail"), terminal_size=NARROW)


def test_case_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(case(comparison, "lst-001"), terminal_size=WIDE)


def test_case_unified_diff_wide(snap_compare: Snap, comparison: Comparison) -> None:
    assert snap_compare(case(comparison, "lst-001"), press=["d"], terminal_size=WIDE)


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
    assert snap_compare(app, press=["enter"], terminal_size=WIDE)


def test_sample_checks_case_diff_narrow(snap_compare: Snap, agent_suite: Comparison) -> None:
    app = red_cases(agent_suite, filter="pass_to_fail")
    assert snap_compare(app, press=["enter", "d"], terminal_size=NARROW)
