"""The members of an Inspect `.eval` log: a zip of `header.json` (or, for a run that never
finished, `_journal/start.json`), one `samples/<id>_epoch_<n>.json` per sample, and summaries.

Inspect >= 0.3.206 compresses members with Zstandard (zip method 93), which the stdlib `zipfile`
reads only from Python 3.14, so those members are read raw through their local header and
decompressed with `zstandard`. Deflate members (older Inspect) go through plain `zipfile`.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from flipgate.core.errors import InputError
from flipgate.core.importers.base import ZIP_SIGNATURE

ZIP_ZSTANDARD = 93
HEADER, JOURNAL_START = "header.json", "_journal/start.json"
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature .. name length, extra length
_DRIVE = re.compile(r"[A-Za-z]:")  # `C:/...`: absolute on Windows
_SAMPLE = re.compile(r"samples/[^/]+\.json")


class EvalArchive:
    """One `.eval` log, open: its header's bytes and its samples' bytes, member by member."""

    def __init__(self, path: Path, max_member: int) -> None:
        self.path = path
        try:
            self._archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as exc:
            raise InputError(path, f"not a readable .eval archive ({exc})") from None
        self._raw = path.open("rb")
        # A member written twice (a sample re-logged after a retry) appears twice: the last wins.
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in self._archive.infolist():
            _check_member_name(path, info.filename)
            self.members[info.filename] = info
        self.reader = EvalMemberReader(path, self._archive, self._raw, max_member)

    def __enter__(self) -> EvalArchive:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._archive.close()
        self._raw.close()

    def header(self) -> tuple[str, bytes]:
        """The header member's name and bytes: `header.json`, else (a crashed or running eval
        has none yet) the journal's start, which holds the same eval spec."""
        name = HEADER if HEADER in self.members else JOURNAL_START
        if name not in self.members:
            raise InputError(self.path, f"no {HEADER} nor {JOURNAL_START}: not an Inspect log")
        return name, self.reader.read(self.members[name])

    def samples(self) -> Iterator[tuple[str, bytes]]:
        for name, info in self.members.items():
            if _SAMPLE.fullmatch(name):
                yield name, self.reader.read(info)


def _check_member_name(path: Path, name: str) -> None:
    member = PurePosixPath(name.replace("\\", "/"))
    if member.is_absolute() or ".." in member.parts or _DRIVE.match(name):
        raise InputError(path, f"archive member {name!r} points outside the archive")


class EvalMemberReader:
    """Decompress members of one `.eval` archive: zstd by hand, the rest through `zipfile`."""

    def __init__(
        self, path: Path, archive: zipfile.ZipFile, raw: BinaryIO, max_member: int
    ) -> None:
        self.path = path
        self._max_member = max_member
        self._archive = archive
        self._raw = raw
        import zstandard  # here, not at the top: the gate's start-up needs no importer's reader

        self._zstd = zstandard.ZstdDecompressor()
        self._corrupt = (zipfile.BadZipFile, zlib.error, zstandard.ZstdError, EOFError)

    def read(self, info: zipfile.ZipInfo) -> bytes:
        """The member's bytes. Both decompressors stop at the size the archive declares, so a
        declared size within the bound bounds what a member takes: a 625 KB archive can hold a
        400 MB member (a zip bomb), and reading it took 893 MB."""
        if info.file_size > self._max_member:
            raise InputError(
                self.path,
                f"decompresses to {info.file_size / 1e6:,.0f} MB, past the bound of "
                f"{self._max_member / 1e6:,.0f} MB (raise it with --max-member-mb)",
                field=info.filename,
            )
        try:
            if info.compress_type != ZIP_ZSTANDARD:
                return self._archive.open(info).read()
            data = self._zstd.decompress(self._compressed(info), max_output_size=info.file_size)
        except self._corrupt as exc:
            raise InputError(self.path, f"corrupt member ({exc})", field=info.filename) from None
        except NotImplementedError as exc:
            raise InputError(self.path, str(exc), field=info.filename) from None
        if zlib.crc32(data) != info.CRC:
            raise InputError(self.path, "member fails its CRC check", field=info.filename)
        return data

    def _compressed(self, info: zipfile.ZipInfo) -> bytes:
        self._raw.seek(info.header_offset)
        header = self._raw.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size:
            raise EOFError("local file header is truncated")
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != ZIP_SIGNATURE:
            raise zipfile.BadZipFile("bad local file header")
        name_length, extra_length = fields[-2], fields[-1]
        self._raw.seek(name_length + extra_length, 1)
        data = self._raw.read(info.compress_size)
        if len(data) != info.compress_size:
            raise EOFError("member data is truncated")
        return data
