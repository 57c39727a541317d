"""SSH signatures over decision and registration files, made and checked by `ssh-keygen -Y` as
git signs commits, each kind of file in its own namespace.

The key is found as git finds it (`user.signingkey`: a key file, or `key::<public key>` whose
private half is in ssh-agent) unless one is given explicitly. ssh-keygen never waits on a
passphrase here: it runs without a terminal and with stdin closed, under a timeout, unless the
caller says a person is at the terminal to answer.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.decision.findings import (
    AllowedSignersMissing,
    Finding,
    SignatureMismatch,
    SignatureValid,
    SignerAllowed,
    SignerNotAllowed,
)

NAMESPACE = "flipgate-decision"  # a reviewer's decision (SPEC §6)
PREREG_NAMESPACE = "flipgate-prereg"  # a pre-registered rule (`flipgate prereg`, docs/prereg.md)
SIGN_TIMEOUT = 30.0
PROMPT_TIMEOUT = 300.0
VERIFY_TIMEOUT = 30.0

_KEY_TYPES = ("ssh-", "ecdsa-", "sk-")
_MAKE_A_KEY = (
    "make one with:\n"
    "  ssh-keygen -t ed25519 -f ~/.ssh/flipgate_ed25519\n"
    "  git config --global user.signingkey ~/.ssh/flipgate_ed25519.pub"
)
_FINGERPRINT = re.compile(r"key (SHA256:[A-Za-z0-9+/=]+)")


class SigningError(Exception):
    """A decision could not be signed; the message says how to fix it."""


@dataclass(frozen=True)
class SigningKey:
    """The reviewer's key: a key file, or a public key whose private half is in ssh-agent."""

    source: str
    path: Path | None = None
    public_key: str | None = None

    def describe(self) -> str:
        what = str(self.path) if self.path is not None else "the public key"
        return f"{what} (from {self.source})"


@dataclass(frozen=True)
class SignatureCheck:
    """What ssh-keygen said about a signature: `ok`, and what it found (a code with its facts)."""

    ok: bool
    found: Finding


def git_config(name: str) -> str | None:
    """The value of git config `name`, or None when it is unset or git is not installed."""
    git = shutil.which("git")
    if git is None:
        return None
    done = subprocess.run(
        [git, "config", "--get", name],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=VERIFY_TIMEOUT,
        check=False,
    )
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def find_signing_key(explicit: Path | None = None) -> SigningKey:
    """The key to sign with: `explicit` (a `--key` path) if given, else git's `user.signingkey`."""
    if explicit is not None:
        return _key_file(Path(explicit).expanduser(), "--key")
    configured = git_config("user.signingkey")
    if configured is None:
        raise SigningError(
            "no SSH signing key: git's user.signingkey is not set and no --key was given; "
            + _MAKE_A_KEY
        )
    source = "git config user.signingkey"
    if configured.startswith("key::"):
        return SigningKey(source, public_key=configured.removeprefix("key::").strip())
    if configured.startswith(_KEY_TYPES):
        return SigningKey(source, public_key=configured)
    looks_like_path = "/" in configured or configured.startswith("~")
    if not looks_like_path and git_config("gpg.format") != "ssh":
        raise SigningError(
            f"git's user.signingkey is {configured!r}, which looks like a GPG key id; "
            f"flipgate signs with SSH keys: pass --key PATH, or {_MAKE_A_KEY}"
        )
    return _key_file(Path(configured).expanduser(), source)


def _key_file(path: Path, source: str) -> SigningKey:
    if not path.is_file():
        raise SigningError(f"the signing key {path} (from {source}) does not exist; {_MAKE_A_KEY}")
    return SigningKey(source, path=path)


def default_allowed_signers() -> Path | None:
    """git's `gpg.ssh.allowedSignersFile`, the list of who may sign for which email."""
    configured = git_config("gpg.ssh.allowedSignersFile")
    return Path(configured).expanduser() if configured else None


def sign(
    message: bytes,
    key: SigningKey,
    *,
    allow_prompt: bool = False,
    timeout: float | None = None,
    namespace: str = NAMESPACE,
) -> str:
    """The armored SSH signature of `message` in `namespace` (a decision's by default): a key
    allowed to sign decisions only cannot sign a registration, and a signature of one kind of
    file never verifies as the other.

    `allow_prompt` lets ssh-keygen ask for a passphrase on the terminal; without it, a key that
    needs one fails at once with advice to load it into ssh-agent.
    """
    ssh_keygen = _ssh_keygen()
    with tempfile.TemporaryDirectory(prefix="flipgate-sign-") as scratch:
        message_file = Path(scratch) / "decision"
        message_file.write_bytes(message)
        args = [ssh_keygen, "-Y", "sign", "-n", namespace]
        if key.public_key is not None:
            # As git does for `key::`: ssh-keygen takes the public half from a file, `-U` says
            # the private half is in the agent.
            public_file = Path(scratch) / "signing_key.pub"
            public_file.write_text(key.public_key + "\n")
            args += ["-f", str(public_file), "-U"]
        else:
            assert key.path is not None
            args += ["-f", str(key.path)]
        limit = timeout if timeout is not None else PROMPT_TIMEOUT if allow_prompt else SIGN_TIMEOUT
        try:
            done = subprocess.run(
                [*args, str(message_file)],
                stdin=None if allow_prompt else subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=limit,
                # Without a controlling terminal ssh-keygen reads the passphrase from the closed
                # stdin and fails instead of waiting for someone who is not there.
                start_new_session=not allow_prompt,
                env=_quiet_env(),
                check=False,
            )
        except subprocess.TimeoutExpired as expired:
            raise SigningError(
                f"ssh-keygen did not finish signing within {limit:g} s with {key.describe()}; "
                "if the key has a passphrase, load it into ssh-agent (ssh-add) and retry"
            ) from expired
        signature_file = message_file.with_name(message_file.name + ".sig")
        if done.returncode != 0 or not signature_file.is_file():
            raise SigningError(_why_signing_failed(done.stderr, key, allow_prompt))
        return signature_file.read_text()


