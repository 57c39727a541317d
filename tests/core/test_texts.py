"""A run's texts read where they are stored (issue 25 item 2): the same texts as a read that holds
them in memory, on every path; a case opened reads only its rows; a file changed since the read is
refused by name."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs import texts as texts_module
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.records import frames_from_records
from flipgate.core.runs.texts import TEXT_FIELDS, Texts
from flipgate.present.casefile import case_detail
from tests.conftest import write_run

TEXT = st.text(st.characters(codec="utf-8"), max_size=12)  # no lone surrogate


def _nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = {"k": leaf}
    return leaf


@st.composite
def _rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows whose texts reach past ASCII, with a trajectory on some and a field nested deep."""
    rows, depth = [], draw(st.integers(0, 40))  # one depth a run: Parquet's column has one type
    for number in range(draw(st.integers(1, 12))):
        row: dict[str, Any] = {"case": f"c{number}", "passed": draw(st.booleans())}
        if draw(st.booleans()):
            row["output"] = draw(TEXT)
        if draw(st.booleans()):
            row["messages"] = [
                {"role": "user", "content": draw(TEXT)},
                {"role": "assistant", "content": draw(TEXT)},
            ]
        if draw(st.booleans()):
            row["note"] = _nested(depth, draw(TEXT))
        rows.append(row)
    return rows


def _layout(rows: list[dict[str, Any]], blanks: list[bool], crlf: bool) -> bytes:
    """The rows as JSONL, a blank line before some of them, ended by CRLF or LF."""
    end = "\r\n" if crlf else "\n"
    text = "".join(
        ("  " + end if blank else "") + json.dumps(row, ensure_ascii=False) + end
        for row, blank in zip(rows, blanks, strict=False)
    )
    return text.encode()


def _held(data: bytes) -> pl.DataFrame:
    """The texts as a read holding them in memory gives them (importers' path), by line."""
    records = [
        (number, json.loads(raw))
        for number, raw in enumerate(data.split(b"\n"), start=1)
        if raw.strip()
    ]
    _, held = frames_from_records(records, Path("held"))
    return held.every()


def _plain(value: str | None) -> Any:
    """A text's JSON without nulls: a columnar read gives a field one line lacks as null."""

    def drop_nulls(item: Any) -> Any:
        if isinstance(item, dict):
            return {k: drop_nulls(v) for k, v in item.items() if v is not None}
        if isinstance(item, list):
            return [drop_nulls(v) for v in item]
        return item

    return None if value is None else drop_nulls(json.loads(value))


def _shown(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    return [
        (line, output, _plain(messages), _plain(extra) or None)
        for line, output, messages, extra in frame.sort("line").iter_rows()
    ]


def _write(folder: Path, data: bytes, form: str) -> Path:
    run = write_run(folder, [])
    results = run / "results.jsonl"
    results.write_bytes(data)
    if form == "parquet":
        rows = [json.loads(raw) for raw in data.split(b"\n") if raw.strip()]
        pl.DataFrame(rows, infer_schema_length=None).write_parquet(run / "results.parquet")
        results.unlink()
    return run


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    rows=_rows(),
    blanks=st.lists(st.booleans(), min_size=12, max_size=12),
    crlf=st.booleans(),
    mixed=st.booleans(),
    form=st.sampled_from(["jsonl", "parquet"]),
    picked=st.lists(st.integers(1, 30), max_size=6),
)
def test_texts_read_where_stored_equal_the_held_ones(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rows: list[dict[str, Any]],
    blanks: list[bool],
    crlf: bool,
    mixed: bool,
    form: str,
    picked: list[int],
) -> None:
    """Every path (Arrow's columns, the line-by-line reader that a field of two types takes,
    Parquet by slices of rows) gives the texts the held read gives, all at once or a few lines."""
    if mixed and form == "jsonl":  # a field of two types: the line-by-line reader
        rows = [*rows, {"case": "mixed", "passed": True, "note": 1}]
        rows[0]["note"] = "one"
    data = _layout(rows, blanks, crlf)
    folder = tmp_path / f"run-{os.urandom(4).hex()}"
    loaded = load_run(_write(folder, data, form))
    assert not set(TEXT_FIELDS) & set(loaded.reps.columns)
    held = _held(data)
    if form == "parquet":  # the lines as Parquet's rows number them
        held = held.with_columns(pl.int_range(1, held.height + 1, dtype=pl.Int64).alias("line"))
    assert _shown(loaded.texts.every()) == _shown(held)
    outputs = loaded.texts.every(["output"])  # JSONL's are kept at read
    assert outputs.rows() == loaded.texts.every().select("line", "output").rows()
    monkeypatch.setattr(texts_module, "SLICE_GAP", 1)  # each row apart, a slice of its own
    monkeypatch.setattr(texts_module, "WHOLE_FILE", 0)  # each JSONL line read by its offsets
    lines = sorted(set(loaded.reps["line"].to_list()) & {*picked, held["line"].max()})
    few = loaded.texts.of_lines([*reversed(lines), *lines])  # out of order, twice: each once
    assert few.rows() == loaded.texts.every().filter(pl.col("line").is_in(lines)).rows()


