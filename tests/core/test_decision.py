"""The signed decision file: the document, the signature over it, and everything verify refuses."""

from __future__ import annotations

import errno
import hashlib
import os
import re
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.decision import file as decision_module
from flipgate.core.decision.document import parse_decision, render_decision
from flipgate.core.decision.file import (
    DecisionExistsError,
    decision_workspace,
    split_signed,
    verify_decision,
    write_decision,
)
from flipgate.core.decision.findings import Malformed
from flipgate.core.decision.record import (
    CasePlacement,
    ChecklistEntry,
    DecisionRecord,
    GateSummary,
    InvalidDecision,
    Reviewer,
    RuleRegistered,
    RunRef,
)
from flipgate.core.decision.review_log import Looked
from flipgate.core.decision.signing import SigningKey, sign
from flipgate.core.errors import InputError
from flipgate.core.io.digest import bytes_digest, run_digest
from flipgate.present.verify import check_words
from tests.conftest import ALIAS_BOMB, KeyMaker

pytestmark = pytest.mark.usefixtures("isolated_git")

Allow = Callable[[str, Path], Path]
GOLDEN = Path(__file__).parent / "golden" / "decision.yaml"
VERIFY_DOC = Path(__file__).parents[2] / "docs" / "verify.md"
WHEN = datetime(2026, 11, 29, 15, 30, tzinfo=UTC)


def fixed_record(baseline: RunRef | None = None, candidate: RunRef | None = None) -> DecisionRecord:
    return DecisionRecord(
        decision="accept",
        cause="flaky",
        reason="case-017 flips on identical baselines (2 of 4).\nThe judge wording is ambiguous.",
        reviewer=Reviewer("Ada Lovelace", "ada@example.com"),
        created=WHEN,
        gate=GateSummary(
            "INCONCLUSIVE", "undecided", 4, 1, 0.1875, bytes_digest(b"alpha: 0.05\n"), None
        ),
        baseline=baseline
        or RunRef("lr-2026-11-20-baseline", "runs/baseline", "sha256:" + "b" * 64),
        candidate=candidate
        or RunRef("lr-2026-11-20-candidate", "runs/candidate", "sha256:" + "c" * 64),
        checklist=(
            ChecklistEntry("infra", "ruled_out", "no timeouts, no rate limits"),
            ChecklistEntry("flaky", "cause", "case-017 is on the flaky list"),
            ChecklistEntry("grader", None),
        ),
        cases_reviewed=("case-017", "listing-047"),
    )


