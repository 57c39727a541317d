"""Seed 000's three systems side by side: the current model, the safer one and the truly worse
one. The last two share a pass rate (72.5%) and an agreement count (442); one costs about a
tenth of the other (1,010 against 10,492)."""

from __future__ import annotations

from rich.console import Console

from flipgate.core.gate.compare import judge_runs
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs.reading import load_run
from flipgate.present import side_by_side
from tests.conftest import SAMPLES

RUNS = (
    SAMPLES / "listing-reviewer" / "baseline",
    SAMPLES / "listing-reviewer" / "candidate",
    SAMPLES / "listing-reviewer-decisive" / "candidate",
)


def test_the_three_systems_in_json() -> None:
    spec = load_spec(RUNS[0].parent / "gate.yaml")
    runs = judge_runs([load_run(path) for path in RUNS], spec)
    data = side_by_side.to_json(runs, spec)
    rows = [
        (
            r["green_rate"],
            r["outcomes"]["agreement"],
            r["outcomes"]["false_negative"],
            r["outcomes"]["false_positive"],
            r["outcomes"]["inconclusive"],
            r["outcomes"]["mirror"],
            r["outcomes"]["cost"],
        )
        for r in data["runs"]
    ]
    assert rows == [
        (101 / 120, 459, 9, 4, 8, 0, 3692),
        (87 / 120, 442, 2, 3, 30, 3, 1010),
        (87 / 120, 442, 26, 4, 8, 0, 10492),
    ]
    assert [r["outcomes"]["cost_by_outcome"]["false_negative"] for r in data["runs"]] == [
        3600,
        800,
        10400,
    ]


def test_the_three_systems_in_text_and_markdown() -> None:
    spec = load_spec(RUNS[0].parent / "gate.yaml")
    runs = judge_runs([load_run(path) for path in RUNS], spec)
    console = Console(width=80, record=True, color_system=None)
    console.print(side_by_side.to_text(runs, spec))
    text = console.export_text()
    assert "│ green cases (the pass rate) │ 84.2% (101) │  72.5% (87) │  72.5% (87) │" in text
    assert "│ cost                        │       3,692 │       1,010 │      10,492 │" in text
    assert "26 · 10,400" in text  # the worse model's false negatives and their cost
    assert max(len(line) for line in text.splitlines()) <= 80
    markdown = side_by_side.to_markdown(runs, spec)
    assert (
        "| lr-2026-11-21-decisive | 72.5% (87) | 92.1% (442) | 26 | 0 | 4 | 8 | 10,492 |"
        in markdown
    )
