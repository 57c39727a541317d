"""`flipgate suite audit` and `flipgate suite retire` as a scheduled job and a curator use them."""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest
import yaml

from flipgate.cli import main
from tests.conftest import SAMPLES, copy_sample

SUPPORT = SAMPLES / "support-assistant"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_audit_text_has_the_seed_lines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "suite", "audit", str(SUPPORT))
    assert code == 0
    for line in (
        "GAP multi_turn_ops: 22.1% of traffic, 1 case",
        "GAP document_upload: 19.4% of traffic, 0 cases",
        "GAP es_ES_any_intent: 11.8% of traffic, 0 cases",
        "covered: 41.3% of traffic",
        "71 of 112 live cases written in the suite's first six weeks",
        "median case age 14.0 months",
        "FREE 12 cases held by runs of at least 2 systems and passed in every run holding it",
        "model-2025-06 (2025-07-21) 0.612 was 0.874 on suite@v6: 85 of its 87 cases, bar moved",
        "ONE RULE undecided fired in all 5 rejections",
        "FLAT the suite stayed flat while csat moved -13.6%",
    ):
        assert line in out, line
    assert out.index("GAP multi_turn_ops") < out.index("GAP document_upload")  # by share


def test_audit_json_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "suite", "audit", str(SUPPORT), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["coverage"]["covered_share"] == 0.413
    assert [g["intent"] for g in data["coverage"]["gaps"]] == [
        "multi_turn_ops",
        "document_upload",
        "es_ES_any_intent",
    ]
    assert data["case_age"]["first_six_weeks"] == 71
    assert len(data["free_passes"]["cases"]) == 12
    assert len(data["stale_references"]["proposals"]) == 16
    head = data["counterfactual"]["rescores"][0]
    assert (round(head["score_now"], 3), round(head["score_then"], 3)) == (0.612, 0.874)
    assert data["rejections"]["one_rule"] == "undecided"
    code, out, _ = run(capsys, "suite", "audit", str(SUPPORT), "--format", "markdown")
    assert "- **GAP** multi\\_turn\\_ops: 22.1% of traffic, 1 case" in out


@pytest.mark.parametrize(("share", "code"), [("0.5", 1), ("50%", 1), ("0.4", 0)])
def test_fail_under(capsys: pytest.CaptureFixture[str], share: str, code: int) -> None:
    got, _, err = run(capsys, "suite", "audit", str(SUPPORT), "--fail-under", share)
    assert got == code
    assert ("below --fail-under" in err) == (code == 1)


def test_fail_under_without_traffic_is_bad_input_not_a_measured_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = workspace(tmp_path)
    (folder / "traffic.yaml").unlink()
    code, out, err = run(capsys, "suite", "audit", str(folder), "--fail-under", "0.5")
    assert (code, out) == (2, "")
    assert err == (
        f"flipgate: error: {folder}/traffic.yaml: no such file: --fail-under measures the "
        "traffic the suite covers, and there is no traffic to measure\n"
    )
    assert "0.0%" not in err


EDGE_DAYS = ("0001-01-01", "9999-12-31")


@pytest.mark.parametrize("day", EDGE_DAYS)
@pytest.mark.parametrize(
    "field", ["suite.yaml:started", "suite.yaml:added", "traffic.yaml:from", "--as-of"]
)
def test_the_calendar_s_first_and_last_days_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, day: str
) -> None:
    """9999-12-31 plus six weeks, 0001-01-01 less six months: past the calendar, never a traceback."""
    suite = "suite: s\nstarted: 2026-01-02\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n"
    folder = workspace(tmp_path, **{"suite.yaml": suite})
    as_of = ["--as-of", day] if field == "--as-of" else []
    if not as_of:
        name, key = field.split(":")
        text = (folder / name).read_text()
        (folder / name).write_text(re.sub(rf"{key}: 2026-01-0\d", f"{key}: {day}", text, count=1))
        assert day in (folder / name).read_text()
    for fmt in ("text", "json", "markdown"):
        code, out, err = run(capsys, "suite", "audit", str(folder), "--format", fmt, *as_of)
        assert code in (0, 2), err
        assert out if code == 0 else err.startswith("flipgate: error: ")


def test_an_intake_past_any_suite_s_is_refused_naming_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = 10**26
    suite = (
        f"suite: s\nintake: {{sampled_per_month: {huge}}}\n"
        "cases:\n  - {case: c1, intent: a, added: 2026-01-02}\n"
    )
    code, out, err = run(
        capsys,
        "suite",
        "audit",
        str(workspace(tmp_path, **{"suite.yaml": suite})),
        "--format",
        "json",
    )
    assert code == 2 and not out
    assert "field 'intake.sampled_per_month': at most 1,000,000,000" in err


