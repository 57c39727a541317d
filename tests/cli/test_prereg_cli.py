"""`flipgate prereg` and `gate --prereg` (issue 24 item 1): the rule registered and signed before
the candidate exists, and the gate held to it; a registration tampered with, signed by someone
not allowed, or made for another baseline is bad input, never a verdict."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.cli import main
from tests.conftest import KeyMaker, passfail_rows, write_run

Allow = Callable[[str, Path], Path]
ADA = "Ada Lovelace <ada@example.com>"
CASES = {f"c{i:02d}": [True, True, True] for i in range(20)}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A baseline alone, as on the base branch before any candidate ran; a gate.yaml."""
    ws = tmp_path / "ws"
    write_run(
        ws / "baseline", passfail_rows(CASES), run_id="base-1", created="2026-11-20T09:00:00Z"
    )
    (ws / "gate.yaml").write_text("alpha: 0.05\nsets:\n  full: {margin: 2, flip_cap: 10}\n")
    return ws


@pytest.fixture
def ada(isolated_git: Path, make_key: KeyMaker) -> Path:
    return make_key("ada")


def candidate(ws: Path, created: str = "2099-01-01T00:00:00Z", **manifest: Any) -> Path:
    """The candidate, run after the registration (its `created` after any test's clock)."""
    return write_run(
        ws / "candidate", passfail_rows(CASES), run_id="cand-1", created=created, **manifest
    )


def register(ws: Path, key: Path, *extra: str, out: str = "prereg.yaml") -> Path:
    target = ws.parent / out
    code = main(
        ["prereg", str(ws), "--key", str(key), "--reviewer", ADA, "--out", str(target), *extra]
    )
    assert code == 0
    return target