def make_run(folder: Path, run_id: str, results: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text(f"run_id: {run_id}\nsuite: full\n")
    (folder / "results.jsonl").write_text(results)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    make_run(root / "runs" / "baseline", "base", '{"case": "case-017", "passed": true}\n')
    make_run(root / "runs" / "candidate", "cand", '{"case": "case-017", "passed": false}\n')
    return root


@pytest.fixture
def record(workspace: Path) -> DecisionRecord:
    return fixed_record(
        RunRef.measure(workspace / "runs" / "baseline", "base", workspace),
        RunRef.measure(workspace / "runs" / "candidate" / "run.yaml", "cand", workspace),
    )


@pytest.fixture
def ada(make_key: KeyMaker) -> Path:
    return make_key("ada")


@pytest.fixture
def signed(record: DecisionRecord, ada: Path, workspace: Path) -> Path:
    return write_decision(record, SigningKey("--key", path=ada), workspace / "decisions")


def check_names(result: decision_module.VerifyResult, *, ok: bool) -> list[str]:
    return [check.name for check in result.checks if check.ok is ok]


# The document ------------------------------------------------------------------------------


def test_the_unsigned_document_matches_the_golden_file() -> None:
    assert render_decision(fixed_record()) == GOLDEN.read_text(encoding="utf-8")


def test_the_document_parses_back_to_the_same_record() -> None:
    record = fixed_record()
    assert parse_decision(yaml.safe_load(render_decision(record))) == record


@settings(max_examples=60)
@given(
    reason=st.text(min_size=1).filter(str.strip),
    note=st.text(),
    case=st.text(min_size=1).filter(
        lambda text: text.strip() and "\n" not in text and "\r" not in text
    ),
    p=st.floats(min_value=0.0, max_value=1.0),
)
def test_any_text_round_trips_exactly(reason: str, note: str, case: str, p: float) -> None:
    try:
        (reason + note + case).encode("utf-8")
    except UnicodeEncodeError:
        return  # lone surrogates are refused, tested below
    record = replace(
        fixed_record(),
        reason=reason,
        checklist=(ChecklistEntry("grader", "unclear", note),),
        cases_reviewed=(case,),
        gate=replace(fixed_record().gate, p=p),
    )
    assert parse_decision(yaml.safe_load(render_decision(record))) == record


def test_unicode_reason_round_trips_through_a_signed_file(
    record: DecisionRecord, ada: Path, allow: Allow, workspace: Path
) -> None:
    reason = (
        "RTL \u05e9\u05dc\u05d5\u05dd \u202eevil\u202c, emoji 👩\u200d💻 🎉, "
        "e\u0301 n\u0303\r\nCRLF line\n\ttab"
    )
    path = write_decision(
        replace(record, reason=reason), SigningKey("--key", path=ada), workspace / "decisions"
    )
    text = path.read_text(encoding="utf-8")
    # Bidi overrides and CR are shown as escapes, so the file reads as it parses.
    assert "\u202e" not in text and "\r" not in text
    assert "\\u202E" in text and "\\r\\n" in text
    result = verify_decision(path, allow("ada@example.com", ada))
    assert result.ok, result.failures
    assert result.record is not None and result.record.reason == reason


def test_each_broken_case_s_class_and_why_round_trip_and_old_documents_still_read() -> None:
    placed = (
        CasePlacement("case-017", "flaky", "repetitions split in both arms"),
        CasePlacement("listing-047", "regression", "its output changed: the model flipped it"),
    )
    record = replace(fixed_record(), broken_cases=placed)
    text = render_decision(record)
    assert "broken_cases:\n  - case: case-017\n    class: flaky\n" in text
    assert parse_decision(yaml.safe_load(text)) == record
    # a decision signed before issue 23 has no broken_cases: its document is unchanged
    assert "broken_cases" not in render_decision(fixed_record())
    with pytest.raises(InvalidDecision, match=r"broken_cases\.case"):
        replace(fixed_record(), broken_cases=(placed[0], placed[0]))
    with pytest.raises(InvalidDecision, match=r"broken_cases\.class"):
        CasePlacement("case-1", "bad_luck", "")


def test_broken_cases_beside_the_review_log_and_registration_sign_and_verify(
    record: DecisionRecord, ada: Path, allow: Allow, workspace: Path
) -> None:
    """Issue 23's broken cases and issue 24's log, cases added and registration in one file:
    all written, all signed (an edited `why` fails the signature), all read back."""
    both = replace(
        record,
        cases_added=("case-017",),
        review_log=(Looked("case_opened", WHEN, case="listing-047", rep=0),),
        registration=RuleRegistered(WHEN, "Ada <ada@example.com>", "sha256:" + "d" * 64, "cand"),
        broken_cases=(CasePlacement("case-017", "flaky", "repetitions split in both arms"),),
    )
    path = write_decision(both, SigningKey("--key", path=ada), workspace / "decisions")
    text = path.read_text(encoding="utf-8")
    message = split_signed(text.encode())[0].decode()
    keys = [line.split(":")[0] for line in message.splitlines() if re.match(r"[a-z_]+:", line)]
    assert keys[-4:] == ["cases_added", "review_log", "registration", "broken_cases"]
    allowed = allow("ada@example.com", ada)
    result = verify_decision(path, allowed)
    assert result.ok, result.failures
    assert result.record == both
    path.write_text(text.replace("split in both arms", "split in one arm"), encoding="utf-8")
    assert "signature" in {check.name for check in verify_decision(path, allowed).failures}


def test_multi_line_reason_is_a_literal_block() -> None:
    text = render_decision(fixed_record())
    assert (
        "reason: |-\n  case-017 flips on identical baselines (2 of 4).\n  The judge wording" in text
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"decision": "merge"}, "decision"),
        ({"cause": "bad_luck"}, "cause"),
        ({"reason": "  \n "}, "reason"),
        ({"reason": "bad \ud800 surrogate"}, "reason"),
        ({"created": datetime(2026, 11, 29, 15, 30)}, "created"),
        ({"cases_reviewed": ("case-1", "case-1")}, "cases_reviewed"),
    ],
)
def test_bad_values_are_refused_with_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidDecision) as error:
        replace(fixed_record(), **change)
    assert error.value.field == field
    assert isinstance(error.value, ValueError)


