"""docs/who-flipped.md's Inspect recipe on logs Inspect wrote (tests/fixtures/inspect_rejudged/):
each arm's eval log and three `inspect score` passes over it, read as flipgate reads a
workspace's `rejudged/`; the judge flip rate is the one a plain count of the logs' scores gives."""

from __future__ import annotations

import json
import struct
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest
import zstandard

from flipgate.session import GateRequest, gate, read

WS = Path(__file__).parents[1] / "fixtures" / "inspect_rejudged" / "ws"
SCORER = "policy_judge"


def members(log: Path) -> dict[str, bytes]:
    """The sample files of an .eval zip, decompressed here (Inspect writes Zstandard members, zip
    method 93, which `zipfile` cannot read): a reading of the logs apart from the importer's."""
    found = {}
    raw = log.read_bytes()
    with zipfile.ZipFile(log) as archive:
        for info in archive.infolist():
            if not (info.filename.startswith("samples/") and info.filename.endswith(".json")):
                continue
            *_, name_length, extra_length = struct.unpack_from(
                "<IHHHHHIIIHH", raw, info.header_offset
            )
            start = info.header_offset + 30 + name_length + extra_length
            data = raw[start : start + info.compress_size]
            if info.compress_type == 93:
                data = zstandard.ZstdDecompressor().decompress(data, max_output_size=info.file_size)
            else:
                data = archive.read(info)
            found[info.filename] = data
    return found


def verdicts(log: Path) -> dict[tuple[str, int], str]:
    """(sample id, epoch) -> the scorer's value."""
    samples = (json.loads(data) for data in members(log).values())
    return {(str(s["id"]), s["epoch"]): s["scores"][SCORER]["value"] for s in samples}


def plain_count(arm: str) -> tuple[int, int, int]:
    """Outputs judged, those given more than one verdict, and the judgings: counted by hand."""
    logs = [WS / f"{arm}.eval", *sorted((WS / "rejudged" / arm).glob("*.eval"))]
    given: dict[tuple[str, int], set[str]] = defaultdict(set)
    for log in logs:
        for output, value in verdicts(log).items():
            given[output].add(value)
    return len(given), sum(len(values) > 1 for values in given.values()), len(logs)


@pytest.mark.parametrize("arm", ["baseline", "candidate"])
def test_inspect_score_passes_give_the_judge_flip_rate_a_plain_count_gives(arm: str) -> None:
    request = GateRequest.of(
        [WS / "baseline.eval", WS / "candidate.eval"], rejudged=WS / "rejudged"
    )
    comparison = gate(read(request))
    [repeats] = [r for r in comparison.judge_repeats if r.arm == arm]
    outputs, flipped, judgings = plain_count(arm)
    assert (outputs, judgings) == (24, 4)  # 12 listings x 2 epochs, the eval and 3 passes
    assert 0 < flipped < outputs  # the judge wobbled, and not on every output
    assert repeats.judgings == judgings
    assert repeats.passes[1:] == ("pass-1.eval", "pass-2.eval", "pass-3.eval")
    [rate] = repeats.rules
    assert (rate.rule, rate.outputs, rate.flipped) == (SCORER, outputs, flipped)
    assert rate.low <= flipped / outputs <= rate.high
