"""Generated hostile runs: the loader names the file, the line and the field, or loads a valid
run that the gate and every report take; never another exception, never slowly. And the two JSONL
readers (Arrow's columns, the line-by-line fallback) agree on every file, valid or not."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.checks import validate
from flipgate.core.runs.columns import read_jsonl
from flipgate.core.runs.model import Labels
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.records import read_jsonl_lines
from flipgate.present import report
from tests.conftest import ALIAS_BOMB

HOSTILE = settings(
    max_examples=60,
    # the examples of a test share its tmp_path: `_run` empties the folder for each
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text as hostile as a pull request can make it: escapes, bidi overrides, markup, mentions.
nasty_text = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "\x1b]0;PWNED\x07\x1b[2J",
            "x\nPASS: 0 cases broke",
            "\u202eevil",
            "[bold red]x",
            "@org/team",
            "`",
            "",
        ]
    ),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**65), max_value=2**65),
    st.floats(allow_nan=True, allow_infinity=True),
    nasty_text,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["r1", "r2", "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)
labels = st.sampled_from(["approve", "reject", "escalate", "maybe"])
by_rule = st.one_of(
    labels, st.dictionaries(st.sampled_from(["r1", "r2"]), st.one_of(labels, st.none()), max_size=2)
)
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "case": st.one_of(st.sampled_from(["a", "b", "c"]), values),
    "rep": st.one_of(st.integers(min_value=0, max_value=2), values),
    "expected": st.one_of(by_rule, values),
    "actual": st.one_of(by_rule, values),
    "passed": st.one_of(
        st.booleans(), st.dictionaries(st.sampled_from(["p1", "p2"]), st.booleans()), values
    ),
    "status": st.one_of(st.sampled_from(["ok", "infra"]), values),
    "safety": st.one_of(st.booleans(), values),
    "reasons": st.one_of(nasty_text, values),
    "output": st.one_of(nasty_text, values),
    "latency_ms": st.one_of(st.floats(allow_nan=True, allow_infinity=True), values),
    "note": values,
}


@st.composite
def record(draw: st.DrawFn) -> dict[str, Any]:
    # Mostly well-formed: the readers must agree on valid files as well as refuse bad ones.
    fields = draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), unique=True, max_size=6))
    shaped = {
        "case": draw(st.sampled_from(["a", "b", "c"])),
        "rep": draw(st.integers(min_value=0, max_value=2)),
        "expected": draw(by_rule),
        "actual": draw(by_rule),
    }
    return shaped | {name: draw(FIELD_VALUES[name]) for name in fields}


hostile_lines = st.one_of(
    st.builds(lambda r: json.dumps(r).encode(), record()),
    st.sampled_from(
        [
            b"{not json",
            b"[1, 2]",
            b'{"case": "a", "case": "b", "passed": true}',
            b'{"case": "a\xff", "passed": true}',
            b'{"case": "a", "passed": true, "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
            b'{"case": "a", "passed": true, "x": "' + b"[" * 100 + b'"}',
            b"",
            b"   ",
            b'{"case": "a", "rep": 9223372036854775808, "passed": true}',
            b'{"case": "a", "passed": true, "latency_ms": NaN}',
        ]
    ),
)
files = st.lists(hostile_lines, min_size=1, max_size=6).map(lambda lines: b"\n".join(lines) + b"\n")


def _run(folder: Path, results: bytes | pa.Table, manifest: str = "run_id: r\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / "run.yaml").write_text(manifest)
    if isinstance(results, bytes):
        (folder / "results.jsonl").write_bytes(results)
    else:
        pq.write_table(results, folder / "results.parquet")
    return folder


def _loads_or_names_the_line(run: Path) -> None:
    """Either an InputError that points into a file of the run, or a run the gate takes."""
    try:
        loaded = load_run(run)
    except InputError as error:
        assert error.path.parent == run, error
        if error.path.name != "run.yaml" and "no lines" not in error.message:
            assert error.line is not None, error
        return
    comparison = compare(loaded, loaded, default_spec(), FlakyList())
    report.json_text(report.to_json(comparison))
    report.to_markdown(comparison)


@HOSTILE
@given(results=files)
def test_hostile_jsonl_is_named_or_loaded(tmp_path: Path, results: bytes) -> None:
    _loads_or_names_the_line(_run(tmp_path / "run", results))


MANIFESTS = st.one_of(
    st.sampled_from(
        [
            "run_id: r\n" + ALIAS_BOMB,
            "run_id: r\nkey: &k {model: *k}\n",
            "run_id: r\nrun_id: s\n",
            "run_id: !!python/object/apply:os.system [echo]\n",
            "run_id: r\nkey: " + "[" * 2000 + "]" * 2000 + "\n",
            "run_id: r\ncreated: 2026-13-45\n",
            "run_id: r\nlabels: {negative: [x]}\n",
            "run_id: r\nkey: {model: {deep: 1}}\n",
            "- a\n- b\n",
            "\x00\x01",
        ]
    ),
    st.builds(
        lambda d: json.dumps({"run_id": "r", **d}),
        st.dictionaries(
            st.sampled_from(["suite", "created", "change", "key", "labels", "x"]), values
        ),
    ),
    st.text(max_size=40),
)


@HOSTILE
@given(manifest=MANIFESTS)
def test_hostile_run_yaml_is_named_or_loaded(tmp_path: Path, manifest: str) -> None:
    _loads_or_names_the_line(_run(tmp_path / "run", b'{"case": "a", "passed": true}\n', manifest))


COLUMNS: dict[str, st.SearchStrategy[pa.Array]] = {
    "case": st.sampled_from(
        [
            pa.array(["a", "b"]),
            pa.array(["a", "b"]).dictionary_encode(),
            pa.array([1, 2]),
            pa.array(["a", None]),
        ]
    ),
    "rep": st.sampled_from(
        [
            pa.array([0, 1], pa.int8()),
            pa.array([0, 2**63], pa.uint64()),
            pa.array([0.5, 1.0]),
            pa.array(["0", "1"]),
            pa.array([-1, 0]),
        ]
    ),
    "expected": st.sampled_from(
        [
            pa.array([[("r1", "approve")], []], pa.map_(pa.string(), pa.string())),
            pa.array([{"r1": "approve"}, {"r1": "reject"}]),
            pa.array([["approve"], ["reject"]]),
            pa.array(["approve", "maybe"]),
            pa.array([1, 2]),
        ]
    ),
    "passed": st.sampled_from(
        [pa.array([True, False]), pa.array([1, 0]), pa.array([None, None], pa.bool_())]
    ),
    "latency_ms": st.sampled_from([pa.array([1.0, math.nan]), pa.array([1, 2], pa.int8())]),
}


@HOSTILE
@given(columns=st.fixed_dictionaries({}, optional=COLUMNS))
def test_hostile_parquet_is_named_or_loaded(tmp_path: Path, columns: dict[str, pa.Array]) -> None:
    table = pa.table(columns) if columns else pa.table({"x": pa.array([1, 2])})
    _loads_or_names_the_line(_run(tmp_path / "run", table))


# --------------------------------------------------------------------------- two readers


def _outcome(read: Any, path: Path) -> tuple[str, Any]:
    try:
        frames, texts = read(path)
        validate(frames, path, Labels())
    except InputError as error:
        return "error", (error.line, error.field, error.message)
    reps, decisions, checks = frames
    shown = texts.beside(reps).with_columns(
        pl.col("extra").map_elements(_plain, return_dtype=pl.String)
    )
    return "table", (
        shown.sort("line").rows(),
        decisions.sort("line", "rule").rows(),
        checks.sort("line", "rule").rows(),
    )


def _plain(extra: str) -> str | None:
    """Extra fields as JSON, without the nulls Arrow's struct inference adds: a field one line
    lacks is null on that line (a JSON null and an absent field read the same)."""

    def drop_nulls(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: drop_nulls(v) for k, v in sorted(value.items()) if v is not None}
        if isinstance(value, list):
            return [drop_nulls(v) for v in value]
        return (
            float(value)
            if isinstance(value, int | float) and not isinstance(value, bool)
            else value
        )

    plain = drop_nulls(json.loads(extra))
    return json.dumps(plain) if plain else None


@settings(HOSTILE, max_examples=150)
@given(results=files)
def test_both_jsonl_readers_give_the_same_table_or_the_same_error(
    tmp_path: Path, results: bytes
) -> None:
    path = _run(tmp_path / "run", results) / "results.jsonl"
    assert _outcome(read_jsonl, path) == _outcome(read_jsonl_lines, path)


@pytest.mark.parametrize(
    "rows",
    [
        [
            {
                "case": "a",
                "expected": {"r1": "approve"},
                "actual": {"r1": "reject"},
                "reasons": "one for all",
            }
        ],
        [
            {"case": "a", "passed": {"p1": True}, "note": {"x": 1}},
            {"case": "b", "passed": {"p2": False}},
        ],
    ],
)
def test_the_columnar_reader_is_taken_on_well_typed_files(
    tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    """The property above compares two readers only when the columnar one reads the file itself."""
    path = (
        _run(tmp_path / "run", "".join(json.dumps(r) + "\n" for r in rows).encode())
        / "results.jsonl"
    )
    assert _outcome(read_jsonl, path) == _outcome(read_jsonl_lines, path)
    assert _outcome(read_jsonl, path)[0] == "table"
