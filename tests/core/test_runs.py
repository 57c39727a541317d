"""Loading runs: every bad input of SPEC §2 names the file, the line and the field."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flipgate.core.errors import InputError
from flipgate.core.runs import nesting
from flipgate.core.runs.model import SIDES
from flipgate.core.runs.reading import load_run, run_from_records
from tests.conftest import ALIAS_BOMB, write_run

OK = {"case": "a", "rep": 0, "expected": {"r1": "approve"}, "actual": {"r1": "approve"}}


def _lines(tmp_path: Path, *lines: str, manifest: str = "run_id: r\n") -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.yaml").write_text(manifest)
    (run / "results.jsonl").write_text("".join(line + "\n" for line in lines))
    return run


def _error(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        load_run(path)
    return info.value


def row(**fields: object) -> str:
    return json.dumps({**OK, **fields})


@pytest.mark.parametrize(
    ("lines", "line", "field", "words"),
    [
        ([row(), "{not json"], 2, None, "not valid JSON"),
        ([row(), json.dumps({"rep": 1, "passed": True})], 2, "case", "required"),
        ([row(), row(case=7)], 2, "case", "must be a string"),
        (
            [row(), row(case="b", actual={"r1": "maybe"})],
            2,
            "actual.r1",
            "'maybe' is not one of the run's labels",
        ),
        (
            [row(), row(case="b", expected={"r1": "nope"})],
            2,
            "expected.r1",
            "not one of the run's labels",
        ),
        ([row(), row()], 2, "rep", "duplicate (case, rep)"),
        ([row(), row(rep=1, safety=True)], 2, "safety", "differs between the lines of case a"),
        # Written out of case order, the same two are found by grouping, not line by line.
        ([row(), row(case="b"), row()], 3, "rep", "duplicate (case, rep)"),
        (
            [row(rep=1), row(case="b"), row(safety=True)],
            3,
            "safety",
            "differs between the lines of case a",
        ),
        ([row(), row(case="b", rep=-1)], 2, "rep", "non-negative integer"),
        ([row(), row(case="b", rep="1")], 2, "rep", "non-negative integer"),
        ([row(), row(case="b", rep=1.5)], 2, "rep", "non-negative integer"),
        ([row(), row(case="b", status="weird")], 2, "status", "'ok' or 'infra'"),
        ([row(), json.dumps({"case": "b", "rep": 0})], 2, "expected", "needs `expected`/`actual`"),
        ([row(), row(case="b", actual={})], 2, "actual.r1", "no `actual` label"),
        ([row(), row(case="b", latency_ms="fast")], 2, "latency_ms", "must be a number"),
        ([row(), row(case="b", passed="yes")], 2, "passed", "true/false"),
        ([row(), "[1, 2]"], 2, None, "JSON object"),
        ([row(), "", row(case="b", actual={"r1": "maybe"})], 3, "actual.r1", "not one of"),
    ],
)
def test_bad_lines(
    tmp_path: Path, lines: list[str], line: int, field: str | None, words: str
) -> None:
    run = _lines(tmp_path, *lines)
    error = _error(run)
    assert error.path == run / "results.jsonl"
    assert (error.line, error.field) == (line, field)
    assert words in error.message
    assert f"results.jsonl:{line}" in str(error)


def test_run_directory_with_no_results_or_both(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.yaml").write_text("run_id: r\n")
    assert "no results" in _error(run).message
    (run / "results.jsonl").write_text(row() + "\n")
    pl.DataFrame({"case": ["a"]}).write_parquet(run / "results.parquet")
    assert "not both" in _error(run).message


def test_manifest_errors(tmp_path: Path) -> None:
    run = _lines(tmp_path, row(), manifest="suite: full\n")
    error = _error(run)
    assert (error.path.name, error.field) == ("run.yaml", "run_id")
    (run / "run.yaml").write_text("run_id: r\nsuite: medium\n")
    error = _error(run)
    assert (error.field, error.line) == ("suite", 2)
    (run / "run.yaml").write_text("run_id: r\ncreated: yesterday\n")
    assert _error(run).field == "created"
    (run / "run.yaml").write_text("run_id: r\nkey: !!python/object/apply:os.system ['echo hi']\n")
    assert "not valid YAML" in _error(run).message


@pytest.mark.parametrize(
    ("manifest", "line", "field", "words"),
    [
        ("run_id: r\n" + ALIAS_BOMB, 3, "b.0", "a YAML alias"),
        ("run_id: r\nkey: &k\n  model: *k\n", 3, "key.model", "a YAML alias"),
        ("run_id: r\nsuite: smoke\nsuite: full\n", 3, "suite", "given twice"),
        ("run_id: r\nkey: " + "{a: " * 80 + "1" + "}" * 80 + "\n", 2, "key", "nested deeper"),
        ("run_id: r\nkey: " + "[" * 5000 + "]" * 5000 + "\n", 2, None, "nesting depth"),
    ],
)
def test_hostile_manifests_are_refused_at_once(
    tmp_path: Path, manifest: str, line: int, field: str | None, words: str
) -> None:
    error = _error(_lines(tmp_path, row(), manifest=manifest))
    assert (error.path.name, error.line, error.field) == ("run.yaml", line, field)
    assert words in error.message


def test_custom_labels_and_unknown_fields_kept(tmp_path: Path) -> None:
    rows = [
        {
            "case": "a",
            "expected": "allow",
            "actual": "review",
            "ticket": {"id": 7},
            "output": "[bold]x",
        }
    ]
    run = write_run(
        tmp_path / "run",
        rows,
        labels={"negative": "allow", "positive": "block", "abstain": "review"},
        owner="qa",
    )
    loaded = load_run(run)
    assert loaded.decisions.select("rule", "expected", "actual").row(0) == (
        "decision",
        "allow",
        "review",
    )
    texts = loaded.texts.of_lines([1])
    assert json.loads(texts["extra"][0]) == {"ticket": {"id": 7}}
    assert texts["output"][0] == "[bold]x"
    assert loaded.extra_manifest == {"owner": "qa"}


def test_single_labels_and_mappings_may_mix_across_lines(tmp_path: Path) -> None:
    run = _lines(
        tmp_path, row(), json.dumps({"case": "b", "expected": "reject", "actual": "reject"})
    )
    loaded = load_run(run)
    assert sorted(loaded.decisions["rule"].to_list()) == ["decision", "r1"]


def test_parquet_with_structs_and_maps_matches_jsonl(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        {
            "case": "a",
            "rep": 0,
            "expected": {"r1": "approve", "r2": "reject"},
            "actual": {"r1": "approve", "r2": "escalate"},
        },
        {
            "case": "a",
            "rep": 1,
            "expected": {"r1": "approve", "r2": "reject"},
            "actual": {"r1": "reject", "r2": "reject"},
        },
    ]
    jsonl = load_run(write_run(tmp_path / "j", rows))
    structs = tmp_path / "p"
    structs.mkdir()
    (structs / "run.yaml").write_text("run_id: p\n")
    pl.DataFrame(rows).write_parquet(structs / "results.parquet")
    maps = tmp_path / "m"
    maps.mkdir()
    (maps / "run.yaml").write_text("run_id: m\n")
    as_map = [
        {
            **r,
            "expected": [{"key": k, "value": v} for k, v in r["expected"].items()],
            "actual": [{"key": k, "value": v} for k, v in r["actual"].items()],
        }
        for r in rows
    ]
    pl.DataFrame(as_map).write_parquet(maps / "results.parquet")
    cols = ["case", "rep", "rule", "expected", "actual"]
    for path in (structs, maps):
        got = load_run(path).decisions.select(cols).sort(cols)
        assert got.equals(jsonl.decisions.select(cols).sort(cols))


@pytest.mark.parametrize("seed", range(4))
def test_parquet_decisions_match_the_line_readers_where_rules_go_undecided(
    tmp_path: Path, seed: int
) -> None:
    """The columnar reader drops a line's undecided rules (and a line with no decision at all)
    where the rules are stacked: on random lines where a rule has both labels on some lines and
    none on others, Parquet gives the decisions the line-by-line reader does."""
    rng = np.random.default_rng(seed)
    labels = [None, "approve", "reject", "escalate"]
    rows: list[dict[str, Any]] = []
    for i in range(60):
        infra = i % 7 == 3  # every 7th line an infra repetition, which decides nothing
        pick = labels[:1] if infra else labels
        sides = {side: {f"r{k}": pick[rng.integers(len(pick))] for k in range(3)} for side in SIDES}
        status = {"status": "infra"} if infra else {}
        rows.append(
            {"case": f"c{i // 3}", "rep": i % 3, **status, **sides, "reasons": {"r1": "why"}}
        )
    for r in rows:  # a label that is null on both sides of a line is the shape of an absent one
        for k in range(3):
            if r["expected"][f"r{k}"] is None and r["actual"][f"r{k}"] is not None:
                r["expected"][f"r{k}"] = "approve"
            elif r["actual"][f"r{k}"] is None and r["expected"][f"r{k}"] is not None:
                r["actual"][f"r{k}"] = "reject"
    parquet = write_run(tmp_path / "p", rows)
    pl.DataFrame(rows).write_parquet(parquet / "results.parquet")
    (parquet / "results.jsonl").unlink()
    lines = run_from_records({"run_id": "l"}, rows, source=tmp_path / "l.jsonl")
    got = load_run(parquet).decisions
    assert got.height < 3 * len(rows)  # some rule went undecided on some line
    order = ["line", "rule"]
    assert got.sort(order).rows() == lines.decisions.sort(order).rows()


@pytest.mark.parametrize("form", ["jsonl", "parquet", "lines"])
def test_decisions_hold_rules_and_labels_as_categories(tmp_path: Path, form: str) -> None:
    """A rule and a label as a category, on every path (the columnar JSONL, Parquet, the line
    reader): a million cases make 12M decisions an arm, and strings there cost the gate's peak
    a quarter (bench/README.md). Their values read back as the same strings."""
    other: dict[str, Any] = {"expected": {"r2": "reject"}, "actual": {"r2": "reject"}}
    if form == "lines":  # a label as a string here, a mapping on the first line
        other = {"expected": "reject", "actual": "reject"}
    rows = [
        {"case": "a", "rep": 0, "expected": {"r1": "approve"}, "actual": {"r1": "reject"}},
        {"case": "b", "rep": 0, "passed": True, **other},
    ]
    path = write_run(tmp_path / "r", rows)
    if form == "parquet":
        pl.DataFrame(rows).write_parquet(path / "results.parquet")
        (path / "results.jsonl").unlink()
    run = load_run(path)
    for column in ("rule", "expected", "actual"):
        assert run.decisions.schema[column] == pl.Categorical
    assert run.checks.schema["rule"] == pl.Categorical
    got = run.decisions.sort("case").select("rule", "expected", "actual").rows()
    assert got[0] == ("r1", "approve", "reject")
    assert run.checks["rule"].to_list() == ["passed"]


@pytest.mark.parametrize("lean", [False, True], ids=["app", "gate"])
@pytest.mark.parametrize("form", ["results.jsonl", "results.parquet"])
def test_the_lean_gate_still_checks_the_fields_it_does_not_keep(
    tmp_path: Path, form: str, lean: bool
) -> None:
    """The gate reads no stored outputs, but a run whose outputs are numbers is still refused."""
    rows = [json.loads(row(case=case, output=7)) for case in ("a", "b")]
    run = write_run(tmp_path / "run", rows)
    if form == "results.parquet":
        (run / "results.jsonl").unlink()
        pl.DataFrame(rows).write_parquet(run / form)
    with pytest.raises(InputError) as raised:
        load_run(run, lean=lean)
    assert (raised.value.path.name, raised.value.field) == (form, "output")


def test_run_yaml_path_is_accepted(tmp_path: Path) -> None:
    run = _lines(tmp_path, row())
    assert load_run(run / "run.yaml").run_id == "r"


def test_missing_path(tmp_path: Path) -> None:
    assert "no such run" in _error(tmp_path / "nope").message


def test_an_infra_repetition_may_carry_a_half_written_decision(tmp_path: Path) -> None:
    infra = json.dumps(
        {
            "case": "a",
            "rep": 1,
            "status": "infra",
            "infra": "timeout",
            "expected": {"r1": "approve"},
        }
    )
    loaded = load_run(_lines(tmp_path, row(), infra))
    assert loaded.reps.height == 2 and loaded.decisions.height == 2


# --------------------------------------------------------------------------- hostile results


@pytest.mark.parametrize(
    ("lines", "line", "field", "words"),
    [
        # Arrow's reader takes 14 s over this line, and crashes a little deeper.
        ([row(), row(case="b")[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"], 2, "x", "deeper"),
        # Brackets inside strings are text, not nesting; an escaped quote does not end a string.
        (
            [
                row(output='\\"' + "[" * 500),
                row(case="b")[:-1] + ', "y": ' + '{"a":' * 70 + "1" + "}" * 70 + "}",
            ],
            2,
            "y",
            "deeper",
        ),
        ([row(), row(case="b", rep=2**63)], 2, "rep", "non-negative integer"),
        ([row(), row(case="b", latency_ms=10**400)], 2, "latency_ms", "finite number"),
        ([row(), row(case="b", status="")], 2, "status", "'ok' or 'infra'"),
        ([row(), row(case="b").replace('"rep": 0', '"rep": 0, "rep": 1')], 2, "rep", "given twice"),
        ([row(), row(case="b", safety="yes")], 2, "safety", "true/false"),
        ([row(), row(case="b", expected={"r1": 3})], 2, "expected.r1", "a label"),
        ([row(case=None)], 1, "case", "required"),  # a column of nulls, to Arrow's reader
    ],
)
def test_hostile_lines(
    tmp_path: Path, lines: list[str], line: int, field: str | None, words: str
) -> None:
    started = time.perf_counter()
    error = _error(_lines(tmp_path, *lines))
    assert time.perf_counter() - started < 5
    assert (error.path.name, error.line, error.field) == ("results.jsonl", line, field)
    assert words in error.message


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_the_file_scanned_by_blocks_finds_what_the_whole_bytes_do(
    tmp_path: Path, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The columnar path scans the file a block at a time (`Lines.scan_file`), never holding its
    bytes: lines and brackets that straddle two blocks are found as in one array."""
    run = _lines(tmp_path, row(), row(case="b")[:-1] + ', "x": ' + "[" * 80 + "]" * 80 + "}")
    path = run / "results.jsonl"
    monkeypatch.setattr(nesting, "SCAN_BLOCK", block)
    by_blocks = nesting.Lines.scan_file(path)
    whole = nesting.Lines.scan(np.frombuffer(path.read_bytes(), dtype=np.uint8))
    assert np.array_equal(by_blocks.newlines, whole.newlines)
    assert np.array_equal(by_blocks.openers, whole.openers)
    assert (_error(run).line, _error(run).field) == (2, "x")