def _suite(folder: Path, form: str, cases: int = 40, flipped: int = 0) -> Path:
    """Cases of three repetitions with every text; the first `flipped` cases graded the other way."""
    rows = [
        {
            "case": f"c{case:02}",
            "rep": rep,
            "passed": ((case + rep) % 3 != 0) != (case < flipped),
            "output": f"answer {case}/{rep} ✓",
            "messages": [{"role": "user", "content": f"q{case}"}],
            "ticket": {"id": case},
        }
        for case in range(cases)
        for rep in range(3)
    ]
    return _write(folder, "".join(json.dumps(r) + "\n" for r in rows).encode(), form)


def _rows_read(texts: Texts) -> int:
    return texts.rows_read


@pytest.mark.parametrize("form", ["jsonl", "parquet"])
def test_a_case_opened_reads_only_its_rows(tmp_path: Path, form: str) -> None:
    runs = [load_run(_suite(tmp_path / arm, form)) for arm in ("baseline", "candidate")]
    comparison = compare(runs[0], runs[1], default_spec())
    before = [_rows_read(run.texts) for run in runs]
    detail = case_detail(comparison, "c07")
    assert [_rows_read(run.texts) - read for run, read in zip(runs, before, strict=True)] == [3, 3]
    shown = detail.arms["baseline"][1]
    assert shown is not None
    assert shown.output == "answer 7/1 ✓"
    assert shown.extra == {"ticket": {"id": 7}}
    assert json.loads(shown.messages or "")[0]["content"] == "q7"


@pytest.mark.parametrize("form", ["jsonl", "jsonl-lines", "parquet"])
@pytest.mark.parametrize("change", ["rewritten", "touched"])
def test_a_file_changed_since_the_read_is_refused_by_name(
    tmp_path: Path, form: str, change: str
) -> None:
    run = _suite(tmp_path / "run", "parquet" if form == "parquet" else "jsonl", cases=3)
    results = run / ("results.parquet" if form == "parquet" else "results.jsonl")
    if form == "jsonl-lines":  # a field of two types: the line-by-line reader's offsets
        with results.open("a") as file:
            file.write(json.dumps({"case": "z", "passed": True, "ticket": "two"}) + "\n")
    loaded = load_run(run)
    assert loaded.texts.of_lines([1]).height == 1
    if change == "rewritten":  # another run's texts where this run's were
        results.write_bytes(results.read_bytes().replace(b"answer", b"ANSWER"))
    _later(results)
    with pytest.raises(InputError) as refused:
        loaded.texts.of_lines([1])
    assert refused.value.path == results
    assert "changed on disk" in refused.value.message


def _later(path: Path) -> None:
    """`path` touched: its contents the same, its modification time a second later."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_the_gate_on_a_run_changed_after_its_read_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate reads the flipped cases' outputs after the runs: a file changed in between."""
    base = _suite(tmp_path / "baseline", "parquet")
    cand = _suite(tmp_path / "candidate", "parquet", flipped=12)

    def read_then_changed(path: Path, **options: Any) -> Run:
        run = load_run(path, **options)
        _later(path / "results.parquet")
        return run

    monkeypatch.setattr("flipgate.session.reading.load_run", read_then_changed)
    assert main(["gate", str(base), str(cand), "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "results.parquet" in err and "changed on disk" in err
