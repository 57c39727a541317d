"""Snapshots of the loading error and the overview, per sample workspace, theme and size.

Update after a deliberate change with `uv run pytest tests/tui --snapshot-update` and look at the
report before committing the new SVGs.
"""

from __future__ import annotations

import json
import shutil
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


def judged_again(folder: Path) -> Path:
    """The `block` workspace with its baseline's stored outputs judged twice more: the second
    judging calls r1 differently on three cases' first repetition (the outputs unchanged)."""
    shutil.copytree(HERE / "workspaces" / "block", folder)
    lines = (folder / "baseline" / "results.jsonl").read_text().splitlines()
    for n in (1, 2):
        rows = [json.loads(line) for line in lines]
        for row in rows[: 3 * 3 : 3] if n == 2 else ():  # c000, c001, c002: rep 0
            row["actual"]["r1"] = "approve" if row["actual"]["r1"] == "reject" else "reject"
        judged = folder / "rejudged" / "baseline" / f"pass-{n}"
        judged.mkdir(parents=True)
        shutil.copy(folder / "baseline" / "run.yaml", judged / "run.yaml")
        (judged / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("size", [WIDE, NARROW], ids=["140x45", "80x24"])
def test_the_judge_alone(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str, size: Any
) -> None:
    """The overview's panel for `rejudged/`, brought into view (tab from the matrix)."""
    monkeypatch.chdir(tmp_path)
    app = open_app(judged_again(Path("ws")), theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=keys("tab", "tab", "tab"))
