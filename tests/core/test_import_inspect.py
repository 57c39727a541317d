"""The Inspect AI importer on real logs written by inspect-ai 0.3.285 and 0.3.160."""

from __future__ import annotations

import json
import shutil
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.core.errors import InputError
from flipgate.core.importers import (
    ImportedRun,
    ImportOptions,
    detect_format,
    read_external,
    write_run,
)
from flipgate.core.importers.notes import LogNotFinished
from flipgate.present.run_notes import note_words
from tests.conftest import INSPECT_LOGS, PROMPTFOO_LOGS

INSPECT = INSPECT_LOGS
LEGACY = INSPECT / "legacy-0.3.160"
PROMPTFOO = PROMPTFOO_LOGS / "baseline" / "results.json"


def collapse(records: list[dict[str, Any]]) -> dict[str, bool]:
    """Case -> pass after the repetition collapse (SPEC §3.1), from imported records."""
    reps: defaultdict[str, list[bool]] = defaultdict(list)
    safety: dict[str, bool] = {}
    for record in records:
        safety[record["case"]] = record.get("safety", False)
        if record.get("status") == "infra":
            continue
        passed = record.get("passed", {})
        checks = list(passed.values()) if isinstance(passed, dict) else [passed]
        expected, actual = record.get("expected", {}), record.get("actual", {})
        reps[record["case"]].append(
            all(checks) and all(actual[r] == e for r, e in expected.items())
        )
    return {case: all(r) if safety[case] else 2 * sum(r) > len(r) for case, r in reps.items()}


def raw_collapse(log: Path) -> dict[str, bool]:
    """The same, straight from Inspect's JSON: a repetition passes when every scorer says C."""
    reps: defaultdict[str, list[bool]] = defaultdict(list)
    safety = {}
    for sample in json.loads(log.read_text())["samples"]:
        reps[sample["id"]].append(all(s["value"] == "C" for s in sample["scores"].values()))
        safety[sample["id"]] = sample["metadata"]["safety"]
    return {case: all(r) if safety[case] else 2 * sum(r) > len(r) for case, r in reps.items()}


def flips(baseline: dict[str, bool], candidate: dict[str, bool]) -> tuple[list[str], list[str]]:
    b = sorted(c for c in baseline if baseline[c] and not candidate[c])
    c = sorted(c for c in baseline if not baseline[c] and candidate[c])
    return b, c


@pytest.mark.parametrize("ext", [".eval", ".json"])
def test_cases_and_flips_match_the_raw_log(ext: str) -> None:
    baseline = collapse(read_external(INSPECT / f"baseline{ext}").records)
    candidate = collapse(read_external(INSPECT / f"candidate{ext}").records)
    assert baseline == raw_collapse(INSPECT / "baseline.json")
    assert candidate == raw_collapse(INSPECT / "candidate.json")
    assert (sum(baseline.values()), sum(candidate.values())) == (23, 22)
    assert flips(baseline, candidate) == (
        ["lr-007", "lr-008", "lr-012", "lr-026"],
        ["lr-003", "lr-022", "lr-025"],
    )


def test_records_map_the_sample() -> None:
    run = read_external(INSPECT / "baseline.eval")
    assert len(run.records) == 90
    first = dict(run.records[0])
    assert [turn["role"] for turn in first.pop("messages")] == ["system", "user", "assistant"]
    assert first == {
        "case": "lr-001",
        "rep": 0,
        "safety": False,
        "passed": {"match": True, "includes": True},
        "output": "Reviewed the title, price and photos against the marketplace policy. "
        "DECISION: approve",
        "latency_ms": 460,
        "tokens": 42,
        "target": "approve",
        "metadata": {"intent": "legit_sale", "category": "sports"},
    }
    assert sum(r["safety"] for r in run.records) == 11 * 3
    # lr-003 ran P, P, F in the baseline: the third epoch (rep 2) fails both scorers
    lr003 = [r["passed"] for r in run.records if r["case"] == "lr-003"]
    assert lr003 == [{"match": True, "includes": True}] * 2 + [{"match": False, "includes": False}]


