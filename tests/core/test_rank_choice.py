"""What a signed choice keeps of the ranking (core/rank/choice.py): the digest of its exact part,
and the comparison with the ranking made again, floats within a stated tolerance."""

from __future__ import annotations

import copy
from typing import Any

from flipgate.core.rank.choice import FLOAT_TOLERANCE, differences, ranking_digest


def _block() -> dict[str, Any]:
    block: dict[str, Any] = {
        "inputs": {"gate": "gate.yaml", "change": []},
        "alpha": 0.05,
        "candidates": [
            {"name": "A", "release_key": 2, "complete": True, "evidence": {"improvement_p": 0.5}},
            {"name": "B", "release_key": 1, "complete": True, "evidence": {"improvement_p": 1.0}},
        ],
        "top_group": ["A", "B"],
    }
    return {"digest": ranking_digest(block), **block}


def test_the_digest_covers_the_exact_figures_and_not_the_p_values() -> None:
    block = _block()
    moved = copy.deepcopy(block)
    moved["candidates"][0]["evidence"]["improvement_p"] = 0.25
    assert ranking_digest(moved) == block["digest"]
    for change in (("release_key", 3), ("complete", False), ("name", "C")):
        other = copy.deepcopy(block)
        other["candidates"][1][change[0]] = change[1]
        assert ranking_digest(other) != block["digest"], change


def test_p_values_agree_within_the_tolerance_and_no_further() -> None:
    block = _block()
    near = copy.deepcopy(block)
    near["candidates"][0]["evidence"]["improvement_p"] = 0.5 * (1 + FLOAT_TOLERANCE / 10)
    assert differences(block, near) == []
    far = copy.deepcopy(block)
    far["candidates"][0]["evidence"]["improvement_p"] = 0.5 * (1 + FLOAT_TOLERANCE * 10)
    assert differences(block, far) == ["ranking.candidates[0].evidence.improvement_p"]


def test_differences_name_every_field_that_moved() -> None:
    block = _block()
    other = copy.deepcopy(block)
    other["top_group"] = ["A"]
    other["candidates"][1]["complete"] = 1  # a count is not a yes/no: types are compared too
    other["extra"] = None  # a field the signed ranking lacks, even a null one
    assert differences(block, other) == [
        "ranking.candidates[1].complete",
        "ranking.top_group",
        "ranking.extra",
    ]
