"""The real tools' fixtures (tests/fixtures/<tool>/, each with the script that made it)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INSPECT = FIXTURES / "inspect"
PROMPTFOO = FIXTURES / "promptfoo"
LM_EVAL = FIXTURES / "lm_eval"
DEEPEVAL = FIXTURES / "deepeval"
INSPECT_LOGS = (
    "baseline",
    "candidate",
    "limits",
    "error",
    "killed",
    "cancelled",
    "cache-write",
    "cache-read",
    "excluded",
)


@pytest.fixture
def inspect_json(tmp_path: Path) -> Callable[[str], Path]:
    """The JSON twin of an Inspect fixture, unpacked into a file of its own."""

    def unpacked(name: str) -> Path:
        out = tmp_path / f"{name}.json"
        out.write_bytes(gzip.decompress((INSPECT / f"{name}.json.gz").read_bytes()))
        return out

    return unpacked


def lm_eval_results(arm: str) -> Path:
    [results] = (LM_EVAL / arm).glob("*/results_*.json")
    return results


def deepeval_run(arm: str) -> Path:
    [run] = (DEEPEVAL / arm).glob("test_run_*.json")
    return run