def test_unknown_finding_verdict_and_digest_are_refused() -> None:
    with pytest.raises(InvalidDecision, match=r"field 'checklist\.finding': unknown value 'maybe'"):
        ChecklistEntry("infra", "maybe")
    with pytest.raises(InvalidDecision, match="expected one of PASS, BLOCK, INCONCLUSIVE, INVALID"):
        GateSummary("GREEN", "undecided", 0, 0, 1.0, bytes_digest(b""))
    with pytest.raises(InvalidDecision, match=r"gate\.p"):
        GateSummary("PASS", "within_margin", 0, 0, 1.5, bytes_digest(b""))
    with pytest.raises(InvalidDecision, match="sha256:<64 hex digits>"):
        RunRef("base", "runs/baseline", "md5:abc")
    with pytest.raises(InvalidDecision, match="not an email address"):
        Reviewer("Ada", "ada at example")


def test_reviewer_parses_name_and_email() -> None:
    assert Reviewer.parse("Ada Lovelace <ada@example.com>") == Reviewer(
        "Ada Lovelace", "ada@example.com"
    )
    with pytest.raises(InvalidDecision, match="'Name <email>'"):
        Reviewer.parse("ada@example.com")


def test_reviewer_defaults_to_git_identity() -> None:
    with pytest.raises(InvalidDecision, match="--reviewer"):
        Reviewer.from_git()
    subprocess.run(["git", "config", "--global", "user.name", "Ada Lovelace"], check=True)
    subprocess.run(["git", "config", "--global", "user.email", "ada@example.com"], check=True)
    assert Reviewer.from_git() == Reviewer("Ada Lovelace", "ada@example.com")


def test_created_is_written_in_utc() -> None:
    paris = timezone(timedelta(hours=1))
    record = replace(fixed_record(), created=datetime(2026, 11, 29, 16, 30, 5, 999, tzinfo=paris))
    assert 'created: "2026-11-29T15:30:05Z"\n' in render_decision(record)


# Digests -----------------------------------------------------------------------------------


def test_run_digest_covers_names_lengths_and_bytes(tmp_path: Path) -> None:
    run = make_run(tmp_path / "a", "x", "ab\n")
    digest = run_digest(run)
    assert digest == run_digest(run / "run.yaml")
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    moved = make_run(tmp_path / "b", "x", "ab\n")
    (moved / "run.yaml").write_text("run_id: x\nsuite: ful")  # one byte moved to the results file
    (moved / "results.jsonl").write_text("lab\n")
    assert run_digest(moved) != digest
    (run / "results.jsonl").rename(run / "results.parquet")
    assert run_digest(run) != digest


