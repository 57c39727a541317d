"""The shared ledger: git notes under `refs/notes/flipgate`, fetched and pushed like any ref.

Each attempt is a line of canonical JSON in the note on its change's commit: the commit the
change id names (a full hash or a ref), else the commit checked out (HEAD). A note's lines are
one chain (each names the digest of the line before); a change's attempts, wherever they are, are
numbered 1, 2, ... The ref's own history (every append is a notes commit) shows who rewrote it.

An append never loses another's: the new notes commit is made on a scratch ref and the ref moved
to it only if it still points where it did (`git update-ref NEW OLD`). With a remote
(`git:REMOTE`), every read first fetches the remote's ref and brings the local one up to it
(attempts only this clone has are appended again on top), and every append is pushed; a push
refused because another job pushed first is taken back, and the attempt judged again on the
fetched ledger when that job gated the same change.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.attempts.entry import Attempt, Where, chained, check_chain, check_numbers
from flipgate.core.attempts.ledger import LedgerConflict
from flipgate.core.errors import InputError

REF = "refs/notes/flipgate"
TIMEOUT = 120.0  # seconds for one git command (a fetch or a push crosses a network)
TRIES = 5  # appends retried when another writer moved the ref meanwhile
_SHORT_HEX = re.compile(r"[0-9a-f]{4,39}")  # a PR number may look like an abbreviated hash
_OBJECT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_IDENTITY = {  # who makes the notes commits when git has no identity configured (a CI runner)
    "GIT_AUTHOR_NAME": "flipgate",
    "GIT_AUTHOR_EMAIL": "flipgate@localhost",
    "GIT_COMMITTER_NAME": "flipgate",
    "GIT_COMMITTER_EMAIL": "flipgate@localhost",
}


def _lines_of(on: str) -> Where:
    def where(index: int) -> str:
        return f"the note on {on[:12]}, line {index + 1}"

    return where


@dataclass(frozen=True)
class _Note:
    on: str  # the annotated object
    text: str
    attempts: tuple[Attempt, ...]


class NotesLedger:
    def __init__(self, folder: Path, remote: str | None = None) -> None:
        self.folder = folder
        self.remote = remote
        self._repo: Path | None = None

    @property
    def where(self) -> str:
        remote = f", shared with {self.remote}" if self.remote else ""
        return f"{REF} in {self.repo}{remote}"

    @property
    def repo(self) -> Path:
        if self._repo is None:
            done = self._git("rev-parse", "--show-toplevel", check=False, cwd=self.folder)
            if done.returncode != 0:
                raise InputError(
                    self.folder,
                    "not inside a git repository: `--ledger git` keeps the attempts in its notes",
                    field="ledger",
                )
            self._repo = Path(done.stdout.strip())
        return self._repo

    # ------------------------------------------------------------------ reading

    def read(self) -> tuple[Attempt, ...]:
        if self.remote is not None:
            self._sync()
        return self._attempts(self._notes(self._tip(REF)))

    def _attempts(self, notes: Sequence[_Note]) -> tuple[Attempt, ...]:
        attempts = [a for note in notes for a in note.attempts]
        check_numbers(attempts, Path(REF))
        return tuple(sorted(attempts, key=lambda a: (a.at, a.change_id, a.attempt)))

    def _notes(self, tip: str | None) -> list[_Note]:
        """Every note of the notes commit `tip`, each one's chain checked."""
        if tip is None:
            return []
        listing = self._git("ls-tree", "-r", "--full-tree", tip).stdout.splitlines()
        blobs: list[tuple[str, str]] = []
        for line in listing:
            meta, _, path = line.partition("\t")
            kind, blob = meta.split()[1:3]
            on = path.replace("/", "")
            if kind != "blob" or not _OBJECT.fullmatch(on):
                raise self._not_ours(f"{path!r} is not a note on an object")
            blobs.append((on, blob))
        texts = self._blobs([blob for _, blob in blobs])
        notes = []
        for (on, _), text in zip(blobs, texts, strict=True):
            attempts = check_chain(text.splitlines(), Path(REF), _lines_of(on))
            notes.append(_Note(on, text, tuple(attempts)))
        return notes

    def _blobs(self, blobs: list[str]) -> list[str]:
        """The blobs' texts, read by one `git cat-file --batch`."""
        if not blobs:
            return []
        data = self._run(["cat-file", "--batch"], "".join(b + "\n" for b in blobs).encode()).stdout
        texts, at = [], 0
        for _ in blobs:
            header_end = data.index(b"\n", at)
            size = int(data[at:header_end].split()[2])
            body = data[header_end + 1 : header_end + 1 + size]
            try:
                texts.append(body.decode("utf-8"))
            except UnicodeDecodeError:
                raise self._not_ours("a note is not UTF-8 text") from None
            at = header_end + 1 + size + 1
        return texts

    def _not_ours(self, why: str) -> InputError:
        return InputError(
            Path(REF),
            f"in {self.repo}: {why}: the ref holds something other than flipgate's attempts",
            field="notes",
        )

    # ------------------------------------------------------------------ appending

    def append(self, attempt: Attempt, seen: Sequence[str]) -> Attempt:
        on = self._object(attempt.change_id)
        for _ in range(TRIES):
            if self.remote is not None:
                self._sync()
            old = self._tip(REF)
            notes = self._notes(old)
            every = self._attempts(notes)
            change = [
                a.id
                for a in sorted(every, key=lambda a: a.attempt)
                if a.change_id == attempt.change_id
            ]
            if change != list(seen):
                raise LedgerConflict(attempt.change_id)
            note = next((n for n in notes if n.on == on), None)
            last = note.attempts[-1].digest if note and note.attempts else None
            entry = chained(attempt, last, len(change) + 1)
            text = (note.text if note else "") + entry.text() + "\n"
            new = self._commit_note(old, {on: text})
            if not self._move(REF, new, old):
                continue  # another writer here moved the ref: read it again
            if self.remote is None or self._push():
                return entry
            self._take_back(new, old)  # refused by the remote: ours taken back, then fetch
        raise InputError(
            Path(REF),
            f"in {self.repo}: could not append after {TRIES} tries: other writers kept moving it",
        )

    def _object(self, change_id: str) -> str:
        """The commit a change id names (a full hash, a ref), else the commit checked out."""
        if not _SHORT_HEX.fullmatch(change_id):
            named = self._commit(change_id)
            if named is not None:
                return named
        head = self._commit("HEAD")
        if head is None:
            raise InputError(
                Path("--change-id"),
                f"{change_id!r} names no commit and {self.repo} has none checked out: git notes "
                "need a commit to attach the attempts to",
            )
        return head

    def _commit(self, name: str) -> str | None:
        done = self._git(
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{name}^{{commit}}",
            check=False,
        )
        return done.stdout.strip() if done.returncode == 0 else None

    def _commit_note(self, old: str | None, notes: dict[str, str]) -> str:
        """A notes commit on `old` (None: the first) with `notes` set, made on a scratch ref."""
        scratch = f"refs/notes/flipgate-writing-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        if old is not None:
            self._git("update-ref", scratch, old)
        try:
            with tempfile.TemporaryDirectory(prefix="flipgate-note-") as folder:
                for on, text in notes.items():
                    file = Path(folder) / on
                    file.write_text(text, encoding="utf-8")
                    self._git(
                        "notes",
                        f"--ref={scratch}",
                        "add",
                        "--force",
                        "--file",
                        str(file),
                        on,
                        identity=True,
                    )
            return self._git("rev-parse", "--verify", scratch).stdout.strip()
        finally:
            self._git("update-ref", "-d", scratch, check=False)

    def _move(self, ref: str, new: str, old: str | None) -> bool:
        """Move `ref` to `new` only if it still is `old` (None or "": only if it does not exist)."""
        return self._git("update-ref", ref, new, old or "", check=False).returncode == 0

    def _take_back(self, new: str, old: str | None) -> None:
        """The ref back where it was before our append, if nobody moved it since."""
        if old is None:
            self._git("update-ref", "-d", REF, new, check=False)
        else:
            self._move(REF, old, new)

    def _tip(self, ref: str) -> str | None:
        done = self._git("rev-parse", "--verify", "--quiet", ref, check=False)
        if done.returncode != 0:
            return None
        tip = done.stdout.strip()
        if self._git("cat-file", "-t", tip).stdout.strip() != "commit":
            raise self._not_ours(f"{ref} points at no commit")
        return tip

    # ------------------------------------------------------------------ sharing

    @property
    def _tracking(self) -> str:
        return f"refs/flipgate/remotes/{re.sub(r'[^A-Za-z0-9._-]', '_', self.remote or '')}"

    def _sync(self) -> None:
        """Fetch the remote's ref and bring the local one up to it: fast-forwarded, or, where
        both moved, this clone's own attempts appended again on top of the remote's."""
        assert self.remote is not None
        listed = self._git("ls-remote", "--refs", self.remote, REF, network=True)
        if not listed.stdout.strip():
            return  # the remote has no attempt yet
        self._git(
            "fetch", "--quiet", "--no-tags", self.remote, f"+{REF}:{self._tracking}", network=True
        )
        theirs = self._tip(self._tracking)
        for _ in range(TRIES):
            local = self._tip(REF)
            if theirs is None or local == theirs or (local and self._ancestor(theirs, local)):
                return
            if local is None or self._ancestor(local, theirs):
                merged = theirs
            else:
                merged = self._rebased(local, theirs)
            if self._move(REF, merged, local):
                return
        raise InputError(Path(REF), f"in {self.repo}: could not bring it up to {self.remote}")

    def _rebased(self, local: str, theirs: str) -> str:
        """The remote's notes with the attempts only `local` has appended again, each chained to
        its note's last line and numbered after its change's attempts there."""
        their_notes = {note.on: note for note in self._notes(theirs)}
        their_attempts = [a for note in their_notes.values() for a in note.attempts]
        known = {a.id for a in their_attempts}
        counts: dict[str, int] = {}
        for a in their_attempts:
            counts[a.change_id] = max(counts.get(a.change_id, 0), a.attempt)
        changed: dict[str, str] = {}
        for note in self._notes(local):
            extra = [a for a in note.attempts if a.id not in known]
            if not extra:
                continue
            base = their_notes.get(note.on)
            text = base.text if base else ""
            last = base.attempts[-1].digest if base and base.attempts else None
            for attempt in extra:
                counts[attempt.change_id] = counts.get(attempt.change_id, 0) + 1
                entry = chained(attempt, last, counts[attempt.change_id])
                text += entry.text() + "\n"
                last = entry.digest
            changed[note.on] = text
        return self._commit_note(theirs, changed)

    def _push(self) -> bool:
        """Push the ref; False when the remote refused it because it moved meanwhile."""
        assert self.remote is not None
        done = self._git(
            "push", "--porcelain", self.remote, f"{REF}:{REF}", check=False, network=True
        )
        if done.returncode == 0:
            return True
        said = done.stdout + done.stderr
        if "rejected" in said or "fetch first" in said or "non-fast-forward" in said:
            return False
        raise InputError(
            Path(REF),
            f"the attempt is in {self.repo}'s {REF} but was not pushed to {self.remote}: "
            f"{' '.join(done.stderr.split()) or 'git push failed'}",
        )

    def _ancestor(self, older: str, newer: str) -> bool:
        done = self._git("merge-base", "--is-ancestor", older, newer, check=False)
        return done.returncode == 0

    # ------------------------------------------------------------------ git

    def _git(
        self,
        *args: str,
        check: bool = True,
        cwd: Path | None = None,
        identity: bool = False,
        network: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        """`git -C REPO ARGS` as text; a failure is bad input saying what git said."""
        done = self._run(list(args), None, cwd=cwd, identity=identity)
        out = subprocess.CompletedProcess(
            done.args,
            done.returncode,
            done.stdout.decode(errors="replace"),
            done.stderr.decode(errors="replace"),
        )
        if check and out.returncode != 0:
            where = f" with {self.remote}" if network else ""
            raise InputError(
                Path(REF), f"git {' '.join(args[:2])}{where} failed: {' '.join(out.stderr.split())}"
            )
        return out

    def _run(
        self,
        args: list[str],
        stdin: bytes | None,
        *,
        cwd: Path | None = None,
        identity: bool = False,
    ) -> subprocess.CompletedProcess[bytes]:
        git = shutil.which("git")
        if git is None:
            raise InputError(Path("git"), "git is not installed: `--ledger git` needs it")
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        if identity and not self._has_identity(git):
            env = {**_IDENTITY, **env}
        try:
            done = subprocess.run(
                [git, "-C", str(cwd or self.repo), *args],
                input=stdin if stdin is not None else b"",
                capture_output=True,
                timeout=TIMEOUT,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise InputError(
                Path(REF), f"git {args[0]} did not finish within {TIMEOUT:g} s"
            ) from None
        if stdin is not None and done.returncode != 0:
            raise InputError(
                Path(REF), f"git {args[0]} failed: {done.stderr.decode(errors='replace')}"
            )
        return done

    def _has_identity(self, git: str) -> bool:
        done = subprocess.run(
            [git, "-C", str(self.repo), "var", "GIT_COMMITTER_IDENT"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT,
            check=False,
        )
        return done.returncode == 0
