"""One definition of a valid turn (`core/runs/turns.py`) on every path that reads a run: the
line reader, Arrow's JSON reader and Parquet, lean (the gate, rank, suite audit) or whole (open,
decide, flaky propose). Issue 28 item 13: the lean gate let a role through that the rest refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from flipgate.core.errors import InputError
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run

BAD_TURNS = [
    ([{"role": "hacker", "content": "x"}], "messages[0].role"),
    ([{"role": None, "content": "x"}], "messages[0].role"),
    ([{"role": "assistant", "tool_calls": [{"id": "c1"}]}], "messages[0].tool_calls[0].name"),
]


def _run(folder: Path, turns: list[dict[str, Any]], form: str) -> Path:
    rows = [
        {"case": "a", "passed": True, "messages": [{"role": "user", "content": "hi"}]},
        {"case": "b", "passed": True, "messages": turns},
    ]
    if form == "mixed":  # a field of two types: the line reader's path
        rows += [
            {"case": "c", "passed": True, "note": 3},
            {"case": "d", "passed": True, "note": "x"},
        ]
    run = write_run(folder, rows)
    if form == "parquet":
        pl.read_ndjson(run / "results.jsonl").write_parquet(run / "results.parquet")
        (run / "results.jsonl").unlink()
    return run


@pytest.mark.parametrize("form", ["jsonl", "mixed", "parquet"])
@pytest.mark.parametrize("lean", [True, False], ids=["lean", "whole"])
@pytest.mark.parametrize(("turns", "field"), BAD_TURNS)
def test_every_reader_refuses_the_same_turns(
    tmp_path: Path, form: str, lean: bool, turns: list[dict[str, Any]], field: str
) -> None:
    run = _run(tmp_path / "run", turns, form)
    with pytest.raises(InputError) as refused:
        load_run(run, lean=lean)
    assert (refused.value.line, refused.value.field) == (2, field)


@pytest.mark.parametrize("form", ["jsonl", "parquet"])
def test_the_columnar_readers_check_the_turns_and_leave_them_stored(
    tmp_path: Path, form: str
) -> None:
    run = _run(tmp_path / "run", [{"role": "tool", "content": "ok", "name": "t"}], form)
    for lean in (True, False):
        loaded = load_run(run, lean=lean)
        assert "messages" not in loaded.reps.columns
        assert loaded.texts.every(["messages"])["messages"].null_count() == 0
