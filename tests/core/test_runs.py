"""Loading runs: every bad input of SPEC §2 names the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from flipgate.core.errors import InputError
from flipgate.core.runs.load import load_run
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
    assert json.loads(loaded.reps["extra"][0]) == {"ticket": {"id": 7}}
    assert loaded.reps["output"][0] == "[bold]x"
    assert loaded.extra_manifest == {"owner": "qa"}


def test_single_labels_and_mappings_may_mix_across_lines(tmp_path: Path) -> None:
    run = _lines(
        tmp_path, row(), json.dumps({"case": "b", "expected": "reject", "actual": "reject"})
    )
    loaded = load_run(run)
    assert sorted(loaded.decisions["rule"].to_list()) == ["decision", "r1"]


def test_parquet_with_structs_and_maps_matches_jsonl(tmp_path: Path) -> None:
    rows = [
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
    stored, none = loaded.reps.sort("case")["messages"].to_list()
    assert none is None
    turns = json.loads(stored)
    # a columnar reader gives every turn the union of the fields: absent ones come back as null
    assert [{k: v for k, v in t.items() if v is not None} for t in turns][:2] == TURNS[:2]
    assert turns[2]["tool_calls"][0]["arguments"] == {"amount": 180}
    assert "messages" not in (loaded.reps["extra"].drop_nulls().to_list() or [""])[0]
    assert load_run(run, lean=True).reps["messages"].null_count() == 2
