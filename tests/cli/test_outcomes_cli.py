"""`flipgate outcomes`: seed 000's three systems side by side, from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flipgate.cli import main
from tests.conftest import SAMPLES

LISTING = "sample_runs/listing-reviewer"
THREE = [
    f"{LISTING}/baseline",
    f"{LISTING}/candidate",
    "sample_runs/listing-reviewer-decisive/candidate",
]


@pytest.fixture(autouse=True)
def beside_the_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(SAMPLES.parent)  # paths in the output are as the user typed them: relative


def test_three_systems_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outcomes", *THREE, "--gate", f"{LISTING}/gate.yaml", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["run_id"] for r in data["runs"]] == [
        "lr-2026-11-18-main",
        "lr-2026-11-20-candidate",
        "lr-2026-11-21-decisive",
    ]
    assert [r["outcomes"]["cost"] for r in data["runs"]] == [3692, 1010, 10492]
    assert [r["outcomes"]["green_cases"] for r in data["runs"]] == [101, 87, 87]


def test_three_systems_in_text_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outcomes", *THREE, "--gate", f"{LISTING}/gate.yaml"]) == 0
    assert "#3 lr-2026-11-21-decisive" in capsys.readouterr().out
    assert main(["outcomes", *THREE, "--format", "markdown"]) == 0  # the spec's defaults
    assert "| lr-2026-11-20-candidate | 72.5% (87) | 92.1% (442) |" in capsys.readouterr().out


@pytest.mark.parametrize("runs", [[f"{LISTING}/baseline"], [f"{LISTING}/baseline", "no/such/run"]])
def test_bad_input_exits_2(runs: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["outcomes", *runs]) == 2
    assert "flipgate: error:" in capsys.readouterr().err


def test_a_bad_gate_spec_names_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "gate.yaml"
    spec.write_text("outcomes:\n  prices: {false_negative: lots}\n")
    assert main(["outcomes", *THREE[:2], "--gate", str(spec)]) == 2
    assert "outcomes.prices.false_negative" in capsys.readouterr().err