@pytest.mark.parametrize("where", ["output", "extra field"])
def test_bytes_that_are_not_utf8_name_their_line(tmp_path: Path, where: str) -> None:
    run = _lines(tmp_path, row(), row(case="b"))
    bad = b'"output": "\xff\xfe"' if where == "output" else b'"note": "\xff"'
    text = (run / "results.jsonl").read_bytes().replace(b'"case": "b"', b'"case": "b", ' + bad)
    (run / "results.jsonl").write_bytes(text)
    error = _error(run)
    assert (error.line, error.message) == (2, "not UTF-8 text")


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "directory"])
def test_only_a_regular_file_is_read_as_results(tmp_path: Path, target: str) -> None:
    """A pull request can commit a link to /dev/zero: read, it never ends."""
    run = _lines(tmp_path, row())
    results = run / "results.jsonl"
    results.unlink()
    if target == "fifo":
        os.mkfifo(results)
    elif target == "directory":
        results.mkdir()
    else:
        results.symlink_to(target)
    error = _error(run)
    assert error.path == results
    assert "not a regular file" in error.message or "is a directory" in error.message


def _parquet_run(tmp_path: Path, table: pa.Table) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.yaml").write_text("run_id: r\n")
    pq.write_table(table, run / "results.parquet")
    return run


