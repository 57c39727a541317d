"""Write a large Inspect `.eval` log (zstd members, as inspect_ai 0.3.285 writes) for the bench.

The samples are clones of the fixture's real samples with new ids, so their size and shape
(events, events_data, attachments) are what Inspect really writes. The stdlib cannot write zip
method 93, so the archive is laid out by hand: local headers, data, central directory.
"""

from __future__ import annotations

import argparse
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import zstandard

from flipgate.core.importers.inspect_zip import ZIP_ZSTANDARD, EvalArchive

# A real agent log (tool calls, events, attachments): tests/fixtures/inspect/README.md
FIXTURE = Path(__file__).parents[1] / "tests/fixtures/inspect/baseline.eval"
_VERSION = 63  # "version needed to extract" 6.3: the zip revision that lists zstd
_DOS_TIME, _DOS_DATE = 0, (2026 - 1980) << 9 | 11 << 5 | 29


class ZstdZipWriter:
    """The smallest zip writer that stores zstd (method 93) members."""

    def __init__(self, path: Path) -> None:
        self._out = path.open("wb")
        self._central: list[bytes] = []
        self._zstd = zstandard.ZstdCompressor(level=3)

    def add(self, name: str, payload: bytes) -> None:
        data = self._zstd.compress(payload)
        crc, encoded = zlib.crc32(payload), name.encode()
        sizes = (crc, len(data), len(payload), len(encoded))
        offset = self._out.tell()
        self._out.write(
            struct.pack(
                "<4s5H3L2H",
                b"PK\x03\x04",
                _VERSION,
                0,
                ZIP_ZSTANDARD,
                _DOS_TIME,
                _DOS_DATE,
                *sizes,
                0,
            )
        )
        self._out.write(encoded + data)
        self._central.append(
            struct.pack(
                "<4s6H3L5H2L",
                b"PK\x01\x02",
                _VERSION,
                _VERSION,
                0,
                ZIP_ZSTANDARD,
                _DOS_TIME,
                _DOS_DATE,
                *sizes,
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + encoded
        )

    def close(self) -> None:
        start = self._out.tell()
        for entry in self._central:
            self._out.write(entry)
        size = self._out.tell() - start
        count = len(self._central)
        if count > 0xFFFF:  # past 65,535 members the counts live in the ZIP64 end records
            end64 = self._out.tell()
            self._out.write(
                struct.pack(
                    "<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, start
                )
            )
            self._out.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, end64, 1))
            count = 0xFFFF
        self._out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, start, 0))
        self._out.close()


def _fixture_members() -> dict[str, Any]:
    with EvalArchive(FIXTURE, 1 << 30) as archive:
        return {
            name: json.loads(archive.reader.read(info)) for name, info in archive.members.items()
        }


def generate(out: Path, n_samples: int, epochs: int) -> None:
    members = _fixture_members()
    header = members["header.json"]
    templates = {(s["id"], s["epoch"]): s for n, s in members.items() if n.startswith("samples/")}
    template_ids = sorted({sample_id for sample_id, _ in templates})
    ids = list(range(1, n_samples + 1))  # integer ids, as the fixture's
    summaries = {(s["id"], s["epoch"]): s for s in members["summaries.json"]}

    header["eval"]["dataset"].update(samples=n_samples, sample_ids=ids)
    header["eval"]["config"]["epochs"] = epochs
    header["results"].update(total_samples=n_samples * epochs, completed_samples=n_samples * epochs)
    writer = ZstdZipWriter(out)
    writer.add("_journal/start.json", json.dumps(members["_journal/start.json"]).encode())
    new_summaries = []
    for epoch in range(1, epochs + 1):
        for i, sample_id in enumerate(ids):
            source = (template_ids[i % len(template_ids)], (epoch - 1) % 3 + 1)
            sample = dict(templates[source], id=sample_id, epoch=epoch)
            writer.add(f"samples/{sample_id}_epoch_{epoch}.json", json.dumps(sample).encode())
            new_summaries.append(dict(summaries[source], id=sample_id, epoch=epoch))
    writer.add("summaries.json", json.dumps(new_summaries).encode())
    reductions = [
        dict(
            reduction,
            samples=[
                dict(reduction["samples"][i % len(template_ids)], sample_id=sample_id)
                for i, sample_id in enumerate(ids)
            ],
        )
        for reduction in members["reductions.json"]
    ]
    writer.add("reductions.json", json.dumps(reductions).encode())
    writer.add("header.json", json.dumps(header).encode())
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    generate(args.out, args.samples, args.epochs)


if __name__ == "__main__":
    main()
