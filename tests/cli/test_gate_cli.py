"""`flipgate gate`: every exit code of SPEC §8, the JSON fields, and nothing written on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.cli import main
from tests.conftest import SAMPLES, RunWriter, passfail_rows, write_run
from tests.reference.generate import generate


def _workspace(
    tmp_path: Path, b: int, c: int, *, both_pass: int = 100, **cand_manifest: Any
) -> Path:
    base: dict[str, list[bool | None]] = {}
    cand: dict[str, list[bool | None]] = {}
    for i in range(both_pass + b + c):
        case = f"case-{i:03}"
        base[case] = [i < both_pass + b]
        cand[case] = [i < both_pass or i >= both_pass + b]
    write_run(tmp_path / "ws" / "baseline", passfail_rows(base), run_id="base")
    write_run(tmp_path / "ws" / "candidate", passfail_rows(cand), run_id="cand", **cand_manifest)
    return tmp_path / "ws"


def _gate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["gate", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("b", "c", "code", "verdict"),
    [(1, 1, 0, "PASS"), (10, 2, 1, "BLOCK"), (20, 12, 3, "INCONCLUSIVE")],
)
def test_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], b: int, c: int, code: int, verdict: str
) -> None:
    ws = _workspace(tmp_path, b, c)
    got, out, _ = _gate(capsys, str(ws), "--format", "json")
    data = json.loads(out)
    assert (got, data["verdict"], data["b"], data["c"]) == (code, verdict, b, c)


def test_invalid_exits_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path, 0, 0, key={"model": "m1", "prompt": "p2"})
    code, out, _ = _gate(capsys, str(ws), "--format", "json")
    assert code == 4 and json.loads(out)["key_drift"] == ["prompt"]
    code, _, _ = _gate(capsys, str(ws), "--change", "prompt")
    assert code == 0


def test_json_has_every_field_of_spec_8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path, 20, 12)
    _, out, _ = _gate(capsys, str(ws / "baseline"), str(ws / "candidate"), "--format", "json")
    data = json.loads(out)
    for name in (
        "verdict",
        "rule",
        "cells",
        "b",
        "c",
        "p",
        "flipped",
        "unpaired",
        "infra",
        "outcomes",
        "key_drift",
        "escalation",
    ):
        assert name in data
    assert set(data["cells"]) == {"both_pass", "both_fail", "pass_to_fail", "fail_to_pass"}
    assert data["rule"] == "undecided"
    assert {f["direction"] for f in data["flipped"]} == {"pass_to_fail", "fail_to_pass"}
    assert set(data["infra"]["baseline"]) >= {"count", "share"}
    assert set(data["outcomes"]["candidate"]) >= {
        "agreement",
        "false_negative",
        "false_positive",
        "inconclusive",
        "mirror",
        "decisions",
        "cost",
    }
    assert (
        data["escalation"]["action"] == "rerun_flipped" and len(data["escalation"]["cases"]) == 32
    )


def test_bad_input_exits_2_and_names_file_line_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path, 1, 1)
    with (ws / "candidate" / "results.jsonl").open("a") as handle:
        handle.write('{"case": "x", "passed": "maybe"}\n')
    plan = tmp_path / "plan.yaml"
    code, out, err = _gate(capsys, str(ws), "--rerun-plan", str(plan))
    assert code == 2 and out == ""
    assert f"{ws / 'candidate' / 'results.jsonl'}:103: field 'passed'" in err
    assert not plan.exists()


def test_bad_usage_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["gate"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["gate", str(tmp_path), "--format", "xml"])
    assert info.value.code == 2
    code, _, err = _gate(capsys, str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "c"))
    assert code == 2 and "exactly two runs" in err
    code, _, err = _gate(capsys, str(tmp_path))
    assert code == 2 and "not a workspace" in err
    (tmp_path / "baseline").mkdir()
    (tmp_path / "candidates").mkdir()  # a ranking workspace: the error says how to read it
    code, _, err = _gate(capsys, str(tmp_path))
    assert code == 2 and f"rank them with `flipgate rank {tmp_path}`" in err


def test_bad_gate_spec_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = _workspace(tmp_path, 1, 1)
    (ws / "gate.yaml").write_text("alpha: 0.05\nmargn: 3\n")
    code, _, err = _gate(capsys, str(ws))
    assert code == 2 and "gate.yaml:2: field 'margn': unknown setting" in err


def test_rerun_plan_then_reruns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run_writer: RunWriter
) -> None:
    ws = _workspace(tmp_path, 20, 12)
    plan_path = tmp_path / "plan.yaml"
    code, _, err = _gate(capsys, str(ws), "--rerun-plan", str(plan_path))
    assert code == 3 and "rerun plan written" in err
    plan = yaml.safe_load(plan_path.read_text())
    cases = [item["case"] for item in plan["cases"]]
    assert len(cases) == 32 and plan["runs"] == 5
    rerun_b = run_writer(
        "rb",
        passfail_rows({case: [True] * 5 for case in cases}),
        key={"model": "m1", "prompt": "p1"},
    )
    rerun_c = run_writer(
        "rc",
        passfail_rows({case: [True] * 5 for case in cases}),
        key={"model": "m1", "prompt": "p1"},
    )
    code, out, _ = _gate(
        capsys,
        str(ws),
        "--rerun-baseline",
        str(rerun_b),
        "--rerun-candidate",
        str(rerun_c),
        "--format",
        "json",
    )
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "PASS" and data["previous"]["verdict"] == "INCONCLUSIVE"
    code, _, err = _gate(capsys, str(ws), "--rerun-baseline", str(rerun_b))
    assert code == 2 and "both" in err


def test_text_output_has_no_colour_when_piped(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, 10, 2)
    done = subprocess.run(
        [sys.executable, "-m", "flipgate", "gate", str(ws)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "BLOCK: 10 cases broke, 2 were fixed; p = 0.019 <= 0.025" in done.stdout
    assert "\x1b[" not in done.stdout


def test_markdown_escapes_untrusted_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path, 0, 0)
    manifest = yaml.safe_load((ws / "candidate" / "run.yaml").read_text())
    manifest["run_id"] = "<script>x</script>|[link](http://evil)"
    (ws / "candidate" / "run.yaml").write_text(yaml.safe_dump(manifest))
    _, out, _ = _gate(capsys, str(ws), "--format", "markdown")
    # In a code span nothing is markup or HTML: the run id is shown there as written.
    assert "→ `<script>x</script>|[link](http://evil)`" in out
    assert out.count("<script>") == 1


def test_the_entry_point_collects_again_once_the_imports_are_done(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`flipgate` pauses the cycle collector only for its imports; the command runs with it on
    (the app lives for hours) and the exit code still comes out."""
    import gc

    import flipgate.cli
    from flipgate import launch

    seen: dict[str, object] = {}

    def command() -> int:
        seen["collecting"] = gc.isenabled()
        return 3

    monkeypatch.setattr(flipgate.cli, "main", command)
    monkeypatch.setattr(os, "_exit", lambda code: seen.setdefault("exit", code))
    try:
        launch.run()
    finally:
        gc.unfreeze()
    assert seen == {"collecting": True, "exit": 3}


