"""The pre-registration file (`flipgate prereg`, issue 24 item 1): the rule fixed and SSH-signed
before the candidate runs, and read back only once its signature and signer check.

The file is YAML emitted as a decision's is (`document.render_yaml`), signed in the namespace
`flipgate-prereg` (a key allowed to sign decisions only cannot sign one), ending with its
`signature:` block. It names the gate spec (its digest and every setting, the defaults filled
in), the flaky list's and the suite manifest's digests, the baseline run's id and cache key, the
declared change (or none: left to the candidate's `change.keys`), the signer and the time. The
gate holds the rule it applies to it (`core/gate/registered.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flipgate.core.decision.document import (
    expect_keys,
    expect_list,
    parse_time,
    render_yaml,
)
from flipgate.core.decision.fields import InvalidDecision, digest_field, one_line, text_field
from flipgate.core.decision.file import (
    SignedChecks,
    SignedKind,
    Unverified,
    VerifyResult,
    signed_checks,
    write_signed,
)
from flipgate.core.decision.record import Reviewer
from flipgate.core.decision.signing import PREREG_NAMESPACE, SigningKey
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.registered import Registration
from flipgate.core.gate.spec import GateSpec, Setting
from flipgate.core.io.digest import bytes_digest
from flipgate.core.runs.model import Run

FORMAT_VERSION = 1
_TOP_KEYS = (
    "flipgate_prereg", "registered", "signer", "baseline", "gate_spec", "flaky_list",
    "suite_manifest", "change",
)  # fmt: skip


def registration_document(
    *,
    spec: GateSpec,
    flaky: FlakyList,
    suite: tuple[Path, str] | None,
    baseline: Run,
    change: tuple[str, ...] | None,
    signer: Reviewer,
    registered: datetime,
) -> str:
    """The unsigned text of a registration: what gets signed. `suite` is the manifest's path and
    digest (None: no manifest); `change` the declared components (None: left to the
    candidate)."""
    document: dict[str, Any] = {
        "flipgate_prereg": FORMAT_VERSION,
        "registered": registered.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "signer": {"name": signer.name, "email": signer.email},
        "baseline": {"run_id": baseline.run_id, "key": dict(sorted(baseline.key.items()))},
        "gate_spec": {
            "path": None if spec.source is None else str(spec.source),
            "digest": spec.digest,
            "settings": {name: _written(value) for name, value in sorted(spec.settings.items())},
        },
        "flaky_list": {
            "path": None if flaky.source is None else str(flaky.source),
            "digest": flaky.digest,
        },
        "suite_manifest": None if suite is None else {"path": str(suite[0]), "digest": suite[1]},
        "change": None if change is None else sorted(set(change)),
    }
    return render_yaml(document)


def write_registration(
    text: str, key: SigningKey, out: Path, *, allow_prompt: bool = False
) -> Path:
    """Sign `text` (a `registration_document`) and write it to `out`, never over a file."""
    return write_signed(
        text.encode(),
        key,
        out,
        allow_prompt=allow_prompt,
        namespace=PREREG_NAMESPACE,
        what="registration",
    )


def _written(value: Setting) -> Any:
    return list(value) if isinstance(value, tuple) else value


# Reading and verifying --------------------------------------------------------------------


def verify_registration(path: Path, allowed_signers: Path | None = None) -> VerifyResult:
    """Check a registration file: its form, its signature and that its signer is allowed
    (`allowed_signers`, else git's `gpg.ssh.allowedSignersFile`)."""
    return VerifyResult(path, _checked(path, allowed_signers).checks, None)


def read_registration(path: Path, allowed_signers: Path | None = None) -> Registration:
    """The registration at `path`, once its form, signature and signer check; otherwise bad
    input naming the file and what failed (the gate exits 2, having judged nothing)."""
    checked = _checked(path, allowed_signers)
    for check in checked.checks:
        if not check.ok:
            field = {"signer": "signer.email", "document": None}.get(check.name, "signature")
            raise Unverified(
                path, check, "the registration does not verify: {}", named=False, field=field
            )
    assert checked.record is not None  # every check held, the document's among them
    return checked.record


def _checked(path: Path, allowed_signers: Path | None) -> SignedChecks[Registration]:
    kind = SignedKind(
        "registration",
        lambda document: _registration(document, path, bytes_digest(path.read_bytes())),
        lambda registration: Reviewer.parse(registration.signer).email,
        PREREG_NAMESPACE,
    )
    return signed_checks(path, kind, allowed_signers)


def is_registration(data: bytes) -> bool:
    """Does a signed file's text begin as a registration (for `flipgate verify`)?"""
    return data.lstrip().startswith(b"flipgate_prereg:")


def _registration(document: object, path: Path, digest: str) -> Registration:
    top = expect_keys(document, "", _TOP_KEYS)
    if top["flipgate_prereg"] != FORMAT_VERSION:
        raise InvalidDecision(
            "flipgate_prereg", f"format version {top['flipgate_prereg']!r} is not {FORMAT_VERSION}"
        )
    signer = expect_keys(top["signer"], "signer", ("name", "email"))
    reviewer = Reviewer(
        text_field(signer["name"], "signer.name"), text_field(signer["email"], "signer.email")
    )
    baseline = expect_keys(top["baseline"], "baseline", ("run_id", "key"))
    spec = expect_keys(top["gate_spec"], "gate_spec", ("path", "digest", "settings"))
    flaky = expect_keys(top["flaky_list"], "flaky_list", ("path", "digest"))
    suite = top["suite_manifest"]
    suite_digest = None
    if suite is not None:
        suite_digest = _digest(
            expect_keys(suite, "suite_manifest", ("path", "digest"))["digest"],
            "suite_manifest.digest",
        )
    change = top["change"]
    registered = parse_time(top["registered"], "registered")
    if registered.utcoffset() is None:
        raise InvalidDecision("registered", "the time needs a time zone (use UTC)")
    run_id = text_field(baseline["run_id"], "baseline.run_id")
    one_line("baseline.run_id", run_id)
    return Registration(
        path=path,
        digest=digest,
        registered=registered,
        signer=f"{reviewer.name} <{reviewer.email}>",
        spec_digest=_digest(spec["digest"], "gate_spec.digest"),
        settings=_settings(spec["settings"]),
        flaky_digest=_digest(flaky["digest"], "flaky_list.digest"),
        suite_digest=suite_digest,
        change=None
        if change is None
        else tuple(sorted(text_field(item, "change") for item in expect_list(change, "change"))),
        baseline_run_id=run_id,
        baseline_key=_key(baseline["key"]),
    )


def _digest(value: object, name: str) -> str:
    digest_field(name, value)
    return text_field(value, name)


def _settings(value: object) -> dict[str, Setting]:
    if not isinstance(value, dict):
        raise InvalidDecision("gate_spec.settings", "expected a mapping of settings")
    settings: dict[str, Setting] = {}
    for name, setting in value.items():
        where = f"gate_spec.settings.{name}"
        if isinstance(setting, list):
            settings[str(name)] = tuple(sorted(text_field(item, where) for item in setting))
        elif setting is None or isinstance(setting, bool | int | float | str):
            settings[str(name)] = setting
        else:
            raise InvalidDecision(where, f"expected a number, a word or a list, not {setting!r}")
    return settings


def _key(value: object) -> Mapping[str, str]:
    if not isinstance(value, dict):
        raise InvalidDecision("baseline.key", "expected the cache key's components")
    return {str(name): text_field(part, f"baseline.key.{name}") for name, part in value.items()}