def test_parquet_maps_small_integers_and_dictionary_strings_are_read(tmp_path: Path) -> None:
    """SPEC §2 allows maps; an int8 `rep` and a categorical `case` are the same columns."""
    labels = pa.map_(pa.string(), pa.string())
    table = pa.table(
        {
            "case": pa.array(["a", "a", "b"]).dictionary_encode(),
            "rep": pa.array([0, 1, 0], pa.int8()),
            "expected": pa.array(
                [[("r1", "approve")], [("r1", "approve")], [("r2", "reject")]], labels
            ),
            "actual": pa.array(
                [[("r1", "approve")], [("r1", "reject")], [("r2", "reject")]], labels
            ),
        }
    )
    loaded = load_run(_parquet_run(tmp_path, table))
    assert loaded.decisions.select("case", "rep", "rule", "expected", "actual").rows() == [
        ("a", 0, "r1", "approve", "approve"),
        ("a", 1, "r1", "approve", "reject"),
        ("b", 0, "r2", "reject", "reject"),
    ]


def test_a_parquet_list_column_names_its_field(tmp_path: Path) -> None:
    table = pa.table(
        {"case": ["a"], "rep": [0], "expected": [["approve"]], "actual": [["approve"]]}
    )
    error = _error(_parquet_run(tmp_path, table))
    assert (error.field, error.line) == ("expected", 1)
    assert "a label or a mapping" in error.message