def test_as_of_moves_the_ages(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "suite", "audit", str(SUPPORT), "--as-of", "2027-08-03")
    assert "median case age 26.0 months" in out


# --------------------------------------------------------------------------- bad input

MINIMAL = {
    "suite.yaml": "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n",
    "traffic.yaml": "window: {from: 2026-01-01, to: 2026-03-31}\nintents: {a: 0.5}\n",
    "registry.yaml": "flags: [f]\nendpoints: []\n",
    "production.yaml": (
        "signals: {csat: {better: higher}}\nperiods:\n"
        "  - {period: Q1, suite_pass_rate: 0.9, csat: 4.0}\n"
        "  - {period: Q2, suite_pass_rate: 0.9, csat: 4.1}\n"
    ),
}


def workspace(tmp_path: Path, **files: str) -> Path:
    for name, text in {**MINIMAL, **files}.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_minimal_workspace_audits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "suite", "audit", str(workspace(tmp_path)))
    assert code == 0
    assert "GAP a: 50.0% of traffic, 1 case" in out
    assert "not measured: history/ holds no run" in out


BAD = [
    (
        "suite.yaml",
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-13-02}\n",
        3,
        "cases.0.added",
    ),
    ("suite.yaml", "suite: s\ncases:\n  - {case: c1, added: 2026-01-02}\n", 3, "cases.0.intent"),
    (
        "suite.yaml",
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02, retired: 2026-02-01}\n",
        3,
        "cases.0.retired",
    ),
    (
        "suite.yaml",
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n  - {case: c1, intent: b, added: 2026-01-03}\n",
        4,
        "cases.1.case",
    ),
    (
        "suite.yaml",
        "suite: s\narchive:\n  - {case: c1, intent: a, added: 2026-01-02, retired: 2026-02-01}\n",
        3,
        "archive.0.reason",
    ),
    (
        "suite.yaml",
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02, flags: upload}\n",
        3,
        "cases.0.flags",
    ),
    (
        "suite.yaml",
        "suite: s\nintake: {sampled_per_month: -1}\ncases: []\n",
        2,
        "intake.sampled_per_month",
    ),
    ("suite.yaml", "suite: s\ncoverage: {min_cases: 0}\ncases: []\n", 2, "coverage.min_cases"),
    ("suite.yaml", "suite: s\ncasse: []\n", 2, "casse"),
    ("suite.yaml", "cases: []\n", None, "suite"),
    (
        "traffic.yaml",
        "window: {from: 2026-01-01, to: 2026-03-31}\nintents:\n  a: 0.7\n  b: 0.6\n",
        2,
        "intents",
    ),
    (
        "traffic.yaml",
        "window: {from: 2026-01-01, to: 2026-03-31}\nintents:\n  a: 1.5\n",
        3,
        "intents.a",
    ),
    (
        "traffic.yaml",
        "window: {from: 2026-04-01, to: 2026-03-31}\nintents: {a: 0.5}\n",
        1,
        "window.to",
    ),
    ("traffic.yaml", "intents: {a: 0.5}\n", None, "window.from"),
    ("registry.yaml", "flags: [f]\nremoved:\n  - {flag: g, date: someday}\n", 3, "removed.0.date"),
    (
        "registry.yaml",
        "flags: [f]\nremoved:\n  - {flag: f, date: 2026-01-01}\n",
        3,
        "removed.0.flag",
    ),
    ("registry.yaml", "flags: f\n", 1, "flags"),
    ("production.yaml", "signals: {csat: {better: up}}\nperiods: []\n", 1, "signals.csat.better"),
    (
        "production.yaml",
        "signals: {csat: {better: higher}}\nperiods:\n  - {period: Q1, suite_pass_rate: 9, csat: 4}\n  - {period: Q2, suite_pass_rate: 0.9, csat: 4}\n",
        3,
        "periods.0.suite_pass_rate",
    ),
    (
        "production.yaml",
        "signals: {csat: {better: higher}}\nperiods:\n  - {period: Q1, suite_pass_rate: 0.9, nps: 4}\n  - {period: Q2, suite_pass_rate: 0.9}\n",
        3,
        "periods.0.nps",
    ),
]


