"""The words of `flipgate verify`'s checks and of a choice refused (`present/verify.py`,
`present/choosing.py`): one payload of every code, and what it says; the core's findings carry
codes and facts, never words."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flipgate.core.decision.file import Check, Unverified
from flipgate.core.decision.findings import (
    AllowedSignersMissing,
    BlockFound,
    ChoiceAllowed,
    ChoiceRefused,
    ClearanceDiffers,
    Finding,
    Malformed,
    NoAllowedSigners,
    NotChecked,
    RankingDiffers,
    RankingSame,
    RankingUnrepeatable,
    RunChanged,
    RunUnchanged,
    RunUndigested,
    SignatureMismatch,
    SignatureValid,
    SignerAllowed,
    SignerNotAllowed,
    Unable,
    Unread,
    WellFormed,
)
from flipgate.core.errors import InputError
from flipgate.core.rank.choice import (
    BelowFirstGroup,
    GateRefuses,
    Incomplete,
    NotACandidate,
    Refusal,
)
from flipgate.core.rank.ranking import Gaps
from flipgate.core.vocab import CHECK_CODES, REFUSAL_CODES
from flipgate.present.choosing import gaps_words, refusal_words
from flipgate.present.verify import found_words, unverified_words

SIGNERS = Path("allowed_signers")
GAPPED = Gaps(missing_cases=1, missing_reps=2, infra_reps=1, extra_reps=0)
REFUSALS: list[tuple[Refusal, str]] = [
    (NotACandidate("X", ("A", "B")), "'X' is not a candidate of this campaign (A, B)"),
    (
        Incomplete("A", GAPPED),
        "A is incomplete (1 case missing (2 repetitions), 1 infra repetition): judged on fewer "
        "cells than the campaign asks, it cannot be chosen",
    ),
    (
        GateRefuses("A", "BLOCK"),
        "A's gate against the incumbent says BLOCK: a choice among tied candidates does not "
        "overrule the gate",
    ),
    (
        BelowFirstGroup("C", ("A", "B")),
        "C is not in the first tie group (A = B): the data ranks it below them, so it is not a "
        "choice among equals",
    ),
]
FINDINGS: list[tuple[Finding, str]] = [
    (Unread(Path("d.yaml"), "Permission denied"), "cannot read d.yaml: Permission denied"),
    (BlockFound(), "one signature block, at the end of the file"),
    (
        Malformed("line 3: field 'decision': this key is given twice"),
        "line 3: field 'decision': this key is given twice",
    ),
    (WellFormed("choice"), "safe YAML, a well-formed choice"),
    (NotChecked("no_block"), "not checked: no well-formed signature block"),
    (Unable("ssh-keygen was not found on PATH"), "ssh-keygen was not found on PATH"),
    (SignatureValid("SHA256:abc"), "the signature is valid by key SHA256:abc"),
    (
        SignatureMismatch("Signature verification failed"),
        "the signature does not match the file: Signature verification failed",
    ),
    (
        NoAllowedSigners(),
        "no allowed-signers file: pass --allowed-signers FILE or set git config "
        "gpg.ssh.allowedSignersFile (see docs/verify.md)",
    ),
    (AllowedSignersMissing(SIGNERS), "the allowed-signers file allowed_signers does not exist"),
    (
        SignerAllowed("ada@example.com", SIGNERS),
        "signed by ada@example.com, an allowed signer in allowed_signers",
    ),
    (
        SignerNotAllowed("ada@example.com", SIGNERS, "no principal matched"),
        "the key that signed is not allowed for ada@example.com in allowed_signers: no principal matched",
    ),
    (
        RunUndigested("cand", "no such run directory"),
        "cand: cannot digest the run: no such run directory",
    ),
    (
        RunChanged("cand", Path("c"), "sha256:2", "sha256:1"),
        "cand at c changed: digest sha256:2, recorded sha256:1",
    ),
    (RunUnchanged("cand", Path("c")), "cand at c is unchanged"),
    (
        RankingUnrepeatable("gate.yaml: no such file"),
        "cannot rank the runs again: gate.yaml: no such file",
    ),
    (
        RankingDiffers(tuple(f"ranking.f{i}" for i in range(8))),
        "the runs ranked again differ from the ranking signed: ranking.f0, ranking.f1, "
        "ranking.f2, ranking.f3, ranking.f4, ranking.f5 and 2 more",
    ),
    (RankingSame("sha256:9"), "the runs ranked again give the ranking signed (sha256:9)"),
    (
        ChoiceRefused("C", BelowFirstGroup("C", ("A",))),
        "C may not be chosen: C is not in the first tie group (A): the data ranks it below "
        "them, so it is not a choice among equals",
    ),
    (
        ClearanceDiffers("A", "clears", "tied"),
        "A's own clearance is recorded as clears; the runs ranked again give tied",
    ),
    (
        ChoiceAllowed("A", ("A", "B"), "clears"),
        "A, in the first tie group (A = B); its own clearance: clears",
    ),
]


def test_every_check_code_has_its_words() -> None:
    assert sorted({found.code for found, _ in FINDINGS}) == sorted(CHECK_CODES)
    for found, words in FINDINGS:
        assert found_words(found) == words


def test_every_refusal_code_has_its_words() -> None:
    assert sorted(refusal.code for refusal, _ in REFUSALS) == sorted(REFUSAL_CODES)
    for refusal, words in REFUSALS:
        assert refusal_words(refusal) == words
    assert gaps_words(Gaps(0, 0, 0, 0)) == "complete"
    assert (
        gaps_words(Gaps(0, 3, 0, 2))
        == "3 repetitions missing, 2 repetitions beyond the incumbent's"
    )


def test_the_core_findings_carry_facts_never_words() -> None:
    """No field of a finding or a refusal holds a sentence made in the core: the `said` fields
    pass on what a parser, ssh-keygen or the system said."""
    for payload, _ in [*FINDINGS, *REFUSALS]:
        for field in dataclasses.fields(payload):
            assert field.name not in ("why", "message", "detail", "words")


def test_a_signed_file_refused_is_worded_by_the_front_end() -> None:
    check = Check("signer", False, NoAllowedSigners())
    refused = Unverified(
        Path("r.yaml"),
        check,
        "the registration does not verify: {}",
        named=False,
        field="signer.email",
    )
    assert refused.message == "the registration does not verify: signer (no_allowed_signers)"
    worded = unverified_words(refused)
    assert str(worded) == (
        "r.yaml: field 'signer.email': the registration does not verify: no allowed-signers "
        "file: pass --allowed-signers FILE or set git config gpg.ssh.allowedSignersFile (see "
        "docs/verify.md)"
    )
    named = Unverified(Path("d.yaml"), check, "{} (replayed only when it verifies)", named=True)
    assert unverified_words(named).message.startswith("signer: no allowed-signers file")
    other = InputError(Path("x"), "bad")
    assert unverified_words(other) is other
