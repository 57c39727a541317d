"""The escalation's promise about the next look: what the flips will be held to there, where the
paths to BLOCK share it by Holm, checked against family.py's own procedure and on a sample whose
gate has three paths (agent-suite: the flips and two relative budgets)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate.compare import GateResult
from flipgate.core.gate.escalation import Escalation, next_look_share
from flipgate.core.gate.family import holm_blocks, share_alpha
from flipgate.present.next_step import next_step
from flipgate.present.report import boundary_words
from flipgate.session import GateRequest, gate, read
from tests.conftest import SAMPLES

AGENT = SAMPLES / "agent-suite"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=0, max_size=4),
    st.floats(0, 1),
    st.sampled_from([0.0125, 0.00625]),
)
def test_the_flips_block_at_their_share_whatever_the_other_paths_say(
    others: list[float], flips: float, level: float
) -> None:
    """The share said before the look is a promise Holm keeps whatever the other paths' p turn out
    to be: the flips at or below it block; above it they block only where another path blocks
    too (and so the gate blocks anyway)."""
    this_look = share_alpha("holm", 0.05, 0.025, 0.5, None, ()).family
    family = replace(this_look, paths=this_look.paths * (len(others) + 1))
    share, paths = next_look_share(family, level)
    assert paths == len(others) + 1
    blocked = holm_blocks([flips, *others], level)
    if flips <= share:
        assert blocked[0]
    elif blocked[0]:
        assert any(blocked[1:])
    # and it is the largest such promise: at a p just above it, with no other path blocking,
    # the flips do not block
    above = holm_blocks([share * 1.000001, *[1.0] * len(others)], level)
    assert not above[0]


def test_one_path_or_per_path_holds_the_flips_to_the_whole_boundary() -> None:
    one = share_alpha("holm", 0.05, 0.025, 0.5, None, ()).family
    assert next_look_share(one, 0.0125) == (0.0125, 1)
    assert next_look_share(replace(one, rule="per_path", paths=one.paths * 3), 0.0125) == (
        0.0125,
        1,
    )
    step = Escalation("rerun_flipped", cases=("a",), runs=5, boundary=0.0125, level=0.0125, paths=1)
    assert next_step(step).endswith("then apply the rule again (that look blocks at p <= 0.0125)")


@pytest.fixture(scope="module")
def first() -> GateResult:
    return gate(read(GateRequest.of([AGENT]), lean=True)).result


def test_the_banner_names_the_flips_share_of_the_look(first: GateResult) -> None:
    """The banner's boundary is what the flips were held to: under Holm over three paths, a third
    of the look's 0.025, and it says so; where another path blocks first, a half."""
    assert first.family is not None and len(first.family.paths) == 3
    assert boundary_words(first) == ("look 1 by Holm: flips p ≤", "0.025/3 = 0.00833")
    assert boundary_words(replace(first, boundary=0.0125))[1] == "0.025/2 = 0.0125"
    one = replace(first, family=replace(first.family, paths=first.family.paths[:1]))
    assert boundary_words(one) == ("look 1 blocks at p ≤", "0.00833")


@pytest.fixture(scope="module")
def first_and_rerun(first: GateResult) -> tuple[Escalation, float, int]:
    """agent-suite gated, then with its reruns applied: the first look's escalation, and what the
    second look held the flips to and over how many paths."""
    reruns = AGENT / "reruns"
    both = GateRequest.of(
        [AGENT], rerun_baseline=reruns / "baseline", rerun_candidate=reruns / "candidate"
    )
    second = gate(read(both, lean=True)).result
    assert first.escalation is not None and second.family is not None
    assert second.previous is not None and second.look == 2
    assert not any(path.blocks for path in second.family.paths)
    return first.escalation, second.family.significance.boundary, len(second.family.paths)


def test_the_next_look_holds_the_flips_to_the_share_the_escalation_said(
    first_and_rerun: tuple[Escalation, float, int],
) -> None:
    """With three paths the second look's 0.0125 is the flips' only where the others block: the
    escalation says 0.0125 / 3, and the rerun's look held them to exactly that."""
    escalation, held, paths = first_and_rerun
    assert (escalation.level, escalation.paths) == (0.0125, 3) and paths == 3
    assert escalation.boundary == pytest.approx(held, rel=1e-12)
    assert escalation.boundary == pytest.approx(0.0125 / 3, rel=1e-12)
    assert next_step(escalation).endswith(
        "then apply the rule again (that look blocks at p <= 0.0125 shared by Holm over 3 "
        "paths: the flips at p <= 0.00417 unless another path blocks)"
    )
