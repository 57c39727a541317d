"""A run too big for the memory free is refused before it is read, naming the file and the
estimate (issue 25 item 2), never left for the kernel to kill."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.runs import memory
from flipgate.core.runs.columns import results_estimate
from flipgate.core.runs.memory import DECISION_BYTES, estimate
from flipgate.core.runs.reading import check_runs_fit, load_run, results_file
from flipgate.session import reading as session_reading
from tests.reference.generate import generate

CASES, REPS, RULES = 50, 3, 4  # the generated pair: four rules a line


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pair")
    generate(folder, CASES, REPS)
    return folder


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_the_estimate_counts_the_lines_and_their_rules(pair: Path, fmt: str) -> None:
    results = next((pair / fmt / "baseline").glob("results.*"))
    schema = pl.read_parquet_schema(results) if fmt == "parquet" else None
    found = estimate(results, None if schema is None else (schema, list(schema)))
    assert found is not None
    assert (found.rows, found.rules) == (CASES * REPS, RULES)  # JSONL: counted in its first MB
    if fmt == "jsonl":
        assert found.column_bytes == results.stat().st_size
    assert found.bytes >= CASES * REPS * RULES * DECISION_BYTES


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_run_over_the_free_memory_is_refused_naming_the_file(
    pair: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory, "available_memory", lambda: 10_000)
    with pytest.raises(InputError) as refused:
        load_run(pair / fmt / "baseline")
    assert refused.value.path.name == f"results.{fmt}"
    assert "150 lines would take about" in refused.value.message
    assert "0.0 GB is free" in refused.value.message


def test_the_gate_refused_exits_2_with_no_traceback(
    pair: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(memory, "available_memory", lambda: 10_000)
    runs = [str(pair / "parquet" / arm) for arm in ("baseline", "candidate")]
    assert main(["gate", *runs, "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "results.parquet: too big to read here" in err
    assert "Traceback" not in err


def test_memory_free_or_unknown_checks_nothing(pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory, "available_memory", lambda: None)
    assert load_run(pair / "jsonl" / "baseline").reps.height == CASES * REPS
    monkeypatch.undo()
    free = memory.available_memory()
    assert free is None or free > 0


def test_a_container_s_limit_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "memory.max").write_text("1000000\n")
    (tmp_path / "memory.current").write_text("400000\n")
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 100 kB\nMemAvailable:  5000 kB\n")
    monkeypatch.setattr(memory, "_CGROUP", tmp_path)
    monkeypatch.setattr(memory, "_MEMINFO", meminfo)
    assert memory.available_memory() == 600_000
    (tmp_path / "memory.max").write_text("max\n")
    assert memory.available_memory() == 5000 * 1024


def test_a_first_line_past_parsing_is_still_estimated(tmp_path: Path) -> None:
    """Nested too deep to parse (the reader then names it): one rule, the file's size."""
    results = tmp_path / "results.jsonl"
    results.write_bytes(b'{"case": "a", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    found = estimate(results)
    assert found is not None
    assert (found.rows, found.rules, found.column_bytes) == (1, 1, results.stat().st_size)


def test_a_pair_too_big_together_is_refused_before_either_is_read(
    pair: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each arm fits alone but not both: the gate refuses before reading the first, where it
    read the baseline only to refuse the candidate."""
    files = [pair / "parquet" / arm / "results.parquet" for arm in ("baseline", "candidate")]
    found = [results_estimate(file, lean=True) for file in files]
    assert found[0] is not None and found[1] is not None
    free = max(found[0].bytes, found[1].bytes) + 1
    assert free < found[0].bytes + found[1].bytes
    monkeypatch.setattr(memory, "available_memory", lambda: free)

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a run was read")

    monkeypatch.setattr(session_reading, "load_run", never)
    runs = [str(file.parent) for file in files]
    assert main(["gate", *runs, "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "too big to read here: with the other run's, 300 lines would take about" in err


def test_a_pair_that_fits_is_read(pair: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [pair / "jsonl" / arm / "results.jsonl" for arm in ("baseline", "candidate")]
    found = [results_estimate(file) for file in files]
    assert found[0] is not None and found[1] is not None
    monkeypatch.setattr(memory, "available_memory", lambda: found[0].bytes + found[1].bytes)
    check_runs_fit([file.parent for file in files])  # no refusal
    assert results_file(files[0].parent / "run.yaml") == files[0]
    assert results_file(files[0]) is None  # a file that is not run.yaml: a log, not a run
