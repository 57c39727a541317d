"""The promptfoo importer on real results.json files written by promptfoo 0.121.20 (version 3),
and on a small hand-made version 2 file."""

from __future__ import annotations

import copy
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from flipgate.core.errors import InputError
from flipgate.core.importers import ImportOptions, detect_format, read_external
from flipgate.core.importers.notes import CachedRepeats
from flipgate.present.run_notes import note_words
from tests.conftest import PROMPTFOO_LOGS

PROMPTFOO = PROMPTFOO_LOGS
BASELINE = PROMPTFOO / "baseline" / "results.json"
CANDIDATE = PROMPTFOO / "candidate" / "results.json"


def collapse(records: list[dict[str, Any]]) -> dict[str, bool]:
    """Case -> pass after the repetition collapse (SPEC §3.1), from imported records."""
    reps: defaultdict[str, list[bool]] = defaultdict(list)
    safety: dict[str, bool] = {}
    for record in records:
        safety[record["case"]] = record.get("safety", False)
        if record.get("status") != "infra":
            passed = record["passed"]
            reps[record["case"]].append(
                all(passed.values()) if isinstance(passed, dict) else passed
            )
    return {case: all(r) if safety[case] else 2 * sum(r) > len(r) for case, r in reps.items()}


def raw_collapse(path: Path, prompt: str | None = None) -> dict[tuple[str, str], bool]:
    """The same from the raw rows, keyed (test description, prompt label or '' when selected)."""
    reps: defaultdict[tuple[str, str], list[bool]] = defaultdict(list)
    safety = {}
    for row in json.loads(path.read_text())["results"]["results"]:
        if prompt and row["prompt"]["label"] != prompt:
            continue
        key = (row["testCase"]["description"], "" if prompt else row["prompt"]["label"])
        reps[key].append(all(c["pass"] for c in row["gradingResult"]["componentResults"]))
        safety[key] = row["testCase"]["metadata"]["safety"]
    return {key: all(r) if safety[key] else 2 * sum(r) > len(r) for key, r in reps.items()}


def case_id(description: str, prompt: str) -> str:
    return f"{description} [prompt={prompt}]" if prompt else description


def flips(baseline: dict[str, bool], candidate: dict[str, bool]) -> tuple[list[str], list[str]]:
    b = sorted(c for c in baseline if baseline[c] and not candidate[c])
    c = sorted(c for c in baseline if not baseline[c] and candidate[c])
    return b, c


def test_cases_and_flips_match_the_raw_file() -> None:
    baseline = read_external(BASELINE)
    candidate = read_external(CANDIDATE)
    assert baseline.tool == "promptfoo" and len(baseline.records) == 120
    # a test is a case per prompt (the prompt varies within the file); three repeats each
    reps: defaultdict[str, list[int]] = defaultdict(list)
    for record in baseline.records:
        reps[record["case"]].append(record["rep"])
    assert len(reps) == 40 and all(sorted(r) == [0, 1, 2] for r in reps.values())

    for run, path in ((baseline, BASELINE), (candidate, CANDIDATE)):
        expected = {case_id(*key): passed for key, passed in raw_collapse(path).items()}
        assert collapse(run.records) == expected
    base, cand = collapse(baseline.records), collapse(candidate.records)
    assert (sum(base.values()), sum(cand.values())) == (34, 30)
    assert flips(base, cand) == (
        [
            "t03 ui [prompt=guided]",
            "t05 notifications [prompt=terse]",
            "t13 payments [prompt=guided]",
            "t15 data [prompt=terse]",
            "t17 privacy [prompt=guided]",
            "t17 privacy [prompt=terse]",
        ],
        ["t06 data [prompt=guided]", "t19 collaboration [prompt=guided]"],
    )


def test_the_provider_is_a_run_dimension() -> None:
    baseline, candidate = read_external(BASELINE).manifest, read_external(CANDIDATE).manifest
    assert baseline["run_id"] == "eval-uGT-2026-11-29T15:08:16"
    assert baseline["created"] == "2026-11-29T15:08:16.852Z"
    assert (baseline["key"]["model"], candidate["key"]["model"]) == (
        "mock-model-v1",
        "mock-model-v2",
    )
    assert baseline["key"]["harness"] == "promptfoo@0.121.20"
    assert baseline["key"]["judge"] == "none"
    for same in ("prompt", "eval_set"):
        assert baseline["key"][same] == candidate["key"][same]
    assert baseline["promptfoo"]["prompts"] == ["guided", "terse"]


