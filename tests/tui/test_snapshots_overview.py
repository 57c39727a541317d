"""Snapshots of the loading error and the overview, per sample workspace, theme and size.

Update after a deliberate change with `uv run pytest tests/tui --snapshot-update` and look at the
report before committing the new SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES
from tests.tui.conftest import keys, open_app, settled

HERE = Path(__file__).parent
WIDE, NARROW = (140, 45), (80, 24)


@pytest.fixture(autouse=True)
def relative_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths on screen (the loading error names its file) are relative, so the same everywhere."""
    monkeypatch.chdir(HERE)


CASES = [
    ("listing-reviewer", "dark", WIDE),
    ("agent-suite", "dark", WIDE),
    ("agent-suite", "dark", NARROW),
    ("inconclusive", "dark", WIDE),
    ("inconclusive", "dark", NARROW),
    ("inconclusive", "light", WIDE),
    ("inconclusive", "high-contrast", WIDE),
    ("inconclusive", "light", NARROW),
    ("block", "dark", WIDE),
    ("passfail", "dark", WIDE),
    ("bad", "dark", WIDE),
    ("bad", "high-contrast", NARROW),
]


@pytest.mark.parametrize(
    ("workspace", "theme", "size"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}-{case[2][0]}x{case[2][1]}") for case in CASES],
)
def test_screen(snap_compare: Any, workspace: str, theme: str, size: tuple[int, int]) -> None:
    folder = (
        SAMPLES / workspace if (SAMPLES / workspace).is_dir() else Path("workspaces") / workspace
    )
    app = open_app(folder, theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=settled)


def test_help(snap_compare: Any) -> None:
    app = open_app(Path("workspaces") / "inconclusive")
    assert snap_compare(app, terminal_size=WIDE, run_before=keys("question_mark"))
