"""Inspect AI logs read through Inspect's own data model, on the real logs of tests/fixtures/inspect:
each defect of issue 22 (items 2 and 6) and issue 28 (items 9 and 17) that the text-searching,
untyped reader had, and what a run that did not finish says about itself."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.importers import ImportedRun, read_external
from flipgate.core.importers.completeness import Completeness, Exclusion, Tally
from flipgate.core.importers.notes import LogNotFinished
from flipgate.present.run_notes import note_words
from tests.importers.conftest import INSPECT, INSPECT_LOGS


def imported(name: str) -> ImportedRun:
    return read_external(INSPECT / f"{name}.eval")


def by_key(run: ImportedRun) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["case"], r["rep"]): r for r in run.records}


@pytest.mark.parametrize("name", INSPECT_LOGS)
def test_the_eval_and_its_json_twin_give_the_same_run(
    name: str, inspect_json: Callable[[str], Path]
) -> None:
    archive, twin = imported(name), read_external(inspect_json(name))
    assert archive.records == twin.records
    assert archive.completeness == twin.completeness
    assert {k: v for k, v in archive.manifest.items() if k != "inspect"} == {
        k: v for k, v in twin.manifest.items() if k != "inspect"
    }


def test_a_tool_argument_named_cache_is_not_a_cache_hit() -> None:
    """Every sample calls lookup(cache="read"); the text search took each for a cache read and
    made the candidate INVALID."""
    assert not any(r.get("cached") for r in imported("candidate").records)
    assert not any(r.get("cached") for r in imported("cache-write").records)
    assert all(r.get("cached") for r in imported("cache-read").records)


def test_a_time_limit_is_infra_and_a_message_or_token_limit_a_fail_with_its_reason() -> None:
    records = by_key(imported("limits"))
    timed_out = records[("9", 0)]
    assert (timed_out["status"], timed_out["infra"]) == ("infra", "timeout")
    assert timed_out["limit"] == {
        "type": "time",
        "limit": 3.0,
        "reason": "Time limit exceeded. limit: 3 seconds",
    }
    for case, kind, limit in (("4", "message", 12), ("10", "token", 600)):
        stopped = records[(case, 0)]
        assert stopped.get("status") is None
        assert stopped["passed"]["limit"] is False
        assert stopped["reasons"]["limit"] == f"stopped by the {kind} limit ({limit})"
        assert stopped["limit"]["type"] == kind and stopped["limit"]["limit"] == limit
    # the log can stop a sample, so every gradable record answers the same check
    assert all(
        r["passed"]["limit"] is (r["case"] not in ("4", "10"))
        for r in records.values()
        if r.get("status") != "infra"
    )


def test_a_limit_is_a_fail_in_the_gate_and_a_timeout_infra(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["gate", str(INSPECT / "baseline.eval"), str(INSPECT / "limits.eval"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["infra"]["candidate"]["count"] == 6  # 9's three timeouts, 11's three NaN
    assert {"case": "4", "direction": "pass_to_fail", "source": "model"} in report["flipped"]


def test_a_score_of_nan_is_not_graded_rather_than_a_fail() -> None:
    unscored = by_key(imported("limits"))[("11", 0)]
    assert (unscored["status"], unscored["infra"], unscored["unscored"]) == (
        "infra",
        "unscored",
        ["graded"],
    )


def test_an_invalidated_sample_is_an_exclusion_with_who_and_why() -> None:
    run = imported("excluded")
    assert {r["case"] for r in run.records} == {"1", "2", "4", "9", "10", "11"}
    assert run.completeness is not None
    assert run.completeness.totals == Tally(expected=24, present=18, excluded=6)
    assert run.completeness.exclusions[0].by == "qa@example.com"
    assert run.completeness.exclusions[0].reason == "ticket text leaked the answer"
    assert {(e.case, e.rep) for e in run.completeness.exclusions} == {
        (case, rep) for case in ("3", "20") for rep in range(3)
    }
    assert run.completeness.cases["3"] == Tally(expected=3, present=0, excluded=3)


@pytest.mark.parametrize(
    ("name", "status", "present", "errored"),
    [
        ("baseline", "success", 24, 0),
        ("error", "error", 4, 2),
        ("killed", "started", 10, 0),
        ("cancelled", "cancelled", 14, 0),
    ],
)
def test_whether_the_run_finished_and_what_it_lacks(
    name: str, status: str, present: int, errored: int
) -> None:
    completeness = imported(name).completeness
    assert completeness is not None
    assert (completeness.finished, completeness.status) == (status == "success", status)
    assert completeness.totals == Tally(expected=24, present=present, errored=errored)
    assert sum(t.missing for t in completeness.cases.values()) == 24 - present
    assert (
        Completeness.from_manifest({"completeness": completeness.to_manifest()}, Path("run.yaml"))
        == completeness
    )


def test_an_errored_run_says_why_it_stopped() -> None:
    run = imported("error")
    assert run.completeness is not None
    assert run.completeness.detail == "RuntimeError('help desk returned HTTP 500')"
    assert run.notes == [LogNotFinished("error", 20, 24)]
    assert [note_words(note) for note in run.notes] == [
        "the Inspect log's status is 'error': the run did not finish "
        "(20 of 24 repetitions never ran)"
    ]


def test_integer_sample_ids_come_in_their_natural_order() -> None:
    cases = list(dict.fromkeys(r["case"] for r in imported("baseline").records))
    assert cases == ["1", "2", "3", "4", "9", "10", "11", "20"]


# --- bad logs: exit 2, naming the file and the sample ---------------------------------------------


def _rewritten(tmp_path: Path, change: Callable[[str, bytes], bytes | None]) -> Path:
    """The baseline .eval with each member put through `change` (None drops it), deflated."""
    from flipgate.core.importers.inspect_zip import EvalArchive

    out = tmp_path / "changed.eval"
    with (
        EvalArchive(INSPECT / "baseline.eval", 1 << 30) as archive,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as changed,
    ):
        for name, info in archive.members.items():
            data = change(name, archive.reader.read(info))
            if data is not None:
                changed.writestr(name, data)
    return out


def _sample_edit(
    member: str, edit: Callable[[dict[str, Any]], None]
) -> Callable[[str, bytes], bytes]:
    def change(name: str, data: bytes) -> bytes:
        if name != member:
            return data
        sample = json.loads(data)
        edit(sample)
        return json.dumps(sample).encode()

    return change


@pytest.mark.parametrize(
    ("change", "field", "said"),
    [
        (
            _sample_edit("samples/3_epoch_2.json", lambda s: s.pop("epoch")),
            "samples/3_epoch_2.json.epoch",
            "Field required",
        ),
        (
            _sample_edit("samples/3_epoch_2.json", lambda s: s.update(scores={})),
            "samples[3, epoch 2]",
            "neither scores nor an error",
        ),
        (
            _sample_edit("samples/3_epoch_2.json", lambda s: s.update(messages={"role": "user"})),
            "samples/3_epoch_2.json.messages",
            "valid array",
        ),
        (
            _sample_edit("samples/3_epoch_2.json", lambda s: s["scores"]["match"].update(value=[])),
            "samples[3, epoch 2].scores.match",
            "is not C/I/P/N",
        ),
        (
            # a newer format, whose fields may mean other things (here a status of its own)
            lambda name, data: (
                data.replace(b'"version":2', b'"version":3').replace(
                    b'"status":"success"', b'"status":"finished"'
                )
                if name == "header.json"
                else data
            ),
            "header.json",
            "format version 3",
        ),
    ],
)
def test_a_bad_log_exits_2_naming_the_file_and_the_sample(
    change: Callable[[str, bytes], bytes | None],
    field: str,
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = _rewritten(tmp_path, change)
    with pytest.raises(InputError) as error:
        read_external(log)
    assert error.value.path == log and error.value.field == field and said in error.value.message
    assert main(["import", str(log), str(tmp_path / "out")]) == 2
    assert str(log) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_truncated_log_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "cut.eval"
    log.write_bytes((INSPECT / "baseline.eval").read_bytes()[:40_000])
    assert main(["gate", str(INSPECT / "baseline.eval"), str(log)]) == 2
    assert f"{log}: not a readable .eval archive" in capsys.readouterr().err


def test_the_completeness_read_back_refuses_a_malformed_one() -> None:
    stated = Completeness(False, "error", Tally(3, 1), {"a": Tally(3, 1)}, (Exclusion("a", 0),))
    manifest = {"completeness": stated.to_manifest()}
    assert Completeness.from_manifest(manifest, Path("run.yaml")) == stated
    manifest["completeness"]["totals"]["present"] = "1"
    with pytest.raises(InputError) as error:
        Completeness.from_manifest(manifest, Path("run.yaml"))
    assert error.value.field == "completeness.totals.present"
    assert Completeness.from_manifest({}, Path("run.yaml")) is None