def gate(
    ws: Path, prereg: Path | None, signers: Path | None, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any], str]:
    capsys.readouterr()
    args = ["gate", str(ws), "--format", "json"]
    if prereg is not None:
        args += ["--prereg", str(prereg)]
    if signers is not None:
        args += ["--allowed-signers", str(signers)]
    code = main(args)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def test_a_registration_names_the_rule_and_is_signed_in_its_own_namespace(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    written = register(workspace, ada, "--change", "prompt")
    text = written.read_text()
    message, _, block = text.partition("signature: |\n")
    data = yaml.safe_load(message)
    assert data["signer"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
    assert data["baseline"] == {"run_id": "base-1", "key": {"model": "m1", "prompt": "p1"}}
    assert data["gate_spec"]["settings"]["alpha"] == 0.05
    assert data["gate_spec"]["settings"]["sets.full.margin"] == 2
    assert data["gate_spec"]["settings"]["outcomes.limits.false_negative_max"] == "baseline"
    assert data["flaky_list"]["path"] is None and data["suite_manifest"] is None
    assert data["change"] == ["prompt"]
    # ssh-keygen alone checks it, in the namespace flipgate-prereg and in no other
    signers = allow("ada@example.com", ada)
    armor = "".join(line[2:] + "\n" for line in block.splitlines())
    (workspace / "msg.sig").write_text(armor)
    check = ["ssh-keygen", "-Y", "verify", "-f", str(signers), "-I", "ada@example.com"]
    for namespace, verified in (("flipgate-prereg", 0), ("flipgate-decision", 255)):
        done = subprocess.run(
            [*check, "-n", namespace, "-s", str(workspace / "msg.sig")],
            input=message.encode(),
            capture_output=True,
            check=False,
        )
        assert done.returncode == verified, done.stderr
    capsys.readouterr()
    assert main(["verify", str(written), "--allowed-signers", str(signers)]) == 0
    assert "✓ signer" in capsys.readouterr().out
    # never written over
    assert main(["prereg", str(workspace), "--key", str(ada), "--reviewer", ADA,
                 "--out", str(written)]) == 2  # fmt: skip
    assert "never written over" in capsys.readouterr().err


def test_the_gate_held_to_the_rule_registered_says_so(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    written = register(workspace, ada)
    candidate(workspace)
    signers = allow("ada@example.com", ada)
    code, report, _ = gate(workspace, written, signers, capsys)
    assert (code, report["verdict"]) == (0, "PASS")
    registration = report["registration"]
    assert registration["code"] == "registered"
    assert registration["signer"] == ADA and registration["before_run"] == "cand-1"
    assert registration["message"].startswith("rule registered at ")
    assert registration["message"].endswith(f"by {ADA}, before run cand-1")
    # the text report says it too, and without a registration, that there was none
    assert main(["gate", str(workspace), "--prereg", str(written),
                 "--allowed-signers", str(signers)]) == 0  # fmt: skip
    assert "before run cand-1" in capsys.readouterr().out
    code, report, _ = gate(workspace, None, None, capsys)
    assert report["registration"]["code"] == "not_registered"
    assert main(["gate", str(workspace), "--format", "markdown"]) == 0
    assert "Rule: not registered before the run" in capsys.readouterr().out


def test_any_difference_from_the_rule_registered_is_invalid_naming_both_values(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    written = register(workspace, ada, "--change", "prompt")
    candidate(workspace, change={"keys": ["prompt", "judge"]})
    signers = allow("ada@example.com", ada)
    (workspace / "gate.yaml").write_text("alpha: 0.01\nsets:\n  full: {margin: 6, flip_cap: 10}\n")
    (workspace / "flaky.yaml").write_text("entries: []\n")
    code, report, _ = gate(workspace, written, signers, capsys)
    assert (code, report["verdict"]) == (4, "INVALID")
    [reason] = report["invalid"]
    assert reason["code"] == "registration_differs"
    fields = {f["field"]: (f["registered"], f["applied"]) for f in reason["fields"]}
    assert fields["gate_spec.alpha"] == (0.05, 0.01)
    assert fields["gate_spec.sets.full.margin"] == (2, 6)
    assert fields["change"] == (["prompt"], ["judge", "prompt"])
    assert "flaky_list.digest" in fields
    assert "gate_spec.alpha: 0.05 registered, 0.01 applied" in reason["message"]


def test_a_spec_edited_with_the_same_settings_is_named_by_its_digest(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    written = register(workspace, ada)
    candidate(workspace)
    with (workspace / "gate.yaml").open("a") as spec:
        spec.write("# tightened later, perhaps\n")
    code, report, _ = gate(workspace, written, allow("ada@example.com", ada), capsys)
    assert code == 4
    [field] = report["invalid"][0]["fields"]
    assert field["field"] == "gate_spec.digest" and field["registered"] != field["applied"]


def test_a_candidate_older_than_the_registration_is_named(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate(workspace, created="2026-11-21T08:00:00Z")  # before the registration, made now
    written = register(workspace, ada)
    code, report, _ = gate(workspace, written, allow("ada@example.com", ada), capsys)
    assert (code, report["verdict"]) == (4, "INVALID")
    [reason] = report["invalid"]
    assert reason["code"] == "registered_after_candidate" and reason["candidate"] == "cand-1"
    assert ", after run cand-1 was created" in report["registration"]["message"]


@pytest.mark.parametrize("how", ["byte", "signer", "baseline", "namespace"])
def test_a_registration_that_cannot_be_vouched_for_is_bad_input(
    how: str,
    workspace: Path,
    ada: Path,
    make_key: KeyMaker,
    allow: Allow,
    capsys: pytest.CaptureFixture[str],
) -> None:
    written = register(workspace, ada)
    candidate(workspace)
    signers = allow("ada@example.com", ada)
    field = {"byte": "signature", "signer": "signer.email", "baseline": "baseline.run_id"}
    if how == "byte":
        written.write_text(written.read_text().replace("alpha: 0.05", "alpha: 0.5"))
    elif how == "signer":  # the file lists only someone else
        bob = make_key("bob").with_suffix(".pub").read_text().strip()
        signers.write_text(f"bob@example.com {bob}\n")
    elif how == "baseline":
        text = (workspace / "baseline" / "run.yaml").read_text()
        (workspace / "baseline" / "run.yaml").write_text(text.replace("base-1", "base-2"))
    else:  # a decision's signature moved onto the registration: another namespace
        signers.write_text(signers.read_text().replace(",flipgate-prereg", ""))
        field["namespace"] = "signer.email"
    before = sorted(p.name for p in workspace.rglob("*"))
    code, report, err = gate(workspace, written, signers, capsys)
    assert code == 2 and report == {}
    assert str(written) in err and f"field '{field[how]}'" in err
    not_allowed = "the key that signed is not allowed for ada@example.com"
    said = {"byte": "the signature does not match the file", "signer": not_allowed}
    if how in said:  # the failed check in words, where the core gives its code
        assert f"the registration does not verify: {said[how]}" in err
    assert sorted(p.name for p in workspace.rglob("*")) == before  # nothing written


def test_a_decision_records_the_registration_and_verify_says_it(
    workspace: Path, ada: Path, allow: Allow, capsys: pytest.CaptureFixture[str]
) -> None:
    written = register(workspace, ada)
    candidate(workspace)
    signers = allow("ada@example.com", ada)
    assert main(["decide", str(workspace), "--decision", "accept", "--cause", "regression",
                 "--reason", "passes as registered", "--reviewer", ADA, "--key", str(ada),
                 "--prereg", str(written), "--allowed-signers", str(signers)]) == 0  # fmt: skip
    [decision] = (workspace / "decisions").iterdir()
    recorded = yaml.safe_load(decision.read_text().partition("signature:")[0])["registration"]
    assert recorded["signer"] == ADA and recorded["before_run"] == "cand-1"
    capsys.readouterr()
    assert main(["verify", str(decision), "--allowed-signers", str(signers)]) == 0
    said = capsys.readouterr().out
    assert f"rule registered at {recorded['registered']} by {ADA}, before run cand-1" in said
