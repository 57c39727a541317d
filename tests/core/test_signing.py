"""SSH signing through ssh-keygen: finding the key as git does, failing clearly, never hanging."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from flipgate.core.decision.signing import (
    SigningError,
    SigningKey,
    check_signature,
    default_allowed_signers,
    find_signing_key,
    sign,
    verify_signer,
)
from flipgate.present.verify import found_words
from tests.conftest import KeyMaker

pytestmark = pytest.mark.usefixtures("isolated_git")

MESSAGE = b"flipgate_decision: 1\ndecision: accept\n"


def git_set(name: str, value: str) -> None:
    subprocess.run(["git", "config", "--global", name, value], check=True)


def public_of(key: Path) -> Path:
    return key.with_name(key.name + ".pub")


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A throwaway ssh-agent on a socket in tmp_path, stopped at the end of the test."""
    if shutil.which("ssh-agent") is None or shutil.which("ssh-add") is None:
        pytest.skip("ssh-agent is not installed")
    socket = tmp_path / "agent.sock"
    process = subprocess.Popen(
        ["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 5
        while not socket.exists():
            assert time.monotonic() < deadline, "ssh-agent did not start"
            time.sleep(0.01)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket))
        yield socket
    finally:
        process.terminate()
        process.wait(timeout=5)


