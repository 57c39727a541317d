"""`flipgate gate --base-ref / --base-gate / --base-flaky` on a real git repository, and the JSON
fields the issue adds (each arm's cache key, the flaky list's size, budgets, the changes)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from flipgate.cli import main
from flipgate.core.errors import InputError
from flipgate.core.io.gitref import read_at_ref
from tests.conftest import SAMPLES, copy_sample

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

FLAKY_ENTRY = """\
  - case: case-033
    owner: qa-oncall
    added: 2026-11-26
    reason: the refund wording is ambiguous
    evidence: flipped in 1 of 3 identical baseline runs
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def committed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sample: str, name: str) -> Path:
    """A git repository holding a sample workspace at `suites/NAME`, committed on `main`."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "evals"
    copy_sample(sample, root / "suites" / name)
    git(root.parent, "init", "-q", "-b", "main", str(root))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the suite as merged")
    return root


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return committed(tmp_path, monkeypatch, "agent-suite", "agent")


@pytest.fixture
def support(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The support-assistant workspace (a suite manifest with two retired cases), committed."""
    return committed(tmp_path, monkeypatch, "support-assistant", "support") / "suites" / "support"


def gate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    code = main(["gate", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def test_a_margin_raised_and_a_flaky_entry_added_in_the_change_are_invalid(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = repo / "suites" / "agent"
    code, data, _ = gate(capsys, str(workspace), "--base-ref", "main")
    assert data["base"] == {
        "where": "base: main",
        "unchecked": [],
        "unchecked_files": [],
        "not_found_files": [],
        "loosened": [],
        "loosenings": [],
        "flaky_added": [],
    }
    assert code == 3

    gate_yaml = workspace / "gate.yaml"
    gate_yaml.write_text(gate_yaml.read_text().replace("margin: 2", "margin: 6"))
    flaky = workspace / "flaky.yaml"
    flaky.write_text(flaky.read_text() + FLAKY_ENTRY)
    code, data, _ = gate(capsys, str(workspace), "--base-ref", "main")
    assert (code, data["verdict"], data["rule"]) == (4, "INVALID", "invalid")
    assert data["base"]["loosened"] == ["sets.full.margin: 2 in the base, 6 here"]
    assert data["base"]["flaky_added"] == ["case-033"]
    assert data["invalid_reasons"][-1] == (
        "flaky entries added in the change under test (base: main): case-033: add flaky entries "
        "in a separate, reviewed change"
    )
    # beside each sentence, its code and values (docs/json.md)
    assert data["base"]["loosenings"] == [
        {
            "code": "raised",
            "message": "sets.full.margin: 2 in the base, 6 here",
            "setting": "sets.full.margin",
            "base": 2,
            "here": 6,
            "stat": None,
            "relative": False,
            "baseline_false_negatives": None,
            "baseline_mirror_approved": None,
        }
    ]
    assert [(r["code"], r["message"]) for r in data["invalid"]] == list(
        zip(("gate_loosened", "flaky_added"), data["invalid_reasons"], strict=True)
    )
    assert data["invalid"][-1]["cases"] == ["case-033"]

    # committed on a branch, the same change is still judged against where it is going; against
    # itself, the loosened gate lets the change through (net 6 <= margin 6): what --base-ref stops
    git(repo, "checkout", "-qb", "pr-412")
    git(repo, "commit", "-qam", "loosen the gate")
    assert gate(capsys, str(workspace), "--base-ref", "main")[0] == 4
    assert gate(capsys, str(workspace), "--base-ref", "HEAD")[:2][1]["verdict"] == "PASS"


def test_a_gate_file_deleted_in_the_change_is_checked_as_the_defaults(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = repo / "suites" / "agent"
    gate_yaml = workspace / "gate.yaml"
    gate_yaml.write_text(gate_yaml.read_text().replace("alpha: 0.05", "alpha: 0.1"))
    git(repo, "commit", "-qam", "a stricter alpha: more p-values block")
    gate_yaml.unlink()
    code, data, _ = gate(capsys, str(workspace), "--base-ref", "main")
    assert code == 4
    alpha, *budgets = data["base"]["loosened"]
    assert alpha == "alpha: 0.1 in the base, 0.05 here"
    assert budgets[0] == "budgets.latency_ms (p95) max_increase: +10% in the base, removed here"
    assert len(budgets) == 4


def test_a_workspace_moved_in_the_change_fails_closed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28 item 5: moved, the base's gate.yaml was 'missing', read as the defaults, and a
    stricter base (alpha 0.1) loosened back to the defaults passed unseen."""
    gate_yaml = repo / "suites" / "agent" / "gate.yaml"
    gate_yaml.write_text(gate_yaml.read_text().replace("alpha: 0.05", "alpha: 0.1"))
    git(repo, "commit", "-qam", "a stricter alpha")
    git(repo, "mv", "suites/agent", "suites/agent-v2")
    moved = repo / "suites" / "agent-v2"
    moved_gate = moved / "gate.yaml"
    moved_gate.write_text(moved_gate.read_text().replace("alpha: 0.1", "alpha: 0.05"))
    code, data, _ = gate(capsys, str(moved), "--base-ref", "main")
    assert (code, data["verdict"]) == (4, "INVALID")
    assert data["base"]["not_found_files"] == ["gate_spec", "flaky_list"]
    not_found = [r for r in data["invalid"] if r["code"] == "base_not_found"]
    assert [(r["file"], r["name"]) for r in not_found] == [
        ("gate_spec", "main:suites/agent-v2/gate.yaml"),
        ("flaky_list", "main:suites/agent-v2/flaky.yaml"),
    ]
    assert not_found[0]["message"] == (
        "the gate spec is not at the base (main:suites/agent-v2/gate.yaml does not exist): added "
        "or moved in the change under test, it cannot be checked against what it was; add or "
        "move it in a separate, reviewed change, or name the base's with --base-gate"
    )
    # merged where the change is going, the files are there, and checked
    git(repo, "commit", "-qam", "move the suite")
    code, data, _ = gate(capsys, str(moved), "--base-ref", "HEAD")
    assert data["verdict"] != "INVALID" and data["base"]["not_found_files"] == []


def test_a_linked_gate_file_at_the_base_is_followed_within_the_tree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = repo / "suites" / "agent"
    shared = repo / "shared-gate.yaml"
    shared.write_text((workspace / "gate.yaml").read_text().replace("alpha: 0.05", "alpha: 0.1"))
    (workspace / "gate.yaml").unlink()
    (workspace / "gate.yaml").symlink_to("../../shared-gate.yaml")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "one gate for every suite, through a link")
    (workspace / "gate.yaml").unlink()
    (workspace / "gate.yaml").write_text(shared.read_text().replace("alpha: 0.1", "alpha: 0.05"))
    code, data, _ = gate(capsys, str(workspace), "--base-ref", "main")
    assert (code, data["base"]["loosened"]) == (4, ["alpha: 0.1 in the base, 0.05 here"])

    here = (workspace / "gate.yaml").read_text()
    (workspace / "gate.yaml").unlink()
    (workspace / "gate.yaml").symlink_to("/etc/hostname")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a link out of the tree")
    (workspace / "gate.yaml").unlink()
    (workspace / "gate.yaml").write_text(here)  # the gate as the change has it: a file
    code, _, err = gate(capsys, str(workspace), "--base-ref", "HEAD")
    assert code == 2
    assert err == (
        "flipgate: error: HEAD:suites/agent/gate.yaml: a link out of the repository, to "
        "'/etc/hostname': only files in the tree are read\n"
    )


def test_base_files_named_directly(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = repo / "suites" / "agent"
    base_gate = tmp_path / "base-gate.yaml"
    base_gate.write_text("escalation: {runs: 7}\n")
    code, data, _ = gate(capsys, str(workspace), "--base-gate", str(base_gate))
    assert code == 4
    assert data["base"]["loosened"] == ["escalation.runs: 7 in the base, 5 here"]
    assert data["base"]["unchecked"] == ["flaky list"]


def test_a_base_ref_that_does_not_exist_is_bad_input(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, err = gate(capsys, str(repo / "suites" / "agent"), "--base-ref", "no-such-branch")
    assert (code, data) == (2, {})
    assert err.startswith(
        "flipgate: error: --base-ref: no revision 'no-such-branch' in the repository at"
    )


def test_a_base_ref_outside_a_repository_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    copy_sample("agent-suite", tmp_path / "ws")
    code, _, err = gate(capsys, str(tmp_path / "ws"), "--base-ref", "main")
    assert code == 2 and "not inside a git repository" in err


def test_base_ref_and_base_files_exclude_each_other(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workspace = repo / "suites" / "agent"
    code, _, err = gate(
        capsys, str(workspace), "--base-ref", "main", "--base-gate", str(workspace / "gate.yaml")
    )
    assert code == 2 and "not both" in err


def test_a_bad_gate_file_at_the_base_names_the_revision_and_line(repo: Path) -> None:
    gate_yaml = repo / "suites" / "agent" / "gate.yaml"
    gate_yaml.write_text("alpha: [oops\n")
    git(repo, "commit", "-qam", "broken")
    from flipgate.core.gate.loosening import base_at_ref

    with pytest.raises(InputError) as error:
        base_at_ref("HEAD", gate_yaml, None)
    assert str(error.value.path) == "HEAD:suites/agent/gate.yaml"
    assert error.value.line is not None


def test_read_at_ref_gives_the_committed_bytes_or_none(repo: Path) -> None:
    gate_yaml = repo / "suites" / "agent" / "gate.yaml"
    committed = gate_yaml.read_bytes()
    gate_yaml.write_text("alpha: 0.2\n")
    at = read_at_ref(gate_yaml, "main")
    assert (at.content, str(at.name)) == (committed, "main:suites/agent/gate.yaml")
    assert read_at_ref(repo / "suites" / "agent" / "absent.yaml", "main").content is None
    with pytest.raises(InputError, match="not a git revision"):
        read_at_ref(gate_yaml, "--output=/tmp/x")


def test_the_json_carries_each_arms_key_and_the_flaky_list_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, data, _ = gate(capsys, str(SAMPLES / "agent-suite"))
    assert data["key"]["baseline"]["prompt"] == "prompts@7c1e9a"
    assert data["key"]["candidate"]["prompt"] == "prompts@b83d20"
    assert data["flaky"]["size"] == 2
    assert data["changes"] == {
        "edited": {},
        "edits": {},
        "deleted": [],
        "new": [],
        "cached": {},
        "entries": [],
    }
    assert [b["metric"] for b in data["budgets"]] == ["latency_ms", "cost_usd", "steps", "tokens"]
    assert not any(b["exceeded"] for b in data["budgets"])


def test_a_retirement_in_the_change_is_invalid_against_the_base_ref(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data, _ = gate(capsys, str(support), "--base-ref", "main")
    assert data["base"]["unchecked"] == [] and data["verdict"] != "INVALID"

    assert (
        main(["suite", "retire", "sa-011", "--reason", "v1 upload is gone", "-w", str(support)])
        == 0
    )
    capsys.readouterr()
    code, data, _ = gate(capsys, str(support), "--base-ref", "main")
    assert (code, data["verdict"]) == (4, "INVALID")
    assert data["invalid_reasons"][-1].startswith("the change under test retires sa-011:")

    # merged where the change is going, the retirement is no longer this change's to excuse
    git(support, "commit", "-qam", "retire sa-011")
    code, data, _ = gate(capsys, str(support), "--base-ref", "main")
    assert data["verdict"] != "INVALID" and "sa-011" in {r["case"] for r in data["retired"]}


def test_a_manifest_the_change_adds_retires_every_archived_case_itself(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(support, "rm", "-q", "--cached", "suite.yaml")
    git(support, "commit", "-qm", "the suite before it had a manifest")
    code, data, _ = gate(capsys, str(support), "--base-ref", "main")
    assert code == 4
    assert "retires sa-024, sa-045:" in data["invalid_reasons"][-1]


def test_a_bad_manifest_at_the_base_ref_names_the_revision_and_line(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = support / "suite.yaml"
    good = manifest.read_text()
    manifest.write_text(good.replace("suite: ", "suite: [oops\n", 1))
    git(support, "commit", "-qam", "broken")
    manifest.write_text(good)
    code, data, err = gate(capsys, str(support), "--base-ref", "main")
    assert (code, data) == (2, {})
    assert err.startswith("flipgate: error: main:suites/support/suite.yaml:")


def test_without_a_base_the_unchecked_retirements_are_said(
    support: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, data, _ = gate(capsys, str(support))
    assert data["base"]["unchecked"] == ["gate spec", "flaky list", "suite manifest"]
    assert data["base"]["unchecked_files"] == ["gate_spec", "flaky_list", "suite_manifest"]
    main(["gate", str(support)])
    assert (
        "no base gate spec, flaky list or suite manifest given (--base-ref REF, or --base-gate, "
        "--base-flaky and --base-suite): whether this change loosened the gate, added flaky "
        "entries or retired cases was not checked"
    ) in capsys.readouterr().out
    code, _, err = gate(
        capsys, str(support), "--base-ref", "main", "--base-suite", str(support / "suite.yaml")
    )
    assert code == 2 and "not both" in err