def test_a_parquet_rep_past_int64_is_refused(tmp_path: Path) -> None:
    table = pa.table(
        {"case": ["a", "b"], "rep": pa.array([0, 2**63], pa.uint64()), "passed": [True, True]}
    )
    error = _error(_parquet_run(tmp_path, table))
    assert (error.field, error.line) == ("rep", 2)


TURNS = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Refund order A-1"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "name": "issue_refund", "arguments": {"amount": 180}}],
    },
    {"role": "tool", "tool_call_id": "c1", "name": "issue_refund", "content": "queued"},
]


BAD_TURNS = [
    ("hello", "messages", "list of turns"),
    ([{"content": "no role"}], "messages[0].role", "must be one of"),
    ([TURNS[0], {"role": "robot"}], "messages[1].role", "'robot'"),
    ([{"role": "user", "content": 3}], "messages[0].content", "must be a string"),
    (
        [{"role": "assistant", "tool_calls": [{"arguments": {}}]}],
        "messages[0].tool_calls[0].name",
        "name",
    ),
    (
        [{"role": "assistant", "tool_calls": [{"name": "f", "arguments": [1]}]}],
        "messages[0].tool_calls[0].arguments",
        "object",
    ),
    ([{"role": "tool", "tool_call_id": 5}], "messages[0].tool_call_id", "must be a string"),
]