def test_manifest_holds_the_key() -> None:
    manifest = read_external(INSPECT / "baseline.eval").manifest
    assert manifest["run_id"] == "Nk8DiwaTvsnQdPSSQVTHYi"
    assert manifest["created"] == "2026-11-29T15:05:31+00:00"
    key = manifest["key"]
    assert key["model"] == "mockllm/model"
    assert key["harness"] == "inspect_ai@0.3.285"
    assert key["judge"] == "none"
    assert key["eval_set"].startswith("listing_review@") and key["eval_set"].endswith(":v0")
    assert "code" not in key  # the fixture's task is not in a git checkout
    assert manifest["inspect"]["task_args"] == {"arm": "baseline"}
    assert manifest["inspect"]["tags"] == ["baseline"]
    candidate = read_external(INSPECT / "candidate.eval").manifest["key"]
    assert candidate == key  # both arms measured the same thing; only the outputs differ


def test_eval_and_json_give_identical_records() -> None:
    for arm in ("baseline", "candidate"):
        eval_run = read_external(INSPECT / f"{arm}.eval")
        json_run = read_external(INSPECT / f"{arm}.json")
        assert eval_run.records == json_run.records
        assert eval_run.manifest["key"] == json_run.manifest["key"]


def test_legacy_deflate_logs_read_the_same() -> None:
    def graded(run: ImportedRun) -> list[tuple[Any, ...]]:
        return [(r["case"], r["rep"], r["safety"], r["passed"], r["output"]) for r in run.records]

    for arm in ("baseline", "candidate"):
        legacy = read_external(LEGACY / f"{arm}.eval")
        assert graded(legacy) == graded(read_external(INSPECT / f"{arm}.eval"))
        assert legacy.manifest["key"]["harness"] == "inspect_ai@0.3.160"


def test_detect_format_by_content(tmp_path: Path) -> None:
    renamed = tmp_path / "log.bin"
    shutil.copy(INSPECT / "baseline.eval", renamed)
    assert detect_format(renamed) == "inspect"
    assert detect_format(INSPECT / "baseline.json") == "inspect"
    assert detect_format(INSPECT / "listing_review.py") is None
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "run.yaml").write_text("run_id: x\n")
    assert detect_format(run_dir) is None
    assert detect_format(run_dir / "run.yaml") is None


# --- bad and unusual archives, built from the legacy (deflate) members -------------------------


def _legacy_members() -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(LEGACY / "baseline.eval") as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def _write_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def test_truncated_archive_is_an_input_error(tmp_path: Path) -> None:
    data = (INSPECT / "baseline.eval").read_bytes()
    truncated = tmp_path / "truncated.eval"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"not a readable \.eval archive"):
        read_external(truncated)


def test_corrupt_zstd_member_is_an_input_error(tmp_path: Path) -> None:
    data = bytearray((INSPECT / "baseline.eval").read_bytes())
    with zipfile.ZipFile(INSPECT / "baseline.eval") as archive:
        info = archive.getinfo("samples/lr-001_epoch_1.json")
    data[info.header_offset + 30 + len(info.filename) + 100] ^= 0xFF  # inside the zstd frame
    corrupt = tmp_path / "corrupt.eval"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(InputError) as error:
        read_external(corrupt)
    assert error.value.field == "samples/lr-001_epoch_1.json"


@pytest.mark.parametrize(
    "name", ["../escape.json", "samples/../../escape.json", "/etc/escape.json", "C:/escape.json"]
)
def test_member_climbing_out_is_an_input_error(tmp_path: Path, name: str) -> None:
    log = _write_zip(tmp_path / "climb.eval", [*_legacy_members(), (name, b"{}")])
    with pytest.raises(InputError, match="outside the archive"):
        read_external(log)