def test_ctrl_c_is_said_in_a_line_and_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An interrupted `flipgate gate` printed a KeyboardInterrupt traceback into the CI log."""
    import gc

    import flipgate.cli
    from flipgate import launch

    def interrupted() -> int:
        raise KeyboardInterrupt

    exits: list[int] = []
    monkeypatch.setattr(flipgate.cli, "main", interrupted)
    monkeypatch.setattr(os, "_exit", exits.append)
    try:
        launch.run()
    finally:
        gc.unfreeze()
    assert exits == [130]
    assert capsys.readouterr().err == "flipgate: interrupted; nothing unfinished was written\n"


def test_reports_name_the_first_flipped_cases_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log line or a pull-request comment cannot hold ten thousand case names."""
    from flipgate.present.report import CASES_NAMED

    ws = _workspace(tmp_path, 40, 30)  # 70 flipped cases, 20 more than the reports name
    _, text, _ = _gate(capsys, str(ws))
    listing = next(line for line in text.splitlines() if line.startswith("flipped: "))
    assert listing.count("case-") == CASES_NAMED
    assert listing.endswith("and 20 more (`flipgate gate --format json` lists every flipped case)")
    _, markdown, _ = _gate(capsys, str(ws), "--format", "markdown")
    assert markdown.count("| case-") == CASES_NAMED
    assert "… and 20 more (`flipgate gate --format json` lists every flipped case)" in markdown
    _, out, _ = _gate(capsys, str(ws), "--format", "json")
    assert len(json.loads(out)["flipped"]) == 70


