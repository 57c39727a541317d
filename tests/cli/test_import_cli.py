"""`flipgate import` and logs given straight to `flipgate gate`: the real logs of the real tools."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from flipgate.cli import main
from flipgate.core.runs.reading import load_run
from tests.conftest import INSPECT_LOGS, PROMPTFOO_LOGS


def test_import_writes_a_run_that_gates_like_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inspect = INSPECT_LOGS
    for arm in ("baseline", "candidate"):
        assert main(["import", str(inspect / f"{arm}.eval"), str(tmp_path / arm)]) == 0
    assert load_run(tmp_path / "candidate").reps.height == 90
    capsys.readouterr()
    main(["gate", str(tmp_path / "baseline"), str(tmp_path / "candidate"), "--format", "json"])
    from_runs = json.loads(capsys.readouterr().out)
    main(
        [
            "gate",
            str(inspect / "baseline.eval"),
            str(inspect / "candidate.eval"),
            "--format",
            "json",
        ]
    )
    from_logs = json.loads(capsys.readouterr().out)
    for field in ("verdict", "rule", "cells", "p", "flipped", "outcomes"):
        assert from_runs[field] == from_logs[field]


def test_promptfoo_key_drift_until_the_change_is_declared(
    capsys: pytest.CaptureFixture[str],
) -> None:
    promptfoo = PROMPTFOO_LOGS
    runs = [str(promptfoo / arm / "results.json") for arm in ("baseline", "candidate")]
    assert main(["gate", *runs, "--format", "json"]) == 1  # safety failures come first
    undeclared = json.loads(capsys.readouterr().out)
    assert undeclared["rule"] == "safety" and undeclared["key_drift"] == ["model"]
    assert "stale baseline" in undeclared["invalid_reasons"][0]
    assert main(["gate", *runs, "--change", "model", "--format", "json"]) == 1
    declared = json.loads(capsys.readouterr().out)
    assert declared["key_drift"] == [] and declared["invalid_reasons"] == []
    assert (declared["b"], declared["c"]) == (6, 2)


@pytest.mark.parametrize("kind", ["not-a-log", "climbing-zip", "truncated"])
def test_bad_logs_exit_2_and_write_nothing(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.eval"
    if kind == "not-a-log":
        log = tmp_path / "log.json"
        log.write_text('{"hello": "world"}')
    elif kind == "climbing-zip":
        with zipfile.ZipFile(log, "w") as archive:
            archive.writestr("../escape.json", "{}")
            archive.writestr("header.json", "{}")
    else:
        log.write_bytes((INSPECT_LOGS / "legacy-0.3.160" / "candidate.eval").read_bytes()[:5000])
    out = tmp_path / "out"
    assert main(["import", str(log), str(out)]) == 2
    assert str(log) in capsys.readouterr().err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [log.name]


@pytest.mark.parametrize("where", ["under a file", "read-only file system"])
def test_an_import_that_cannot_be_written_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "run" if where == "under a file" else Path("/proc/flipgate-import")
    code = main(["import", str(INSPECT_LOGS / "baseline.eval"), str(out)])
    assert code == 2
    assert f"flipgate: error: {out}: cannot be written" in capsys.readouterr().err
    assert not out.exists()
