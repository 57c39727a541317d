"""What each check of a signed file found (`flipgate verify`), as a code with its facts; words:
`present/verify.py`. A finding that passes an error's own message on (`Malformed`, `Unable`)
carries it as the error said it: the file's parser and ssh-keygen word their own errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from flipgate.core.vocab import CheckCode, NotCheckedCause


@dataclass(frozen=True)
class Unread:
    """The file could not be read."""

    code: ClassVar[CheckCode] = "unread"
    path: Path
    reason: str  # the system's (`strerror`)


@dataclass(frozen=True)
class BlockFound:
    """One signature block, at the end of the file."""

    code: ClassVar[CheckCode] = "block_found"


@dataclass(frozen=True)
class Malformed:
    """The signature block or the document is malformed: the parser's own message."""

    code: ClassVar[CheckCode] = "malformed"
    said: str


@dataclass(frozen=True)
class WellFormed:
    """The document is safe YAML of its kind (`what`: decision, choice, registration)."""

    code: ClassVar[CheckCode] = "well_formed"
    what: str


@dataclass(frozen=True)
class NotChecked:
    """Nothing to check against: an earlier check failed."""

    code: ClassVar[CheckCode] = "not_checked"
    cause: NotCheckedCause


@dataclass(frozen=True)
class Unable:
    """ssh-keygen could not be run, or did not finish: its own message (`SigningError`)."""

    code: ClassVar[CheckCode] = "unable"
    said: str


@dataclass(frozen=True)
class SignatureValid:
    """The signature holds over the message, by the key with this fingerprint (if said)."""

    code: ClassVar[CheckCode] = "signature_valid"
    fingerprint: str | None


@dataclass(frozen=True)
class SignatureMismatch:
    """The signature does not match the file: what ssh-keygen said."""

    code: ClassVar[CheckCode] = "signature_mismatch"
    said: str


@dataclass(frozen=True)
class NoAllowedSigners:
    """No allowed-signers file was given, nor set in git's config."""

    code: ClassVar[CheckCode] = "no_allowed_signers"


@dataclass(frozen=True)
class AllowedSignersMissing:
    """The allowed-signers file named does not exist."""

    code: ClassVar[CheckCode] = "allowed_signers_missing"
    allowed_signers: Path


@dataclass(frozen=True)
class SignerAllowed:
    """A key the allowed signers list for the signer made the signature."""

    code: ClassVar[CheckCode] = "signer_allowed"
    principal: str
    allowed_signers: Path


@dataclass(frozen=True)
class SignerNotAllowed:
    """The key that signed is not one the allowed signers list for the signer."""

    code: ClassVar[CheckCode] = "signer_not_allowed"
    principal: str
    allowed_signers: Path
    said: str  # ssh-keygen's


@dataclass(frozen=True)
class RunUndigested:
    """A run the decision names could not be found or digested: the error's message."""

    code: ClassVar[CheckCode] = "run_undigested"
    run_id: str
    said: str


@dataclass(frozen=True)
class RunChanged:
    """A run the decision names has changed since it was signed."""

    code: ClassVar[CheckCode] = "run_changed"
    run_id: str
    where: Path
    digest: str  # now
    recorded: str


@dataclass(frozen=True)
class RunUnchanged:
    code: ClassVar[CheckCode] = "run_unchanged"
    run_id: str
    where: Path


@dataclass(frozen=True)
class RankingUnrepeatable:
    """The campaign could not be ranked again: the error's message."""

    code: ClassVar[CheckCode] = "ranking_unrepeatable"
    said: str


@dataclass(frozen=True)
class RankingDiffers:
    """The runs ranked again differ from the ranking signed, in these fields (dotted)."""

    code: ClassVar[CheckCode] = "ranking_differs"
    fields: tuple[str, ...]


@dataclass(frozen=True)
class RankingSame:
    code: ClassVar[CheckCode] = "ranking_same"
    digest: object  # the signed ranking's, as the file has it


@dataclass(frozen=True)
class ChoiceRefused:
    """The candidate chosen may not be chosen on the ranking made again: the refusal, a code
    with its facts (`core/rank/choice.py`, a layer above this one)."""

    code: ClassVar[CheckCode] = "choice_refused"
    chosen: str
    refusal: object


@dataclass(frozen=True)
class ClearanceDiffers:
    """The chosen candidate's own clearance recorded is not the one the runs give again."""

    code: ClassVar[CheckCode] = "clearance_differs"
    chosen: str
    recorded: str
    now: str | None


@dataclass(frozen=True)
class ChoiceAllowed:
    code: ClassVar[CheckCode] = "choice_allowed"
    chosen: str
    group: tuple[str, ...]  # the first tie group
    clearance: str | None


Finding = (
    Unread
    | BlockFound
    | Malformed
    | WellFormed
    | NotChecked
    | Unable
    | SignatureValid
    | SignatureMismatch
    | NoAllowedSigners
    | AllowedSignersMissing
    | SignerAllowed
    | SignerNotAllowed
    | RunUndigested
    | RunChanged
    | RunUnchanged
    | RankingUnrepeatable
    | RankingDiffers
    | RankingSame
    | ChoiceRefused
    | ClearanceDiffers
    | ChoiceAllowed
)