def test_record_fields() -> None:
    records = read_external(BASELINE).records
    first = next(r for r in records if r["case"] == "t01 stability [prompt=terse]")
    assert first == {
        "case": "t01 stability [prompt=terse]",
        "rep": 0,
        "safety": False,
        "passed": {"brevity": True, "exact_label": True, "label_mentioned": True},
        "reasons": {
            "brevity": "Assertion passed",
            "exact_label": "Assertion passed",
            "label_mentioned": "Assertion passed",
        },
        "output": "bug",
        "latency_ms": 4,
        "cost_usd": 0,
        "tokens": 27,
        "vars": {
            "id": "t01",
            "review": "App crashes as soon as I open the settings page.",
            "expected": "bug",
        },
        "metadata": {"intent": "bug", "area": "stability"},
    }
    assert sum(r["safety"] for r in records) == 5 * 2 * 3


def test_two_prompts_of_one_file_compared_by_selecting() -> None:
    terse = read_external(BASELINE, ImportOptions(select={"prompt": "terse"}))
    guided = read_external(BASELINE, ImportOptions(select={"prompt": "guided"}))
    assert len(terse.records) == len(guided.records) == 60
    base, cand = collapse(terse.records), collapse(guided.records)
    assert base.keys() == cand.keys() and len(base) == 20  # paired test by test
    assert base == {d: p for (d, _), p in raw_collapse(BASELINE, "terse").items()}
    assert cand == {d: p for (d, _), p in raw_collapse(BASELINE, "guided").items()}
    assert flips(base, cand) == (
        ["t06 data", "t08 auth", "t19 collaboration"],
        ["t07 support", "t12 security", "t14 general"],
    )
    assert terse.manifest["key"]["prompt"].startswith("terse@")
    assert guided.manifest["key"]["prompt"].startswith("guided@")
    assert terse.manifest["run_id"] != guided.manifest["run_id"]
    assert terse.manifest["key"]["eval_set"] == guided.manifest["key"]["eval_set"]


def test_selecting_a_label_not_in_the_file_names_those_that_are() -> None:
    with pytest.raises(InputError, match="no prompt labelled 'v9'; the file holds: guided, terse"):
        read_external(BASELINE, ImportOptions(select={"prompt": "v9"}))
    with pytest.raises(InputError, match="the file holds: mock-model-v1"):
        read_external(BASELINE, ImportOptions(select={"provider": "gpt"}))
    with pytest.raises(InputError, match="cannot select by 'model'"):
        read_external(BASELINE, ImportOptions(select={"model": "x"}))
    picked = read_external(BASELINE, ImportOptions(select={"provider": "mock-model-v1"}))
    assert len(picked.records) == 120


def test_two_providers_in_one_file_stay_apart(tmp_path: Path) -> None:
    doc = json.loads(BASELINE.read_text())
    other = json.loads(CANDIDATE.read_text())["results"]
    shift = len(doc["results"]["prompts"])
    for row in other["results"]:
        row["promptIdx"] += shift
    doc["results"]["prompts"] += other["prompts"]
    doc["results"]["results"] += other["results"]
    merged = tmp_path / "results.json"
    merged.write_text(json.dumps(doc))

    run = read_external(merged)
    cases = collapse(run.records)
    assert len(cases) == 80
    assert "t01 stability [prompt=terse, provider=mock-model-v2]" in cases
    assert run.manifest["key"]["model"] == "mock-model-v1, mock-model-v2"
    v2 = read_external(merged, ImportOptions(select={"provider": "mock-model-v2"}))
    assert collapse(v2.records) == collapse(read_external(CANDIDATE).records)


def test_unknown_version_names_the_supported_ones(tmp_path: Path) -> None:
    doc = json.loads(BASELINE.read_text())
    doc["results"]["version"] = 4
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    assert detect_format(path) == "promptfoo"
    with pytest.raises(InputError, match=r"version 4 is not supported \(2, 3 are\)"):
        read_external(path)


def test_provider_errors_and_cached_repeats(tmp_path: Path) -> None:
    doc = json.loads(BASELINE.read_text())
    rows = [
        r
        for r in doc["results"]["results"]
        if r["testCase"]["description"] == "t01 stability" and r["prompt"]["label"] == "terse"
    ]
    rows[0].update(
        failureReason=2, success=False, error="429 Too Many Requests", gradingResult=None
    )
    rows[0]["response"] = {"error": "429 Too Many Requests"}
    for row in rows[1:]:
        row["response"]["cached"] = True
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))

    run = read_external(path)
    t01 = [r for r in run.records if r["case"] == "t01 stability [prompt=terse]"]
    assert [r.get("status", "ok") for r in t01] == ["infra", "ok", "ok"]
    assert (t01[0]["infra"], "passed" in t01[0]) == ("429 Too Many Requests", False)
    assert [r.get("cached", False) for r in t01] == [False, True, True]
    assert run.notes == [CachedRepeats(2, ("t01 stability [prompt=terse]",))]
    assert [note_words(note) for note in run.notes] == [
        "promptfoo served 2 repeats from its cache (t01 stability [prompt=terse]): those "
        "repeats are not independent runs; rerun with --no-cache"
    ]


