"""Golden files: the JSON and Markdown reports `flipgate gate` and `flipgate rank` print for the
bundled samples.

JSON is compared as data, its floats within a relative 1e-9 (tests/golden.py says why);
Markdown to the character. Regenerate after an intended change with
`FLIPGATE_UPDATE_GOLDEN=1 uv run pytest tests/present/test_golden.py` and read the diff before
committing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.cli import main
from tests.conftest import SAMPLES
from tests.golden import assert_golden

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "listing-reviewer": (["gate", "sample_runs/listing-reviewer"], 0),
    "listing-reviewer-plain": (
        [
            "gate",
            "sample_runs/listing-reviewer",
            "--gate",
            "sample_runs/listing-reviewer/plain-pass-fail.yaml",
        ],
        1,
    ),
    "listing-reviewer-decisive": (["gate", "sample_runs/listing-reviewer-decisive"], 1),
    "agent-suite": (["gate", "sample_runs/agent-suite"], 3),
    "agent-suite-rerun": (
        [
            "gate",
            "sample_runs/agent-suite",
            "--rerun-baseline",
            "sample_runs/agent-suite/reruns/baseline",
            "--rerun-candidate",
            "sample_runs/agent-suite/reruns/candidate",
        ],
        3,
    ),
    "winner-rule-rank": (["rank", "sample_runs/winner-rule"], 0),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_golden(
    name: str, fmt: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SAMPLES.parent)  # paths in the output are as the user typed them: relative
    args, code = CASES[name]
    assert main([*args, "--format", fmt]) == code
    out = capsys.readouterr().out
    assert_golden(out, GOLDEN / f"{name}.{'json' if fmt == 'json' else 'md'}")