def test_missing_header_falls_back_to_the_journal(tmp_path: Path) -> None:
    members = [(n, d) for n, d in _legacy_members() if n not in ("header.json", "summaries.json")]
    run = read_external(_write_zip(tmp_path / "crashed.eval", members))
    assert run.manifest["run_id"] == "AG46kZ6MtVgPj4bDXp5vcS"
    assert run.manifest["inspect"]["status"] == "started"
    assert run.notes == [LogNotFinished("started", 0, 90)]
    assert [note_words(note) for note in run.notes] == [
        "the Inspect log's status is 'started': the run did not finish"
    ]
    assert collapse(run.records) == raw_collapse(INSPECT / "baseline.json")


def test_sample_written_twice_last_one_wins(tmp_path: Path) -> None:
    members = _legacy_members()
    name = "samples/lr-001_epoch_1.json"
    rewritten = json.loads(dict(members)[name])
    for score in rewritten["scores"].values():
        score["value"] = "I"
    with pytest.warns(UserWarning, match="Duplicate name"):
        log = _write_zip(
            tmp_path / "twice.eval", [*members, (name, json.dumps(rewritten).encode())]
        )
    records = read_external(log).records
    assert len(records) == 90
    assert records[0]["passed"] == {"match": False, "includes": False}


def test_a_json_file_of_neither_tool_is_an_input_error(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"results": [1, 2, 3]}')
    assert detect_format(other) is None
    with pytest.raises(InputError, match="not a log flipgate reads"):
        read_external(other)


# --- score mapping, on a small log built from the real one -------------------------------------


def _small_log(tmp_path: Path, samples: list[dict[str, Any]]) -> Path:
    doc = json.loads((INSPECT / "baseline.json").read_text())
    doc["samples"] = samples
    doc["eval"]["model_roles"] = {"grader": {"model": "openai/gpt-4o-mini"}}
    doc["eval"]["revision"] = {
        "type": "git",
        "origin": "x",
        "commit": "4f2a1c0d9e8b7",
        "dirty": True,
    }
    path = tmp_path / "small.json"
    path.write_text(json.dumps(doc))
    return path


def _sample(sample_id: str, epoch: int, **fields: Any) -> dict[str, Any]:
    return {"id": sample_id, "epoch": epoch, "target": "reject", "metadata": {}, **fields}


def test_scores_labels_errors_and_options(tmp_path: Path) -> None:
    log = _small_log(
        tmp_path,
        [
            _sample(
                "a",
                1,
                metadata={"safety": True, "template": "blades", "seller": "s-9"},
                scores={
                    "verdict": {"value": "I", "answer": "Approve", "explanation": "looks fine"},
                    "rubric": {"value": "P"},
                    "quality": {"value": 0.5},
                    "format": {"value": {"json": True, "length": "N"}},
                },
            ),
            _sample("a", 2, error={"message": "TimeoutError: sandbox", "traceback": "..."}),
        ],
    )
    run = read_external(log)
    ok, infra = run.records
    assert ok["expected"] == {"verdict": "reject"} and ok["actual"] == {"verdict": "approve"}
    assert ok["passed"] == {
        "rubric": False,
        "quality": False,
        "format/json": True,
        "format/length": False,
    }
    assert ok["reasons"] == {"verdict": "looks fine"}
    assert (ok["safety"], ok["template"], ok["metadata"]) == (True, "blades", {"seller": "s-9"})
    assert infra["status"] == "infra" and infra["infra"] == "TimeoutError: sandbox"
    assert "passed" not in infra
    assert run.manifest["key"]["judge"] == "openai/gpt-4o-mini"
    assert run.manifest["key"]["code"] == "git@4f2a1c0d9e8b+dirty"

    lenient = read_external(log, ImportOptions(partial_passes=True, pass_threshold=0.5))
    assert lenient.records[0]["passed"]["rubric"] is True
    assert lenient.records[0]["passed"]["quality"] is True