def test_reports_count_the_listed_cases_the_runs_hold_and_name_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entry for a case neither run has (renamed, deleted) leaves nothing out of b and c."""
    ws = _workspace(tmp_path, 1, 1)
    entry = {"owner": "qa", "added": "2026-11-01", "reason": "r", "evidence": "e"}
    entries = [{"case": case, **entry} for case in ("case-000", "case-old")]
    (ws / "flaky.yaml").write_text(yaml.safe_dump({"entries": entries}))
    _, text, _ = _gate(capsys, str(ws))
    assert "flaky list: 1 case left out of b and c\n" in text
    assert "flaky list: 1 entry for cases in neither run: case-old\n" in text
    _, markdown, _ = _gate(capsys, str(ws), "--format", "markdown")
    assert "- flaky list: 1 entry for cases in neither run: case-old\n" in markdown


def test_a_large_gate_reads_whole_in_an_80_column_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Long red-case histograms fold inside their cells; no figure or label is cut."""
    generate(tmp_path, 2000, 3)
    pair = [str(tmp_path / "parquet" / arm) for arm in ("baseline", "candidate")]
    _, text, _ = _gate(capsys, *pair)
    _, out, _ = _gate(capsys, *pair, "--format", "json")
    outcomes = json.loads(out)["outcomes"]
    assert "…" not in text
    tables = [line for line in text.splitlines() if line[:1] in "┏┃┡│└"]
    assert max(len(line) for line in tables) <= 80  # prose lines wrap where the log shows them
    decisions = next(line for line in text.splitlines() if line.startswith("│ decisions"))
    assert all(f"{outcomes[arm]['decisions']:,}" in decisions for arm in ("baseline", "candidate"))