# --- results version 2 -------------------------------------------------------------------------
# Hand-made from the documented v2 shape (EvaluateSummaryV2: `table.head.prompts`, `table.body[]`
# with one output per prompt column); no real v2 file was available.


def _v2_output(text: str, passes: list[bool], **extra: Any) -> dict[str, Any]:
    components = [
        {
            "pass": p,
            "score": int(p),
            "reason": "ok" if p else "no match",
            "assertion": {"type": "equals", "value": "{{expected}}"},
        }
        for p in passes
    ]
    return {
        "pass": all(passes),
        "score": sum(passes) / len(passes),
        "text": text,
        "prompt": "rendered",
        "latencyMs": 12,
        "cost": 0.0004,
        "failureReason": 0 if all(passes) else 1,
        "namedScores": {},
        "tokenUsage": {"total": 30, "prompt": 25, "completion": 5},
        "gradingResult": {
            "pass": all(passes),
            "score": 1,
            "reason": "",
            "componentResults": components,
        },
        "response": {"output": text, "tokenUsage": {"total": 30}},
        **extra,
    }


def _v2_row(description: str, review: str, outputs: list[dict[str, Any]]) -> dict[str, Any]:
    test = {
        "description": description,
        "vars": {"review": review, "expected": "bug"},
        "metadata": {"safety": description == "crash", "template": "reviews"},
    }
    return {"description": description, "outputs": outputs, "vars": [review, "bug"], "test": test}


V2: dict[str, Any] = {
    "evalId": "eval-v2-hand-made",
    "results": {
        "version": 2,
        "timestamp": "2024-05-01T10:00:00.000Z",
        "results": [],
        "stats": {"successes": 5, "failures": 3, "tokenUsage": {}},
        "table": {
            "head": {
                "prompts": [
                    {"raw": "Classify: {{review}}", "label": "short", "provider": "openai:gpt-4o"},
                    {"raw": "You triage. {{review}}", "label": "long", "provider": "openai:gpt-4o"},
                ],
                "vars": ["review", "expected"],
            },
            "body": [
                _v2_row(
                    "crash",
                    "App crashes",
                    [_v2_output("bug", [True, True]), _v2_output("bug", [True, True])],
                ),
                _v2_row(
                    "crash",
                    "App crashes",
                    [
                        _v2_output(
                            "",
                            [False],
                            failureReason=2,
                            error="timeout after 30s",
                            gradingResult=None,
                            response={"error": "timeout after 30s"},
                        ),
                        _v2_output("bug.", [True, False]),
                    ],
                ),
                _v2_row(
                    "slow",
                    "Slow start",
                    [_v2_output("bug", [True, True]), _v2_output("bug", [True, True])],
                ),
                _v2_row(
                    "slow",
                    "Slow start",
                    [_v2_output("feature", [False, False]), _v2_output("bug", [True, True])],
                ),
            ],
        },
    },
    "config": {"description": "hand-made v2"},
}


def test_version_2_table(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(V2))
    run = read_external(path)
    by_case: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in run.records:
        by_case[record["case"]].append(record)
    assert sorted(by_case) == [
        "crash [prompt=long]",
        "crash [prompt=short]",
        "slow [prompt=long]",
        "slow [prompt=short]",
    ]
    timeout = by_case["crash [prompt=short]"][1]
    assert (timeout["rep"], timeout["status"], timeout["infra"]) == (
        1,
        "infra",
        "timeout after 30s",
    )
    crash_long = by_case["crash [prompt=long]"]
    assert [r["passed"] for r in crash_long] == [
        {"equals": True, "equals#2": True},
        {"equals": True, "equals#2": False},
    ]
    assert crash_long[0]["safety"] is True and crash_long[0]["template"] == "reviews"
    assert (crash_long[1]["output"], crash_long[1]["cost_usd"], crash_long[1]["tokens"]) == (
        "bug.",
        0.0004,
        30,
    )
    # the safety case fails on one bad repetition; `slow [prompt=short]` ties 1-1 and fails closed
    assert collapse(run.records) == {
        "crash [prompt=short]": True,  # its failed repetition is infra, not counted
        "crash [prompt=long]": False,
        "slow [prompt=short]": False,
        "slow [prompt=long]": True,
    }
    assert run.manifest["key"]["model"] == "openai:gpt-4o"
    assert run.manifest["key"]["harness"] == "promptfoo@unknown"


def test_version_2_without_a_table_is_an_input_error(tmp_path: Path) -> None:
    doc = copy.deepcopy(V2)
    del doc["results"]["table"]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError) as error:
        read_external(path)
    assert error.value.field == "results.table"
