"""How deep each line of a JSONL file nests, found without parsing it.

Before either reader (`columns`, `records`) parses a byte, `Lines.nesting_problem` refuses a line
nested deeper than `MAX_DEPTH`, from one vectorised pass over the bytes: Arrow's reader takes 14 s
over one line nested 5,000 deep, and crashes deeper.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flipgate.core.errors import InputError

MAX_DEPTH = 64  # objects and lists inside one another on one line; SPEC §2's own need five


_STRUCTURE = np.zeros(256, dtype=np.bool_)
_STRUCTURE[[ord(c) for c in '"\\{}[]']] = True
_WHITESPACE = np.zeros(256, dtype=np.bool_)
_WHITESPACE[list(b" \t\n\r\x0b\x0c")] = True  # what `bytes.strip` strips
SCAN_BLOCK = 1 << 20  # bytes compared at a time, into buffers allocated once


@dataclass(frozen=True)
class Lines:
    """Where a JSONL file's lines end and its `{` and `[` stand: one vectorised pass."""

    newlines: np.ndarray
    openers: np.ndarray

    @classmethod
    def scan(cls, octets: np.ndarray) -> Lines:
        return cls._scan(octets[at : at + SCAN_BLOCK] for at in range(0, octets.size, SCAN_BLOCK))

    @classmethod
    def scan_file(cls, path: Path) -> Lines:
        """`scan` over the file read a block at a time: its bytes never all in memory at once (a
        mapping of the whole file counts in the process's resident memory, 1.6 GB a million-case
        run)."""
        buffer = bytearray(SCAN_BLOCK)

        def blocks() -> Iterator[np.ndarray]:
            with path.open("rb") as f:
                while n := f.readinto(buffer):
                    yield np.frombuffer(buffer, dtype=np.uint8, count=n)

        return cls._scan(blocks())

    @classmethod
    def _scan(cls, blocks: Iterable[np.ndarray]) -> Lines:
        shifted = np.empty(SCAN_BLOCK, dtype=np.uint8)
        hits = np.empty(SCAN_BLOCK, dtype=np.bool_)
        newlines, openers, at = [], [], 0
        for block in blocks:
            found = hits[: block.size]
            np.equal(block, ord("\n"), out=found)
            newlines.append(np.flatnonzero(found) + at)
            np.bitwise_or(block, 0x20, out=shifted[: block.size])  # `[` | 0x20 is `{`
            np.equal(shifted[: block.size], ord("{"), out=found)
            openers.append(np.flatnonzero(found) + at)
            at += block.size
        empty = np.zeros(0, dtype=np.int64)
        return cls(np.concatenate(newlines or [empty]), np.concatenate(openers or [empty]))

    def filled(self, octets: np.ndarray) -> np.ndarray:
        """The numbers (from 1) of the lines that hold more than ASCII whitespace, as a reader
        that skips blank lines counts its rows. A line whose first byte is not whitespace holds
        more: only the others (blank lines, a rare indented one) are looked at, one by one."""
        ends = self.newlines
        if octets.size and octets[-1] != ord("\n"):  # the last line, with no newline after it
            ends = np.append(ends, octets.size)
        begins = np.concatenate(([0], self.newlines + 1))[: ends.size].astype(np.int64)
        kept = (begins < ends) & ~_WHITESPACE[octets[begins]]  # an empty line: a newline first
        for line in np.flatnonzero(~kept):
            kept[line] = bool(octets[begins[line] : ends[line]].tobytes().strip())
        numbers: np.ndarray = np.flatnonzero(kept) + 1
        return numbers

    def nesting_problem(self, octets: np.ndarray, path: Path) -> InputError | None:
        """The first line nested deeper than `MAX_DEPTH`, found without parsing. A line nests
        no deeper than it has `{` and `[`: only one with more is scanned for its depth."""
        if self.openers.size <= MAX_DEPTH:
            return None
        per_line = np.bincount(np.searchsorted(self.newlines, self.openers))
        for line in np.flatnonzero(per_line > MAX_DEPTH):
            begin = int(self.newlines[line - 1]) + 1 if line else 0
            end = int(self.newlines[line]) if line < self.newlines.size else octets.size
            if _deep_at(octets[begin:end]) is not None:
                return InputError(
                    path,
                    f"nested deeper than {MAX_DEPTH} levels",
                    line=int(line) + 1,
                    field=_top_level_key(octets[begin:end].tobytes()),
                )
        return None


def _deep_at(line: np.ndarray) -> int | None:
    """The offset of the first bracket of `line` past `MAX_DEPTH`, outside strings: a quote
    counts when an even run of backslashes precedes it."""
    at = np.flatnonzero(_STRUCTURE[line])
    code = line[at]
    index = np.arange(at.size)
    backslash = code == ord("\\")
    adjacent = np.diff(at) == 1
    # The length of the run of adjacent backslashes each backslash ends.
    follows = np.zeros(at.size, dtype=np.bool_)
    follows[1:] = backslash[1:] & backslash[:-1] & adjacent
    run = index - np.maximum.accumulate(np.where(backslash & ~follows, index, 0)) + 1
    escaped = np.zeros(at.size, dtype=np.bool_)
    escaped[1:] = backslash[:-1] & adjacent & (run[:-1] % 2 == 1)
    quote = (code == ord('"')) & ~escaped
    outside = (np.cumsum(quote) - quote) % 2 == 0
    opens = np.isin(code, (ord("{"), ord("[")))
    closes = np.isin(code, (ord("}"), ord("]")))
    depth = np.cumsum((opens.astype(np.int64) - closes) * outside)
    deep = np.flatnonzero(depth > MAX_DEPTH)
    return int(at[deep[0]]) if deep.size else None


_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"\s*:|[{}\[\]]')


def _top_level_key(line: bytes) -> str | None:
    """The key of the line's top-level field that holds the deep nesting."""
    depth, key = 0, None
    for token in _TOKEN.finditer(line):
        text = token.group()
        if text in (b"{", b"["):
            depth += 1
            if depth > MAX_DEPTH:
                return key
        elif text in (b"}", b"]"):
            depth -= 1
        elif depth == 1:
            try:
                key = json.loads(text[: text.rindex(b":")])
            except ValueError:
                key = None
    return key