def ssh_add(key: Path, passphrase: str = "") -> None:
    """Load `key` into the agent, answering its passphrase through a one-off askpass script."""
    askpass = key.with_name("askpass.sh")
    askpass.write_text(f"#!/bin/sh\necho '{passphrase}'\n")
    askpass.chmod(askpass.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force"}
    subprocess.run(["ssh-add", "-q", str(key)], env=env, check=True, stdin=subprocess.DEVNULL)


def test_signs_with_the_key_git_names_and_the_signature_checks(
    make_key: KeyMaker, allow: Callable[[str, Path], Path]
) -> None:
    key = make_key("ada")
    git_set("user.signingkey", str(public_of(key)))
    found = find_signing_key()
    assert found == SigningKey("git config user.signingkey", path=public_of(key))
    armor = sign(MESSAGE, found)
    assert armor.startswith("-----BEGIN SSH SIGNATURE-----\n")
    assert armor.endswith("-----END SSH SIGNATURE-----\n")
    assert check_signature(MESSAGE, armor).ok
    assert "by key SHA256:" in found_words(check_signature(MESSAGE, armor).found)
    allowed = allow("ada@example.com", key)
    assert verify_signer(MESSAGE, armor, "ada@example.com", allowed).ok
    changed = check_signature(MESSAGE + b" ", armor)
    assert not changed.ok
    assert "does not match" in found_words(changed.found)
    other = verify_signer(MESSAGE, armor, "bob@example.com", allowed)
    assert not other.ok
    assert "not allowed for bob@example.com" in found_words(other.found)


def test_signingkey_with_a_tilde_is_a_path_under_home(make_key: KeyMaker) -> None:
    key = make_key("ada")
    home_key = Path.home() / ".ssh" / "flipgate_ed25519"
    home_key.parent.mkdir()
    shutil.copy(key, home_key)
    shutil.copy(public_of(key), public_of(home_key))
    git_set("user.signingkey", "~/.ssh/flipgate_ed25519.pub")
    assert find_signing_key().path == public_of(home_key)


def test_explicit_key_wins_over_git_config(make_key: KeyMaker) -> None:
    git_set("user.signingkey", str(public_of(make_key("ada"))))
    bob = make_key("bob")
    assert find_signing_key(bob) == SigningKey("--key", path=bob)


def test_no_key_configured_says_how_to_make_one() -> None:
    with pytest.raises(SigningError) as error:
        find_signing_key()
    said = str(error.value)
    assert "ssh-keygen -t ed25519 -f ~/.ssh/flipgate_ed25519" in said
    assert "git config --global user.signingkey ~/.ssh/flipgate_ed25519.pub" in said


def test_a_key_file_that_does_not_exist_is_named(tmp_path: Path) -> None:
    git_set("user.signingkey", str(tmp_path / "gone.pub"))
    with pytest.raises(
        SigningError, match=r"gone\.pub \(from git config user.signingkey\) does not exist"
    ):
        find_signing_key()
    with pytest.raises(SigningError, match=r"nope \(from --key\) does not exist"):
        find_signing_key(tmp_path / "nope")


def test_a_gpg_key_id_is_refused_with_advice() -> None:
    git_set("user.signingkey", "3AA5C34371567BD2")
    with pytest.raises(SigningError, match="looks like a GPG key id"):
        find_signing_key()


def test_a_key_needing_a_passphrase_fails_at_once_without_a_terminal(make_key: KeyMaker) -> None:
    key = make_key("locked", passphrase="correct horse")
    started = time.monotonic()
    with pytest.raises(SigningError) as error:
        sign(MESSAGE, SigningKey("--key", path=key))
    assert time.monotonic() - started < 5
    assert "needs a passphrase and there is no terminal" in str(error.value)
    assert f"ssh-add {key}" in str(error.value)
    # The .pub path of the same key points the advice at the private half.
    with pytest.raises(SigningError, match=f"ssh-add {key}` and retry"):
        sign(MESSAGE, SigningKey("--key", path=public_of(key)))


def test_a_passphrase_key_in_the_agent_signs(
    make_key: KeyMaker, agent: Path, allow: Callable[[str, Path], Path]
) -> None:
    key = make_key("locked", passphrase="correct horse")
    ssh_add(key, "correct horse")
    armor = sign(MESSAGE, SigningKey("--key", path=public_of(key)))
    assert verify_signer(MESSAGE, armor, "ada@example.com", allow("ada@example.com", key)).ok


def test_a_literal_public_key_signs_through_the_agent(
    make_key: KeyMaker, agent: Path, allow: Callable[[str, Path], Path]
) -> None:
    key = make_key("ada")
    literal = public_of(key).read_text().strip()
    git_set("user.signingkey", f"key::{literal}")
    found = find_signing_key()
    assert found == SigningKey("git config user.signingkey", public_key=literal)
    with pytest.raises(SigningError, match="ssh-agent does not hold"):
        sign(MESSAGE, found)
    ssh_add(key)
    key.unlink()  # only the agent holds the private half now
    armor = sign(MESSAGE, found)
    assert verify_signer(
        MESSAGE, armor, "ada@example.com", allow("ada@example.com", public_of(key).with_suffix(""))
    ).ok


def test_a_literal_key_without_an_agent_says_to_start_one(make_key: KeyMaker) -> None:
    literal = public_of(make_key("ada")).read_text().strip()
    with pytest.raises(SigningError, match="no agent is running"):
        sign(MESSAGE, SigningKey("git config user.signingkey", public_key=literal))


def test_a_hanging_ssh_keygen_times_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_key: KeyMaker
) -> None:
    key = make_key("ada")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "ssh-keygen").write_text("#!/bin/sh\nexec /bin/sleep 30\n")
    (fake / "ssh-keygen").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    started = time.monotonic()
    with pytest.raises(SigningError, match=r"did not finish signing within 0.3 s"):
        sign(MESSAGE, SigningKey("--key", path=key), timeout=0.3)
    assert time.monotonic() - started < 5


def test_missing_ssh_keygen_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_key: KeyMaker
) -> None:
    key = make_key("ada")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SigningError, match="ssh-keygen was not found on PATH"):
        sign(MESSAGE, SigningKey("--key", path=key))
    with pytest.raises(SigningError, match="ssh-keygen was not found on PATH"):
        check_signature(MESSAGE, "-----BEGIN SSH SIGNATURE-----\n")


def test_allowed_signers_default_comes_from_git() -> None:
    assert default_allowed_signers() is None
    git_set("gpg.ssh.allowedSignersFile", "~/allowed_signers")
    assert default_allowed_signers() == Path.home() / "allowed_signers"


def test_a_missing_allowed_signers_file_fails_the_check(tmp_path: Path) -> None:
    said = verify_signer(MESSAGE, "x", "ada@example.com", tmp_path / "none")
    assert not said.ok
    assert "does not exist" in found_words(said.found)