def test_a_log_file_digest_is_its_sha256(tmp_path: Path) -> None:
    log = tmp_path / "results.json"
    log.write_bytes(b'{"results": []}')
    assert run_digest(log) == "sha256:" + hashlib.sha256(b'{"results": []}').hexdigest()
    assert (
        bytes_digest(b"")
        == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_a_run_with_both_or_no_results_file_is_an_input_error(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", "x", "")
    (run / "results.parquet").write_bytes(b"PAR1")
    with pytest.raises(InputError, match="found both"):
        run_digest(run)
    (run / "results.parquet").unlink()
    (run / "results.jsonl").unlink()
    with pytest.raises(InputError, match="found neither"):
        run_digest(run)
    with pytest.raises(InputError, match="no such run"):
        run_digest(tmp_path / "missing")


def test_run_paths_are_recorded_relative_to_the_workspace(
    record: DecisionRecord, workspace: Path
) -> None:
    assert record.baseline.path == "runs/baseline"
    assert record.candidate.path == "runs/candidate"
    assert decision_workspace(workspace / "decisions") == workspace
    assert decision_workspace(workspace / "decisions" / "x.yaml") == workspace
    assert decision_workspace(workspace / "other.yaml") == workspace


# Writing -----------------------------------------------------------------------------------


def test_a_signed_decision_verifies(
    signed: Path, ada: Path, allow: Allow, record: DecisionRecord
) -> None:
    assert re.fullmatch(r"2026-11-29T15-30-00Z-accept-[0-9a-f]{8}\.yaml", signed.name)
    data = signed.read_bytes()
    message, _ = split_signed(data)
    assert message == render_decision(record).encode()
    assert data.endswith(b"  -----END SSH SIGNATURE-----\n")
    result = verify_decision(signed, allow("ada@example.com", ada))
    assert result.ok, result.failures
    assert check_names(result, ok=True) == [
        "signature block", "document", "signature", "signer", "baseline run", "candidate run",
    ]  # fmt: skip
    assert result.record == record


def test_never_overwrites_an_existing_file(
    record: DecisionRecord, ada: Path, tmp_path: Path
) -> None:
    key = SigningKey("--key", path=ada)
    out = tmp_path / "decision.yaml"
    write_decision(record, key, out)
    before = out.read_bytes()
    with pytest.raises(DecisionExistsError) as err:
        write_decision(replace(record, decision="reject"), key, out)
    assert out.read_bytes() == before
    assert str(err.value) == f"{out}: exists; a signed decision is never written over"


def test_a_file_appearing_during_signing_is_not_overwritten(
    record: DecisionRecord, ada: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "decision.yaml"

    def sign_while_another_writes(
        message: bytes, key: SigningKey, *, allow_prompt: bool, namespace: str
    ) -> str:
        out.write_text("someone else's decision\n")
        return sign(message, key, namespace=namespace)

    monkeypatch.setattr(decision_module, "sign", sign_while_another_writes)
    with pytest.raises(DecisionExistsError):
        write_decision(record, SigningKey("--key", path=ada), out)
    assert out.read_text() == "someone else's decision\n"
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith(".")) == []


def test_without_hard_links_writes_exclusively(
    record: DecisionRecord,
    ada: Path,
    allow: Allow,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_links(source: Path, target: Path) -> None:
        raise PermissionError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", no_links)
    path = write_decision(record, SigningKey("--key", path=ada), workspace / "decisions")
    assert verify_decision(path, allow("ada@example.com", ada)).ok
    with pytest.raises(DecisionExistsError):
        write_decision(record, SigningKey("--key", path=ada), path)


# Verifying ---------------------------------------------------------------------------------


def test_every_signed_byte_matters(signed: Path, tmp_path: Path) -> None:
    data = signed.read_bytes()
    message, _ = split_signed(data)
    positions = sorted({round(i * (len(message) - 1) / 39) for i in range(40)})
    assert len(positions) == 40
    for position in positions:
        tampered = bytearray(data)
        tampered[position] ^= 0x01
        signed.write_bytes(bytes(tampered))
        # No allowed-signers file: the signer check fails anyway, the signature check is the point.
        result = verify_decision(signed, tmp_path / "no_allowed_signers")
        assert not result.ok, position
        assert "signature" in check_names(result, ok=False), position


def test_a_changed_run_fails_its_check(
    signed: Path, ada: Path, allow: Allow, workspace: Path
) -> None:
    results = workspace / "runs" / "candidate" / "results.jsonl"
    results.write_text(results.read_text().replace("false", "true"))
    result = verify_decision(signed, allow("ada@example.com", ada))
    assert not result.ok
    assert check_names(result, ok=False) == ["candidate run"]
    assert "cand at" in check_words(result.failures[0]) and "changed" in check_words(
        result.failures[0]
    )


def test_a_missing_run_fails_and_resolve_run_finds_moved_runs(
    signed: Path, ada: Path, allow: Allow, workspace: Path, tmp_path: Path
) -> None:
    allowed = allow("ada@example.com", ada)
    moved = tmp_path / "archive"
    (workspace / "runs").rename(moved)
    result = verify_decision(signed, allowed)
    assert check_names(result, ok=False) == ["baseline run", "candidate run"]
    assert "no such run directory" in check_words(result.failures[0])
    where = {"base": moved / "baseline", "cand": moved / "candidate"}
    assert verify_decision(signed, allowed, resolve_run=where.__getitem__).ok
    nowhere: dict[str, Path] = {}
    unknown = verify_decision(signed, allowed, resolve_run=nowhere.__getitem__)
    assert check_names(unknown, ok=False) == ["baseline run", "candidate run"]


def test_an_unknown_signer_fails(signed: Path, make_key: KeyMaker, allow: Allow) -> None:
    allowed = allow("ada@example.com", make_key("bob"))
    result = verify_decision(signed, allowed)
    assert check_names(result, ok=False) == ["signer"]
    assert "not allowed for ada@example.com" in check_words(result.failures[0])


def test_a_signer_listed_for_another_email_fails(
    record: DecisionRecord, make_key: KeyMaker, allow: Allow, workspace: Path
) -> None:
    mallory = make_key("mallory")
    allowed = allow("ada@example.com", make_key("ada"))
    allow("mallory@example.com", mallory)
    path = write_decision(record, SigningKey("--key", path=mallory), workspace / "decisions")
    assert check_names(verify_decision(path, allowed), ok=False) == ["signer"]


def test_no_allowed_signers_file_fails_the_signer_check(signed: Path) -> None:
    result = verify_decision(signed)
    assert check_names(result, ok=False) == ["signer"]
    assert "gpg.ssh.allowedSignersFile" in check_words(result.failures[0])


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda data: data[: data.index(b"signature:")], "no signature block"),
        (lambda data: data + data[data.index(b"signature:") :], "2 signature blocks"),
        (lambda data: data + b"decision: reject\n", "text follows the signature block"),
        (lambda data: data.replace(b"  -----END", b"-----END"), "not an indented SSH signature"),
    ],
    ids=["removed", "duplicated", "text-after", "unindented"],
)
def test_a_damaged_signature_block_fails_cleanly(
    signed: Path, ada: Path, allow: Allow, damage: Callable[[bytes], bytes], why: str
) -> None:
    signed.write_bytes(damage(signed.read_bytes()))
    result = verify_decision(signed, allow("ada@example.com", ada))
    assert not result.ok
    assert result.checks[0].name == "signature block" and why in check_words(result.checks[0])
    assert "signature" in check_names(result, ok=False)