@pytest.mark.parametrize(("name", "text", "line", "field"), BAD)
def test_bad_input_names_file_line_and_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    text: str,
    line: int | None,
    field: str,
) -> None:
    ws = workspace(tmp_path)
    (ws / name).write_text(text)
    before = sorted(p.name for p in ws.iterdir())
    code, out, err = run(capsys, "suite", "audit", str(ws))
    assert code == 2 and out == ""
    where = f"{ws / name}:{line}: " if line else f"{ws / name}"
    assert where in err and f"field '{field}'" in err, err
    assert sorted(p.name for p in ws.iterdir()) == before


def test_an_unsigned_decision_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(tmp_path)
    (ws / "decisions").mkdir()
    (ws / "decisions" / "d.yaml").write_text("decision: reject\n")
    code, _, err = run(capsys, "suite", "audit", str(ws))
    assert code == 2 and "d.yaml" in err and "signature" in err


def test_no_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "suite", "audit", str(tmp_path))
    assert code == 2 and "suite.yaml" in err


# --------------------------------------------------------------------------- retirement


@pytest.fixture
def support(tmp_path: Path) -> Path:
    return copy_sample("support-assistant", tmp_path / "support-assistant")


def test_retire_moves_the_case_to_the_archive(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (support / "suite.yaml").read_text()
    code, out, _ = run(
        capsys,
        "suite",
        "retire",
        "sa-011",
        "--reason",
        "the v1 upload flow is gone",
        "-w",
        str(support),
    )
    assert code == 0 and "retired sa-011" in out
    after = (support / "suite.yaml").read_text()
    assert after.startswith(before.split("\n", 2)[0])  # the comments stay as written
    data = yaml.safe_load(after)
    assert "sa-011" not in {c["case"] for c in data["cases"]}
    archived = data["archive"][-1]
    assert archived["case"] == "sa-011" and archived["retired"] == date.today()
    assert archived["reason"] == "the v1 upload flow is gone"
    assert archived["flags"] == ["upload_v1"] and archived["intent"] == "upload_v1_flow"
    assert len(after.splitlines()) == len(before.splitlines())  # one line out, one line in
    _, out, _ = run(capsys, "suite", "audit", str(support), "--format", "json")
    data = json.loads(out)
    assert data["live_cases"] == 111 and len(data["free_passes"]["cases"]) == 11


@pytest.mark.parametrize(
    ("case", "reason", "said"),
    [
        ("sa-999", "gone", "no case 'sa-999'"),
        ("sa-020", "  ", "--reason: a retirement needs a reason"),
    ],
)
def test_retire_refuses(
    support: Path, capsys: pytest.CaptureFixture[str], case: str, reason: str, said: str
) -> None:
    before = (support / "suite.yaml").read_bytes()
    code, _, err = run(capsys, "suite", "retire", case, "--reason", reason, "-w", str(support))
    assert code == 2 and said in err
    assert (support / "suite.yaml").read_bytes() == before


def test_retire_refuses_a_retired_case(support: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archived = yaml.safe_load((support / "suite.yaml").read_text())["archive"][0]["case"]
    before = (support / "suite.yaml").read_bytes()
    code, _, err = run(capsys, "suite", "retire", archived, "--reason", "again", "-w", str(support))
    assert code == 2 and "already retired" in err
    assert "suite.yaml:122: field 'archive.0.case'" in err
    assert (support / "suite.yaml").read_bytes() == before


def test_retire_into_a_manifest_without_an_archive(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(tmp_path)
    code, _, _ = run(capsys, "suite", "retire", "c1", "--reason", "r", "-w", str(ws))
    data = yaml.safe_load((ws / "suite.yaml").read_text())
    assert code == 0 and data["cases"] == [] and data["archive"][0]["case"] == "c1"


def test_retire_in_a_flow_style_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = workspace(
        tmp_path,
        **{
            "suite.yaml": "suite: s\ncases: [{case: c1, intent: a, added: 2026-01-02}, {case: c2, intent: a, added: 2026-01-02}]\n"
        },
    )
    code, _, _ = run(capsys, "suite", "retire", "c2", "--reason", "r", "-w", str(ws))
    data = yaml.safe_load((ws / "suite.yaml").read_text())
    assert code == 0 and [c["case"] for c in data["cases"]] == ["c1"]
    assert data["archive"][0]["case"] == "c2"


# --------------------------------------------------------------------------- the gate


def test_the_gate_leaves_retired_cases_out_and_lists_them(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "gate", str(support), "--format", "json")
    before = json.loads(out)
    assert code == 0 and before["retired"][0]["case"] == "sa-024"
    flipped = before["flipped"][0]["case"]
    run(capsys, "suite", "retire", flipped, "--reason", "tests a removed flow", "-w", str(support))
    code, out, _ = run(capsys, "gate", str(support), "--format", "json")
    after = json.loads(out)
    assert flipped not in {f["case"] for f in after["flipped"]}
    assert after["retired_flipped"] == [flipped]
    assert after["b"] + after["c"] == before["b"] + before["c"] - 1
    retired = {r["case"]: r for r in after["retired"]}
    assert retired[flipped]["reason"] == "tests a removed flow"
    assert retired[flipped]["retired"] == date.today().isoformat()
    _, text, _ = run(capsys, "gate", str(support))
    assert f"{flipped} retired {date.today()}: tests a removed flow" in text
    assert "cases retired after the baseline run was created" in text


def test_a_retirement_in_the_change_under_test_is_invalid(
    support: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = tmp_path / "base-suite.yaml"
    shutil.copy(support / "suite.yaml", base)
    run(capsys, "suite", "retire", "sa-011", "--reason", "v1 upload is gone", "-w", str(support))
    code, out, _ = run(capsys, "gate", str(support), "--base-suite", str(base), "--format", "json")
    data = json.loads(out)
    assert code == 4 and data["verdict"] == "INVALID"
    assert any("retires sa-011" in r for r in data["invalid_reasons"])
    # the same retirement, landed where the change is going, is not the change's to excuse
    code, _, _ = run(capsys, "gate", str(support), "--base-suite", str(support / "suite.yaml"))
    assert code == 0


def test_retire_keeps_a_block_style_manifest_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        "# the support suite\nsuite: s\narchive:\n"
        "  - {case: c0, intent: a, added: 2026-01-01, retired: 2026-01-05, reason: old}\n"
        "cases:\n  # written from tickets\n"
        "  - case: c1\n    intent: a\n    added: 2026-01-02\n"
        "  - case: c2\n    intent: a\n    added: 2026-01-02   # the refund one\n"
        "  - case: c3\n    intent: a\n    added: 2026-01-03\n# end\n"
    )
    ws = workspace(tmp_path, **{"suite.yaml": text})
    for case in ("c2", "c3"):
        code, _, _ = run(capsys, "suite", "retire", case, "--reason", f"gone {case}", "-w", str(ws))
        assert code == 0
    today = date.today()
    assert (ws / "suite.yaml").read_text() == (
        "# the support suite\nsuite: s\narchive:\n"
        "  - {case: c0, intent: a, added: 2026-01-01, retired: 2026-01-05, reason: old}\n"
        f"  - {{case: c2, intent: a, added: 2026-01-02, retired: {today}, reason: gone c2}}\n"
        f"  - {{case: c3, intent: a, added: 2026-01-03, retired: {today}, reason: gone c3}}\n"
        "cases:\n  # written from tickets\n"
        "  - case: c1\n    intent: a\n    added: 2026-01-02\n# end\n"
    )
    assert not [p for p in ws.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_a_bad_history_run_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = workspace(tmp_path)
    run_dir = ws / "history" / "old"
    run_dir.mkdir(parents=True)
    (run_dir / "run.yaml").write_text("run_id: old\n")
    (run_dir / "results.jsonl").write_text('{"case": "c1", "expected": "approve"}\n{"rep": 0}\n')
    code, out, err = run(capsys, "suite", "audit", str(ws))
    assert code == 2 and out == ""
    assert f"{run_dir / 'results.jsonl'}:2" in err and "case" in err


def test_two_history_runs_with_one_run_id_are_refused(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = support / "history"
    shutil.copytree(history / "2025-09-30-q3", history / "2025-09-30-q3-copy")
    code, out, err = run(capsys, "suite", "audit", str(support))
    assert code == 2 and out == ""
    assert err.startswith(f"flipgate: error: {history / '2025-09-30-q3-copy' / 'run.yaml'}")
    assert f"is also in {history / '2025-09-30-q3'}" in err and "run_id" in err


def test_retire_on_a_broken_manifest_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-02-30}\n"
    ws = workspace(tmp_path, **{"suite.yaml": text})
    code, _, err = run(capsys, "suite", "retire", "c1", "--reason", "r", "-w", str(ws))
    assert code == 2 and "suite.yaml:3" in err
    assert (ws / "suite.yaml").read_text() == text
    assert sorted(p.name for p in ws.iterdir()) == sorted(MINIMAL)