def _why_signing_failed(stderr: str, key: SigningKey, allow_prompt: bool) -> str:
    said = " ".join(stderr.replace("Enter passphrase:", "").split())
    agent = os.environ.get("SSH_AUTH_SOCK")
    if "incorrect passphrase" in said:
        if allow_prompt:
            return f"wrong passphrase for {key.describe()}"
        return (
            f"{key.describe()} needs a passphrase and there is no terminal to ask for it: load it "
            f"into ssh-agent with `ssh-add {_private_half(key)}` and retry"
        )
    if key.public_key is not None or "agent" in said:
        if not agent:
            return (
                f"{key.describe()} is to be used from ssh-agent, but no agent is running "
                "(SSH_AUTH_SOCK is not set): start one with `eval $(ssh-agent)` and add the key "
                f"with `ssh-add`  (ssh-keygen said: {said})"
            )
        return (
            f"ssh-agent does not hold {key.describe()}: add it with `ssh-add PRIVATE_KEY_FILE`, "
            f"check with `ssh-add -L`  (ssh-keygen said: {said})"
        )
    return f"ssh-keygen could not sign with {key.describe()}: {said or 'no reason given'}"


def _private_half(key: SigningKey) -> str:
    if key.path is None:
        return "PRIVATE_KEY_FILE"
    return str(key.path.with_suffix("")) if key.path.suffix == ".pub" else str(key.path)


def check_signature(
    message: bytes, signature: str, *, namespace: str = NAMESPACE
) -> SignatureCheck:
    """Is `signature` a valid signature in `namespace` over `message`, by whatever key?"""
    done = _verify_call(["-Y", "check-novalidate", "-n", namespace], message, signature)
    if done.returncode == 0:
        match = _FINGERPRINT.search(done.stdout)
        return SignatureCheck(True, SignatureValid(match.group(1) if match else None))
    return SignatureCheck(False, SignatureMismatch(_said(done)))


def verify_signer(
    message: bytes,
    signature: str,
    principal: str,
    allowed_signers: Path,
    *,
    namespace: str = NAMESPACE,
) -> SignatureCheck:
    """Is `signature` over `message` (in `namespace`) by a key `allowed_signers` lists for
    `principal`?"""
    if not allowed_signers.is_file():
        return SignatureCheck(False, AllowedSignersMissing(allowed_signers))
    done = _verify_call(
        ["-Y", "verify", "-f", str(allowed_signers), "-I", principal, "-n", namespace],
        message,
        signature,
    )
    if done.returncode == 0:
        return SignatureCheck(True, SignerAllowed(principal, allowed_signers))
    return SignatureCheck(False, SignerNotAllowed(principal, allowed_signers, _said(done)))


def _verify_call(
    args: list[str], message: bytes, signature: str
) -> subprocess.CompletedProcess[str]:
    ssh_keygen = _ssh_keygen()
    with tempfile.TemporaryDirectory(prefix="flipgate-verify-") as scratch:
        signature_file = Path(scratch) / "decision.sig"
        signature_file.write_text(signature)
        try:
            done = subprocess.run(
                [ssh_keygen, *args, "-s", str(signature_file)],
                input=message,
                capture_output=True,
                timeout=VERIFY_TIMEOUT,
                env=_quiet_env(),
                check=False,
            )
        except subprocess.TimeoutExpired as expired:
            raise SigningError(
                f"ssh-keygen did not finish checking within {VERIFY_TIMEOUT:g} s"
            ) from expired
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
    )


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return " ".join((done.stderr + done.stdout).split()) or f"ssh-keygen exited {done.returncode}"


def _ssh_keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found is None:
        raise SigningError(
            "ssh-keygen was not found on PATH: install OpenSSH (8.2 or later) "
            "to sign and verify decisions"
        )
    return found


def _quiet_env() -> dict[str, str]:
    # Never pop up a graphical passphrase dialog from a CI job or from inside the app.
    return {**os.environ, "SSH_ASKPASS_REQUIRE": "never"}