@pytest.mark.parametrize(
    ("log", "options", "flag", "said"),
    [
        (
            INSPECT / "baseline.json",
            ImportOptions(select={"prompt": "v1"}),
            "--select",
            "promptfoo",
        ),
        # Inspect's own scores: on a promptfoo file they were silently ignored.
        (PROMPTFOO, ImportOptions(partial_passes=True), "--partial-passes", "Inspect AI"),
        (PROMPTFOO, ImportOptions(pass_threshold=0.5), "--pass-threshold", "Inspect AI"),
    ],
)
def test_another_tool_s_option_is_refused(
    log: Path, options: ImportOptions, flag: str, said: str
) -> None:
    with pytest.raises(InputError) as error:
        read_external(log, options)
    assert error.value.field == flag and f"applies to {said}" in str(error.value)


def test_unknown_score_value_names_the_field(tmp_path: Path) -> None:
    log = _small_log(tmp_path, [_sample("a", 1, scores={"s": {"value": "maybe"}})])
    with pytest.raises(InputError) as error:
        read_external(log)
    assert error.value.field == "samples['a', epoch 1].scores.s"


# --- write_run ---------------------------------------------------------------------------------


def test_write_run_round_trips(tmp_path: Path) -> None:
    run = read_external(INSPECT / "baseline.eval")
    out = tmp_path / "runs" / "baseline"
    write_run(run, out)
    assert sorted(p.name for p in out.iterdir()) == ["results.jsonl", "run.yaml"]
    assert yaml.safe_load((out / "run.yaml").read_text()) == run.manifest
    lines = (out / "results.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == run.records
    assert list(tmp_path.joinpath("runs").iterdir()) == [out]  # no staging directory left


def test_write_run_into_an_empty_dir(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    write_run(read_external(INSPECT / "candidate.eval"), out)
    assert (out / "results.jsonl").read_text().count("\n") == 90


def test_write_run_refuses_a_non_empty_dir(tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.mkdir()
    (out / "run.yaml").write_text("run_id: signed\n")
    with pytest.raises(InputError, match="not an empty directory"):
        write_run(read_external(INSPECT / "baseline.eval"), out)
    assert (out / "run.yaml").read_text() == "run_id: signed\n"


def test_write_run_writes_nothing_on_failure(tmp_path: Path) -> None:
    run = read_external(INSPECT / "baseline.eval")
    broken = ImportedRun(run.source, run.tool, run.manifest, [*run.records, {"case": object()}])
    out = tmp_path / "out"
    with pytest.raises(InputError, match="cannot write"):
        write_run(broken, out)
    assert list(tmp_path.iterdir()) == []


# --- trajectories ------------------------------------------------------------------------------

AGENT = Path(__file__).parents[1] / "fixtures" / "inspect_agent"


def test_an_agent_log_gives_each_repetition_its_trajectory() -> None:
    """The refund agent's real logs: the candidate's prompt drops the confirmation step."""
    baseline, candidate = (
        read_external(AGENT / f"{arm}.eval") for arm in ("baseline", "candidate")
    )
    turns = candidate.records[0]["messages"]
    assert [t["role"] for t in turns] == [
        "system", "user", "assistant", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
    call = turns[4]["tool_calls"][0]
    assert (call["name"], call["arguments"]) == (
        "issue_refund",
        {"order_id": "A-1041", "amount": 180},
    )
    assert (turns[5]["name"], turns[5]["tool_call_id"]) == ("issue_refund", call["id"])
    asked = baseline.records[0]["messages"][4]
    assert asked["role"] == "assistant" and "Please confirm" in asked["content"]
    assert candidate.records[0]["passed"] == {"confirmed_first": False, "resolved": True}
    assert "attachment://" not in json.dumps([r["messages"] for r in baseline.records])


def test_attachments_and_content_parts_are_resolved(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "attachment://abc"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "look"}, {"type": "image", "image": "x"}],
        },
        {
            "role": "assistant",
            "content": [{"type": "reasoning", "reasoning": "hmm"}],
            "tool_calls": [
                {"id": "c", "function": "run", "arguments": {"code": "attachment://def"}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c",
            "function": "run",
            "content": "",
            "error": {"message": "boom"},
        },
    ]
    sample = _sample(
        "a",
        1,
        messages=messages,
        scores={"s": {"value": "C"}},
        attachments={"abc": "the long system prompt", "def": "print(1)"},
    )
    (record,) = read_external(_small_log(tmp_path, [sample])).records
    system, user, assistant, tool = record["messages"]
    assert system == {"role": "system", "content": "the long system prompt"}
    assert user["content"] == "look\n(image)"
    assert assistant["content"] == "(reasoning) hmm"
    assert assistant["tool_calls"] == [
        {"name": "run", "arguments": {"code": "print(1)"}, "id": "c"}
    ]
    assert tool == {
        "role": "tool",
        "content": "",
        "tool_call_id": "c",
        "name": "run",
        "error": "boom",
    }


def test_an_eval_member_is_read_whole_when_its_messages_need_attachments(tmp_path: Path) -> None:
    """A sample's attachments follow its events: the reader that stops after the scores goes on
    to the end only when a message points into them."""
    sample = _sample(
        "a",
        1,
        messages=[{"role": "user", "content": "attachment://abc"}],
        output={"completion": "done"},
        scores={"s": {"value": "C"}},
        events=[{"event": "model", "input": ["attachment://abc"]}],
        attachments={"abc": "the request, stored once"},
    )
    log = tmp_path / "small.eval"
    with zipfile.ZipFile(LEGACY / "baseline.eval") as real:  # deflate: zipfile reads it
        header = real.read("header.json")
    with zipfile.ZipFile(log, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", header)
        archive.writestr("summaries.json", json.dumps([{"id": "a", "epoch": 1}]))
        archive.writestr("samples/a_epoch_1.json", json.dumps(sample))
    (record,) = read_external(log).records
    assert record["messages"] == [{"role": "user", "content": "the request, stored once"}]


# --- hostile logs ---------------------------------------------------------------------------


def test_a_member_that_decompresses_past_the_bound_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    """A 625 KB archive holding a 400 MB member took 893 MB; here 4 MB of zeros, bound 1 MB."""
    members = [*_legacy_members(), ("samples/bomb_epoch_1.json", bytes(4_000_000))]
    log = _write_zip(tmp_path / "bomb.eval", members)
    assert log.stat().st_size < 300_000  # the log's own members, and 4 KB of deflated zeros
    with pytest.raises(InputError) as error:
        read_external(log, ImportOptions(max_member_mb=1))
    assert error.value.field == "samples/bomb_epoch_1.json"
    assert "past the bound of 1 MB (raise it with --max-member-mb)" in error.value.message
    with pytest.raises(InputError, match="not JSON"):  # read, under a raised bound
        read_external(log, ImportOptions(max_member_mb=5))


@pytest.mark.parametrize(
    ("scores", "field"),
    [
        ({"match": ["C"]}, "scores.match"),
        ([{"value": "C"}], "scores"),
    ],
)
def test_a_score_of_the_wrong_shape_names_its_field(
    tmp_path: Path, scores: Any, field: str
) -> None:
    sample = json.loads((INSPECT / "baseline.json").read_text())["samples"][0]
    log = _small_log(tmp_path, [{**sample, "scores": scores}])
    with pytest.raises(InputError) as error:
        read_external(log)
    assert error.value.field is not None and error.value.field.endswith(field)


def test_a_pass_threshold_that_is_no_finite_number_is_refused() -> None:
    from flipgate.core.importers import import_options

    with pytest.raises(InputError) as error:
        import_options({"pass_threshold": "nan"})
    assert str(error.value.path) == "--pass-threshold" and "finite" in error.value.message
