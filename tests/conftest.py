"""Shared test helpers: write small runs and workspaces in our format."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_runs"

RunWriter = Callable[..., Path]


def write_run(
    folder: Path,
    rows: Iterable[dict[str, Any]],
    *,
    run_id: str | None = None,
    key: dict[str, str] | None = None,
    **manifest: Any,
) -> Path:
    """A run folder with run.yaml and results.jsonl; rows are written as given."""
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "run_id": run_id or folder.name,
        "key": key or {"model": "m1", "prompt": "p1"},
        **manifest,
    }
    (folder / "run.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.fixture
def run_writer(tmp_path: Path) -> RunWriter:
    def make(name: str, rows: Iterable[dict[str, Any]], **manifest: Any) -> Path:
        return write_run(tmp_path / name, rows, **manifest)

    return make


def passfail_rows(
    verdicts: dict[str, list[bool | None]], safety: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """Rows of a pass/fail suite: case -> per-rep pass (True), fail (False) or infra (None)."""
    safe = set(safety)
    rows: list[dict[str, Any]] = []
    for case, reps in verdicts.items():
        for rep, verdict in enumerate(reps):
            row: dict[str, Any] = {"case": case, "rep": rep, "safety": case in safe}
            if verdict is None:
                row |= {"status": "infra", "infra": "timeout"}
            else:
                row["passed"] = verdict
            rows.append(row)
    return rows