def signed_text(message: str, key: Path, folder: Path) -> Path:
    """A file signed properly by `key` around an arbitrary message."""
    armor = sign(message.encode(), SigningKey("--key", path=key))
    path = folder / "crafted.yaml"
    path.write_bytes(message.encode() + decision_module.signature_block(armor))
    return path


def test_python_tags_fail_cleanly_even_when_signed(
    record: DecisionRecord, ada: Path, allow: Allow, workspace: Path
) -> None:
    marker = workspace / "PWNED"
    evil = render_decision(record).replace(
        "decision: accept", f'decision: !!python/object/apply:os.system ["touch {marker}"]'
    )
    path = signed_text(evil, ada, workspace)
    result = verify_decision(path, allow("ada@example.com", ada))
    assert not marker.exists()
    assert check_names(result, ok=False) == ["document", "signer", "baseline run", "candidate run"]
    assert "python/object/apply:os.system" in check_words(result.checks[1])


def test_duplicate_keys_fail_the_document_check(
    record: DecisionRecord, ada: Path, allow: Allow, workspace: Path
) -> None:
    doubled = render_decision(record).replace(
        "decision: accept\n", "decision: accept\ndecision: reject\n"
    )
    result = verify_decision(signed_text(doubled, ada, workspace), allow("ada@example.com", ada))
    line = doubled.splitlines().index("decision: reject") + 1
    assert result.checks[1] == decision_module.Check(
        "document", False, Malformed(f"line {line}: field 'decision': this key is given twice")
    )
    assert check_names(result, ok=True) == ["signature block", "signature"]


def test_an_alias_bomb_fails_the_document_check_at_once(
    record: DecisionRecord, ada: Path, allow: Allow, workspace: Path
) -> None:
    bomb = render_decision(record).replace("decision: accept\n", "decision: accept\n" + ALIAS_BOMB)
    started = time.perf_counter()
    result = verify_decision(signed_text(bomb, ada, workspace), allow("ada@example.com", ada))
    assert time.perf_counter() - started < 5
    assert not result.ok and "a YAML alias" in check_words(result.checks[1])


def test_an_unreadable_file_is_one_failed_check(tmp_path: Path) -> None:
    result = verify_decision(tmp_path / "none.yaml", tmp_path / "allowed")
    assert not result.ok
    assert [check.name for check in result.checks] == ["file"]


# The documented shell lines ----------------------------------------------------------------


def documented_script() -> str:
    doc = VERIFY_DOC.read_text()
    after_marker = doc[doc.index("<!-- verify-script") :]
    match = re.search(r"```sh\n(.*?)```", after_marker, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_documented_shell_lines_verify_and_reject(
    signed: Path, ada: Path, allow: Allow, tmp_path: Path
) -> None:
    folder = tmp_path / "by-hand"
    folder.mkdir()
    allow("ada@example.com", ada).rename(folder / "allowed_signers")
    script = documented_script()
    assert "ssh-keygen -Y verify" in script

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", script], cwd=folder, capture_output=True, text=True, check=False
        )

    (folder / "decision.yaml").write_bytes(signed.read_bytes())
    good = run()
    assert good.returncode == 0, good.stderr
    assert 'Good "flipgate-decision" signature for ada@example.com' in good.stdout
    data = signed.read_bytes()
    (folder / "decision.yaml").write_bytes(data.replace(b"decision: accept", b"decision: reject"))
    bad = run()
    assert bad.returncode != 0
    assert "Could not verify signature" in bad.stderr + bad.stdout
