"""What each check of a signed file found, in words (`flipgate verify`, the decision screen; the
codes and their facts: `core/decision/findings.py`)."""

from __future__ import annotations

from functools import singledispatch

from flipgate.core.decision.file import Check, Unverified
from flipgate.core.decision.findings import (
    AllowedSignersMissing,
    BlockFound,
    ChoiceAllowed,
    ChoiceRefused,
    ClearanceDiffers,
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
from flipgate.core.vocab import NotCheckedCause
from flipgate.present.choosing import refusal_words

DIFFERENCES_NAMED = 6  # fields of a ranking made again named where it differs from the signed one

NOT_CHECKED: dict[NotCheckedCause, str] = {
    "no_block": "no well-formed signature block",
    "block_or_document": "the signature block or the document is malformed",
    "document": "the document is malformed",
    "ranking": "the ranking could not be computed again",
}


def check_words(check: Check) -> str:
    """What `check` found, in words."""
    return found_words(check.found)


def unverified_words(error: InputError) -> InputError:
    """`error` with its words, when it is a signed file refused because a check failed (the
    core knows the check, not its words); any other error as it is."""
    if not isinstance(error, Unverified):
        return error
    words = check_words(error.check)
    said = error.said.format(f"{error.check.name}: {words}" if error.named else words)
    return InputError(error.shown, said, line=error.line, field=error.field)


@singledispatch
def found_words(found: object) -> str:
    raise TypeError(f"no words for the check's finding {found!r}")


@found_words.register
def _(f: Unread) -> str:
    return f"cannot read {f.path}: {f.reason}"


@found_words.register
def _(f: BlockFound) -> str:
    return "one signature block, at the end of the file"


@found_words.register
def _(f: Malformed | Unable) -> str:
    return f.said


@found_words.register
def _(f: WellFormed) -> str:
    return f"safe YAML, a well-formed {f.what}"


@found_words.register
def _(f: NotChecked) -> str:
    return f"not checked: {NOT_CHECKED[f.cause]}"


@found_words.register
def _(f: SignatureValid) -> str:
    by = f" by key {f.fingerprint}" if f.fingerprint else ""
    return f"the signature is valid{by}"


@found_words.register
def _(f: SignatureMismatch) -> str:
    return f"the signature does not match the file: {f.said}"


@found_words.register
def _(f: NoAllowedSigners) -> str:
    return (
        "no allowed-signers file: pass --allowed-signers FILE or set git config "
        "gpg.ssh.allowedSignersFile (see docs/verify.md)"
    )


@found_words.register
def _(f: AllowedSignersMissing) -> str:
    return f"the allowed-signers file {f.allowed_signers} does not exist"


@found_words.register
def _(f: SignerAllowed) -> str:
    return f"signed by {f.principal}, an allowed signer in {f.allowed_signers}"


@found_words.register
def _(f: SignerNotAllowed) -> str:
    return f"the key that signed is not allowed for {f.principal} in {f.allowed_signers}: {f.said}"


@found_words.register
def _(f: RunUndigested) -> str:
    return f"{f.run_id}: cannot digest the run: {f.said}"


@found_words.register
def _(f: RunChanged) -> str:
    return f"{f.run_id} at {f.where} changed: digest {f.digest}, recorded {f.recorded}"


@found_words.register
def _(f: RunUnchanged) -> str:
    return f"{f.run_id} at {f.where} is unchanged"


@found_words.register
def _(f: RankingUnrepeatable) -> str:
    return f"cannot rank the runs again: {f.said}"


@found_words.register
def _(f: RankingDiffers) -> str:
    more = len(f.fields) - DIFFERENCES_NAMED
    shown = ", ".join(f.fields[:DIFFERENCES_NAMED]) + (f" and {more} more" if more > 0 else "")
    return f"the runs ranked again differ from the ranking signed: {shown}"


@found_words.register
def _(f: RankingSame) -> str:
    return f"the runs ranked again give the ranking signed ({f.digest})"


@found_words.register
def _(f: ChoiceRefused) -> str:
    return f"{f.chosen} may not be chosen: {refusal_words(f.refusal)}"


@found_words.register
def _(f: ClearanceDiffers) -> str:
    return (
        f"{f.chosen}'s own clearance is recorded as {f.recorded}; the runs ranked again give "
        f"{f.now}"
    )


@found_words.register
def _(f: ChoiceAllowed) -> str:
    group = " = ".join(f.group)
    return f"{f.chosen}, in the first tie group ({group}); its own clearance: {f.clearance}"
