"""The embedded ledger: one SQLite file (standard library), safe for several writers at once.

Two tables: `flipgate` (`format` = `attempts 1`: a database that lacks it is not ours) and
`attempts` (one row per entry, in order: `seq`, the change, the entry's canonical text and its
digest). An append is one `BEGIN IMMEDIATE` transaction: it takes the write lock (another
writer waits for it, up to `TIMEOUT`), checks every entry's chain, refuses when the change moved
since its caller read it, and inserts the new entry linked to the last: committed whole, or not
at all. The journal stays the default rollback journal, so the ledger is one file at rest.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from flipgate.core.attempts.entry import Attempt, chained, check_chain, check_numbers
from flipgate.core.attempts.ledger import LedgerConflict
from flipgate.core.errors import InputError

FORMAT = "attempts 1"
TIMEOUT = 60.0  # seconds a writer waits for another's transaction
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS flipgate (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS attempts ("
    " seq INTEGER PRIMARY KEY, change_id TEXT NOT NULL, entry TEXT NOT NULL, digest TEXT NOT NULL)",
)


class SqliteLedger:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def where(self) -> str:
        return str(self.path)

    def read(self) -> tuple[Attempt, ...]:
        if not self.path.exists():
            return ()
        if not self.path.is_file():
            raise InputError(self.path, "a ledger of attempts is a file (an SQLite database)")
        with self._connection() as db:
            return tuple(self._entries(db))

    def append(self, attempt: Attempt, seen: Sequence[str]) -> Attempt:
        if not self.path.parent.is_dir():
            raise InputError(self.path, "no such folder for the ledger of attempts")
        new = not self.path.exists()
        try:
            return self._append(attempt, seen)
        except BaseException:
            if new and self.path.is_file() and self.path.stat().st_size == 0:
                self.path.unlink(missing_ok=True)  # the empty file the failed append made
            raise

    def _append(self, attempt: Attempt, seen: Sequence[str]) -> Attempt:
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")  # the write lock, held until COMMIT
            try:
                for statement in _SCHEMA:
                    db.execute(statement)
                db.execute("INSERT OR IGNORE INTO flipgate VALUES ('format', ?)", (FORMAT,))
                entries = self._entries(db)
                change = [a.id for a in entries if a.change_id == attempt.change_id]
                if change != list(seen):
                    raise LedgerConflict(attempt.change_id)
                entry = chained(attempt, entries[-1].digest if entries else None, len(change) + 1)
                db.execute(
                    "INSERT INTO attempts (change_id, entry, digest) VALUES (?, ?, ?)",
                    (entry.change_id, entry.text(), entry.digest),
                )
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return entry

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.path, timeout=TIMEOUT, isolation_level=None)
        except sqlite3.Error as failed:
            raise InputError(self.path, f"cannot open the ledger of attempts: {failed}") from None
        try:
            yield db
        except sqlite3.DatabaseError as failed:
            raise InputError(
                self.path, f"not a ledger of attempts this flipgate can read: {failed}"
            ) from None
        finally:
            db.close()

    def _entries(self, db: sqlite3.Connection) -> list[Attempt]:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return []  # a new, empty file: no attempt yet
        if not {"flipgate", "attempts"} <= tables:
            raise InputError(
                self.path,
                "an SQLite database, but not a flipgate ledger of attempts",
                field="flipgate",
            )
        format_row = db.execute("SELECT value FROM flipgate WHERE key = 'format'").fetchone()
        if format_row is None or format_row[0] != FORMAT:
            said = "none" if format_row is None else repr(format_row[0])
            raise InputError(
                self.path, f"ledger format {said}, not {FORMAT!r}", field="flipgate.format"
            )
        rows = db.execute(
            "SELECT seq, change_id, entry, digest FROM attempts ORDER BY seq"
        ).fetchall()
        texts = [str(entry) for _, _, entry, _ in rows]
        attempts = check_chain(texts, self.path, lambda i: f"row {rows[i][0]}")
        check_numbers(attempts, self.path)
        for (seq, change_id, _, digest), attempt in zip(rows, attempts, strict=True):
            if digest != attempt.digest:
                raise InputError(
                    self.path,
                    f"row {seq}: the digest column does not match the entry",
                    field="digest",
                )
            if change_id != attempt.change_id:
                raise InputError(
                    self.path,
                    f"row {seq}: the change_id column does not match the entry",
                    field="change_id",
                )
        return attempts