def test_the_gate_on_parquet_loads_only_what_it_uses(tmp_path: Path) -> None:
    """Start-up is a share of every CI job's gate: a fresh interpreter gating a Parquet pair to
    INCONCLUSIVE (so its reruns are priced) loads no other command's module, not Textual, not
    pyarrow (Arrow reads JSONL: a tenth of a second), not Rich (the text report's: 0.06 s), not
    scipy (scipy.special alone is a third of a second, scipy.stats a second of CPU: the gate's
    sums are its own), past the exact sums of p too (a million-case pair flips more than
    `EXACT_FLIPS` cases)."""
    generate(tmp_path, 50, 3)
    pair = [str(tmp_path / "parquet" / arm) for arm in ("baseline", "candidate")]
    code = (
        "import sys\n"
        "import flipgate.core.gate.mcnemar\n"
        "flipgate.core.gate.mcnemar.EXACT_FLIPS = 1\n"
        "from flipgate.cli import main\n"
        f"assert main(['gate', *{pair!r}, '--format', 'json']) == 3\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    ran = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    loaded = set(ran.stderr.split("\n"))
    unused = ("textual", "flipgate.tui", "pyarrow", "scipy", "rich")
    assert not {m for m in loaded if m.split(".")[0] in unused or m.startswith(unused)}
    assert {m for m in loaded if m.startswith("flipgate.cli.")} == {
        "flipgate.cli.gate",
        "flipgate.cli.arguments",
    }


def test_reports_name_the_first_failed_safety_cases_and_count_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from flipgate.present.report import CASES_NAMED

    cases = [f"case-{i:03}" for i in range(CASES_NAMED + 10)]
    for arm, passed in (("b", True), ("c", False)):
        write_run(tmp_path / arm, passfail_rows({c: [passed] for c in cases}, safety=cases))
    more = "and 10 more (`flipgate gate --format json` lists every failed safety case)"
    code, text, _ = _gate(capsys, str(tmp_path / "b"), str(tmp_path / "c"))
    failures = next(line for line in text.splitlines() if line.startswith("safety failures: "))
    assert code == 1 and failures.count("case-") == CASES_NAMED and failures.endswith(more)
    _, markdown, _ = _gate(capsys, str(tmp_path / "b"), str(tmp_path / "c"), "--format", "markdown")
    failures = next(line for line in markdown.splitlines() if "**safety failures:**" in line)
    assert failures.count("case-") == CASES_NAMED and failures.endswith(more)


# --------------------------------------------------------------------------- standard output


def _gate_into(
    stdout: int, workspace: str = "listing-reviewer-decisive", **env: str
) -> subprocess.CompletedProcess[bytes]:
    """The gate on a sample workspace in a fresh process (BLOCK, unless another is named)."""
    return subprocess.run(
        [sys.executable, "-m", "flipgate", "gate", str(SAMPLES / workspace)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env={**os.environ, **env},
        timeout=60,
        check=False,
    )


def test_a_reader_that_leaves_keeps_the_verdict_s_exit_code() -> None:
    """`flipgate gate | head -c 100`: the pipe is closed before the report is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _gate_into(write_end, "listing-reviewer")
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (0, b"")  # PASS, as if the pipe had held


def test_a_full_disk_under_stdout_is_a_write_error() -> None:
    with open("/dev/full", "wb") as full:
        done = _gate_into(full.fileno())
    assert done.returncode == 2
    assert done.stderr.decode().startswith("flipgate: error: cannot write to standard output")


def test_an_ascii_only_stdout_gets_the_report_escaped(tmp_path: Path) -> None:
    with (tmp_path / "out.txt").open("wb") as out:
        done = _gate_into(out.fileno(), PYTHONIOENCODING="ascii")
    assert (done.returncode, done.stderr) == (1, b"")
    assert (tmp_path / "out.txt").read_bytes().decode("ascii").startswith("BLOCK")


# --------------------------------------------------------------------------- writing the plan


def test_a_rerun_plan_never_replaces_a_file_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--rerun-plan` replaced any file, the baseline's results.jsonl included."""
    ws = _workspace(tmp_path, 20, 12)
    results = ws / "baseline" / "results.jsonl"
    before = results.read_bytes()
    code, out, err = _gate(capsys, str(ws), "--rerun-plan", str(results))
    assert (code, out) == (2, "")
    assert "exists: give --replace-rerun-plan to write over it" in err
    assert results.read_bytes() == before
    plan = tmp_path / "plan.yaml"
    plan.write_text("old plan\n")
    code, _, _ = _gate(capsys, str(ws), "--rerun-plan", str(plan), "--replace-rerun-plan")
    assert code == 3 and "flipgate_rerun_plan: 1" in plan.read_text()


def test_a_rerun_plan_that_cannot_be_written_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _workspace(tmp_path, 20, 12)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, out, err = _gate(capsys, str(ws), "--rerun-plan", str(blocker / "plan.yaml"))
    assert (code, out) == (2, "")
    assert f"{blocker / 'plan.yaml'}: cannot be written" in err
    assert set(tmp_path.iterdir()) == {ws, blocker}  # nothing half-written
