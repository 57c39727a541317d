"""Type-confused logs (issue 28 items 1, 9, 17), one property per importer: a real tool's output
with one value replaced by a value of another JSON type is either refused with an InputError
(exit 2), or read to exactly what a strict plain reading of it gives, repetition by repetition;
never a traceback (exit 1, which means BLOCK), never a pass the plain reading would not give.

The plain readings here are strict: a field they read that is not of its type raises, and then
the importer must have refused the file too.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgate.core.errors import InputError
from flipgate.core.importers import ImportOptions, read_external
from flipgate.core.runs.reading import run_from_records
from tests.importers.conftest import INSPECT, PROMPTFOO, deepeval_run, lm_eval_results
from tests.importers.plain import FAIL, INFRA, PASS, inspect_json

Path_ = tuple[str | int, ...]
States = dict[tuple[str, int], str]
WRONG: list[Any] = [
    "false", "true", "0", "1", "", "NaN", "C", 0, 1, 1.5, -1, True, False, None, [], [1], {}, {"a": 1},
]  # fmt: skip


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def paths(doc: Any, prefix: Path_ = (), depth: int = 8) -> Iterator[Path_]:
    """Every place in `doc` a value sits, down to `depth`."""
    if depth == 0:
        return
    items = (
        doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    )
    for key, value in items:
        yield (*prefix, key)
        yield from paths(value, (*prefix, key), depth - 1)


def mutations(doc: Any) -> st.SearchStrategy[Any]:
    """`doc` with the value at one place replaced by a value of another JSON type."""
    places = list(paths(doc))

    def replaced(place: Path_, value: Any) -> Any:
        changed = copy.deepcopy(doc)
        target = changed
        for step in place[:-1]:
            target = target[step]
        target[place[-1]] = value
        return changed

    def at(place: Path_) -> st.SearchStrategy[Any]:
        target = doc
        for step in place:
            target = target[step]
        wrong = [v for v in WRONG if kind(v) != kind(target)]
        return st.sampled_from(wrong).map(lambda value: replaced(place, value))

    return st.sampled_from(places).flatmap(at)


def imported_states(log: Path, options: ImportOptions | None = None) -> States | None:
    """What `flipgate import` makes of `log`, repetition by repetition; None when refused."""
    try:
        run = read_external(log, options)
        run_from_records(run.manifest, run.records, source=log, source_format=run.tool)
    except InputError:
        return None
    states = {}
    for record in run.records:
        if record.get("status") == "infra":
            states[(record["case"], record["rep"])] = INFRA
        else:
            checks = record.get("passed", {})
            agree = all(record["actual"][r] == e for r, e in record.get("expected", {}).items())
            states[(record["case"], record["rep"])] = (
                PASS if all(checks.values()) and agree else FAIL
            )
    return states


def check(plain_reading: Callable[[], States], imported: States | None) -> None:
    try:
        expected = plain_reading()
    except (TypeError, KeyError, AttributeError, ValueError, IndexError):
        assert imported is None, "a log the plain reading cannot read was not refused"
        return
    if imported is not None:
        assert imported == expected


def strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


# --- Inspect AI --------------------------------------------------------------------------------


def _inspect_doc() -> dict[str, Any]:
    """A JSON log of four real samples: passing, stopped by a message limit, NaN, errored; their
    events kept to the model calls."""

    doc = inspect_json(INSPECT / "limits.json.gz")
    picked = {(1, 1), (4, 1), (11, 1)}
    samples = [s for s in doc["samples"] if (s["id"], s["epoch"]) in picked]
    samples += [s for s in inspect_json(INSPECT / "error.json.gz")["samples"] if s.get("error")][:1]
    for sample in samples:
        sample["events"] = [e for e in sample["events"] if e["event"] == "model"][:1]
        for bulky in ("events_data", "store", "attachments", "input", "role_usage"):
            sample.pop(bulky, None)
    doc["samples"] = samples
    for bulky in ("results", "stats", "reductions", "plan"):
        doc.pop(bulky, None)
    return doc


INSPECT_DOC = _inspect_doc()


def inspect_plain(doc: dict[str, Any]) -> States:
    states = {}
    for sample in doc["samples"]:
        if isinstance(sample["id"], bool) or not isinstance(sample["id"], int | str):
            raise TypeError(sample["id"])
        key = (str(sample["id"]), sample["epoch"] - 1)
        limit = sample.get("limit")
        values = [v["value"] for v in sample["scores"].values()] if sample.get("scores") else []
        if (
            sample.get("error") is not None
            or (limit and limit["type"] in ("time", "working"))
            or any(isinstance(v, float) and math.isnan(v) for v in values)
        ):
            states[key] = INFRA
        elif limit is not None:
            states[key] = FAIL
        else:
            states[key] = PASS if all(v in ("C", 1, True) for v in values) else FAIL
    return states


@given(doc=mutations(INSPECT_DOC))
def test_inspect_never_a_traceback_nor_a_pass_the_plain_reading_would_not_give(
    doc: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    log = written(tmp_path_factory, doc, "log.json")
    check(lambda: inspect_plain(doc), imported_states(log))


def test_inspect_the_unchanged_document_reads_as_the_plain_reading(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    states = imported_states(written(tmp_path_factory, INSPECT_DOC, "log.json"))
    assert states == inspect_plain(INSPECT_DOC)
    assert sorted(set(states.values())) == [FAIL, INFRA, PASS]  # every kind is exercised


# --- promptfoo ----------------------------------------------------------------------------------


def _promptfoo_doc() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((PROMPTFOO / "file-prompts/results.json").read_text())
    rows = doc["results"]["results"]
    keep = [r for r in rows if r["testIdx"] in (0, 1, 2, 12, 22) and r["promptIdx"] == 0]
    for row in keep:
        for bulky in ("namedScores", "id", "promptId", "metadata", "vars"):
            row.pop(bulky, None)
    doc["results"] = {**doc["results"], "results": keep}
    doc["results"]["prompts"] = [
        {k: v for k, v in p.items() if k != "metrics"} for p in doc["results"]["prompts"]
    ]
    doc["config"] = {"tests": doc["config"]["tests"][:1]}
    return doc


PROMPTFOO_DOC = _promptfoo_doc()


def promptfoo_plain(doc: dict[str, Any]) -> States:
    """A row's assertions all pass; a provider error is infra. A test is named by its
    description, else its index (the importer adds a digest, left off when comparing)."""
    repeat = doc["runtimeOptions"]["repeat"]
    states = {}
    for row in doc["results"]["results"]:
        test = row["testIdx"] // repeat
        case = row["testCase"].get("description") or f"test {test}"
        key = (case, row["testIdx"] % repeat)
        if row["failureReason"] == 2:
            states[key] = INFRA
        else:
            components = row["gradingResult"]["componentResults"]
            states[key] = PASS if all(strict_bool(c["pass"]) for c in components) else FAIL
            strict_bool(row["success"])
    return states


@given(doc=mutations(PROMPTFOO_DOC))
def test_promptfoo_never_a_traceback_nor_a_pass_the_plain_reading_would_not_give(
    doc: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    imported = imported_states(written(tmp_path_factory, doc, "results.json"))
    check(lambda: promptfoo_plain(doc), _digest_left_off(imported))


def _digest_left_off(states: States | None) -> States | None:
    if states is None:
        return None
    return {(case.split(" #")[0].split(" [")[0], rep): s for (case, rep), s in states.items()}


def test_promptfoo_the_unchanged_document_reads_as_the_plain_reading(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    states = imported_states(written(tmp_path_factory, PROMPTFOO_DOC, "results.json"))
    assert _digest_left_off(states) == promptfoo_plain(PROMPTFOO_DOC)
    assert sorted(set(promptfoo_plain(PROMPTFOO_DOC).values())) == [INFRA, PASS]


# --- lm-evaluation-harness ------------------------------------------------------------------------

[_GEN] = lm_eval_results("candidate").parent.glob("samples_triage_gen_*.jsonl")
LM_LINE = json.loads(_GEN.read_text().splitlines()[6])  # doc 3, strict: a failing line


@given(line=mutations(LM_LINE))
def test_lm_eval_never_a_traceback_nor_a_pass_the_plain_reading_would_not_give(
    line: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("lm")
    results = lm_eval_results("candidate")
    (folder / results.name).write_bytes(results.read_bytes())
    for samples in results.parent.glob("samples_*.jsonl"):
        lines = [line] if "triage_gen" in samples.name else []
        (folder / samples.name).write_text("".join(json.dumps(x) + "\n" for x in lines))
    imported = imported_states(folder / results.name)

    def plain_line() -> States:
        values = [line[m] for m in line["metrics"]]
        if not all(kind(v) in ("number", "bool") for v in values):
            raise TypeError(values)
        return {(f"triage_gen/{line['doc_id']}", 0): PASS if all(v == 1 for v in values) else FAIL}

    check(plain_line, imported)


# --- DeepEval ---------------------------------------------------------------------------------

DEEPEVAL_DOC = json.loads(deepeval_run("candidate").read_text())


def deepeval_plain(doc: dict[str, Any]) -> States:
    states = {}
    for case in doc["testCases"]:
        metrics = case["metricsData"]
        if any(m.get("error") is not None for m in metrics):
            states[(case["name"], 0)] = INFRA
        else:
            verdicts = [strict_bool(m["success"]) for m in metrics]
            states[(case["name"], 0)] = PASS if verdicts and all(verdicts) else FAIL
    return states


@given(doc=mutations(DEEPEVAL_DOC))
def test_deepeval_never_a_traceback_nor_a_pass_the_plain_reading_would_not_give(
    doc: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    log = written(tmp_path_factory, doc, "test_run_x.json")
    check(lambda: deepeval_plain(doc), imported_states(log))


# --- table exports ------------------------------------------------------------------------------

TABLE_ROWS = [
    {"case": "a", "score": True, "grade": 0.9, "error": None},
    {"case": "a", "score": False, "grade": 1, "error": None},
    {"case": "b", "score": "yes", "grade": 0.2, "error": None},
    {"case": "c", "score": True, "grade": 1.0, "error": "timeout"},
]
TABLE_OPTIONS = ImportOptions(
    case_column="case", score_column=("score", "grade"), error_column="error", pass_threshold=0.5
)


def table_plain(rows: list[dict[str, Any]]) -> States:
    words = {"yes": True, "no": False, "pass": True, "fail": False, "true": True, "false": False}
    states: States = {}
    reps: dict[str, int] = {}
    for row in rows:
        case = row["case"]
        if not isinstance(case, str | int) or isinstance(case, bool) or case == "":
            raise TypeError(case)
        rep = reps[str(case)] = reps.get(str(case), -1) + 1
        if row["error"] is not None and str(row["error"]).strip():
            states[(str(case), rep)] = INFRA
            continue
        verdicts = []
        for column in ("score", "grade"):
            value = row[column]
            if isinstance(value, bool):
                verdicts.append(value)
            elif isinstance(value, int | float):
                verdicts.append(value >= 0.5)
            else:
                verdicts.append(words[value.strip().lower()])
        states[(str(case), rep)] = PASS if all(verdicts) else FAIL
    return states


@given(rows=mutations(TABLE_ROWS))
def test_a_table_never_a_traceback_nor_a_pass_the_plain_reading_would_not_give(
    rows: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    log = written(tmp_path_factory, rows, "export.json")
    check(lambda: table_plain(rows), imported_states(log, TABLE_OPTIONS))


def written(factory: pytest.TempPathFactory, doc: Any, name: str) -> Path:
    path = factory.mktemp("hostile") / name
    path.write_text(json.dumps(doc))
    return path