@pytest.mark.parametrize(("messages", "field", "words"), BAD_TURNS)
def test_a_bad_trajectory_names_the_turn_and_field(
    tmp_path: Path, messages: object, field: str, words: str
) -> None:
    """Whichever reader finds it (the columnar one's vectorised check flags a role outside the
    four or a call without a name; a type Arrow cannot unify sends it to the line reader), the
    same turn and field are named."""
    rows = [row(messages=TURNS), row(case="b", messages=messages)]
    error = _error(_lines(tmp_path, *rows))
    assert (error.line, error.field) == (2, field)
    assert words in error.message


@pytest.mark.parametrize(("messages", "field"), [(m, f) for m, f, _ in BAD_TURNS[1:3]])
def test_a_bad_trajectory_in_parquet_names_the_row_and_field(
    tmp_path: Path, messages: object, field: str
) -> None:
    rows = [json.loads(row(messages=TURNS)), json.loads(row(case="b", messages=messages))]
    run = write_run(tmp_path / "run", rows)
    (run / "results.jsonl").unlink()
    pl.DataFrame(rows).write_parquet(run / "results.parquet")
    error = _error(run)
    assert (error.path.name, error.line, error.field) == ("results.parquet", 2, field)


@pytest.mark.parametrize("form", ["results.jsonl", "results.parquet"])
def test_trajectories_are_kept_as_json_text(tmp_path: Path, form: str) -> None:
    rows = [json.loads(row(messages=TURNS)), json.loads(row(case="b"))]
    run = write_run(tmp_path / "run", rows)
    if form == "results.parquet":
        (run / "results.jsonl").unlink()
        pl.DataFrame(rows).write_parquet(run / form)
    loaded = load_run(run)
    texts = loaded.texts.beside(loaded.reps.sort("case"))
    stored, none = texts["messages"].to_list()
    assert none is None
    turns = json.loads(stored)
    # a columnar reader gives every turn the union of the fields: absent ones come back as null
    assert [{k: v for k, v in t.items() if v is not None} for t in turns][:2] == TURNS[:2]
    assert turns[2]["tool_calls"][0]["arguments"] == {"amount": 180}
    assert "messages" not in (texts["extra"].drop_nulls().to_list() or [""])[0]
    assert "messages" not in load_run(run, lean=True).reps.columns
