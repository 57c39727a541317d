"""The paths to BLOCK share alpha (family.py): Holm's procedure against the closed testing
principle enumerated over every subset (Marcus, Peritz & Gabriel 1976, used only here), each
path's boundary against a search over its own p, and the family-wise rate computed exactly."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate.family import holm_blocks, holm_boundaries, share_alpha


def closed_test(ps: list[float], level: float) -> tuple[bool, ...]:
    """Path j blocks when Bonferroni's test rejects every subset of the paths that holds j."""
    m = len(ps)
    subsets = [s for size in range(1, m + 1) for s in itertools.combinations(range(m), size)]
    return tuple(
        all(min(ps[i] for i in s) <= level / len(s) for s in subsets if j in s) for j in range(m)
    )


# p values on a grid that hits the steps level / k exactly, and ties
grid = st.sampled_from([0.001, 0.004, 0.00625, 0.008, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.2, 1.0])
p_vectors = st.lists(st.one_of(grid, st.floats(0, 1)), min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(p_vectors, st.sampled_from([0.05, 0.025, 0.0125]))
def test_holm_is_the_closed_test_of_bonferroni_s(ps: list[float], level: float) -> None:
    assert holm_blocks(ps, level) == closed_test(ps, level)


@settings(max_examples=300, deadline=None)
@given(p_vectors, st.sampled_from([0.05, 0.025]))
def test_a_path_blocks_exactly_when_its_p_is_at_or_below_its_boundary(
    ps: list[float], level: float
) -> None:
    """The boundary is the largest p at which the path would block, the others as they are:
    checked by moving the path's p over a fine grid and through the steps themselves."""
    bounds = holm_boundaries(ps, level)
    blocked = holm_blocks(ps, level)
    m = len(ps)
    for j, bound in enumerate(bounds):
        assert blocked[j] == (ps[j] <= bound)
        assert any(math.isclose(bound, level / k) for k in range(1, m + 1))
        for q in [*np.linspace(0, level, 41), *(level / k for k in range(1, m + 1))]:
            moved = [*ps[:j], float(q), *ps[j + 1 :]]
            assert closed_test(moved, level)[j] == (q <= bound), (ps, j, q, bound)


def test_one_path_keeps_the_look_s_boundary() -> None:
    """A gate with only the flips to test is held to the look's boundary as before: the seed's
    b = 10, c = 2 (p = 79/4096) still blocks at the first look's 0.025."""
    shared = share_alpha("holm", 0.05, 0.025, 79 / 4096, None, ())
    assert shared.family.significance.boundary == 0.025
    assert shared.family.significance.blocks and len(shared.family.paths) == 1


def test_two_paths_share_the_look_s_boundary() -> None:
    """Seed 001's 0.019 beside a second path with p 0.4: the flips are held to 0.0125 and do not
    block; beside one at 0.001, which blocks first, they are held to 0.025 and do."""
    from flipgate.core.gate.excess import ExcessTails, OutcomeExcess

    def limit(differences: list[int]) -> OutcomeExcess:
        tails = ExcessTails.of(differences)
        return OutcomeExcess(0, sum(differences), len(differences), tails)

    quiet = limit([1, -1, 1])  # p 1/2
    loud = limit([1] * 10)  # p 1/1024
    held = share_alpha("holm", 0.05, 0.025, 79 / 4096, quiet, ())
    assert held.family.significance.boundary == 0.0125 and not held.family.significance.blocks
    assert held.false_negatives is not None and held.false_negatives.alpha == 0.0125
    held = share_alpha("holm", 0.05, 0.025, 79 / 4096, loud, ())
    assert held.family.significance.boundary == 0.025 and held.family.significance.blocks
    assert held.false_negatives is not None and held.false_negatives.beyond_noise
    # the old rule, chosen: the flips at the look's boundary, the limit at alpha on its own
    own = share_alpha("per_path", 0.05, 0.025, 79 / 4096, quiet, ())
    assert [path.boundary for path in own.family.paths] == [0.025, 0.05]


def test_each_rule_s_confident_approvals_is_a_path_of_its_own() -> None:
    """`mirror_approved_max: baseline`: a path per rule, after the false negatives, each held to
    its Holm boundary among all the paths (the closed test's), and its test held there."""
    from flipgate.core.gate.excess import ExcessTails, OutcomeExcess

    def limit(differences: list[int]) -> OutcomeExcess:
        tails = ExcessTails.of(differences)
        return OutcomeExcess(0, sum(differences), len(differences), tails)

    approvals = {"p": limit([1] * 8), "q": limit([1, -1, 1])}  # p 1/256 and 1/2
    fn = limit([1] * 6)  # p 1/64
    held = share_alpha("holm", 0.05, 0.025, 0.3, fn, (), mirror_approved=approvals)
    paths = held.family.paths
    assert [(path.kind, path.metric) for path in paths] == [
        ("significance", None),
        ("false_negatives", None),
        ("mirror_approved", "p"),
        ("mirror_approved", "q"),
    ]
    ps = [path.p for path in paths]
    assert ps == [0.3, 1 / 64, 1 / 256, 0.5]
    assert [path.blocks for path in paths] == list(closed_test(ps, 0.025))
    assert held.mirror_approved["p"].alpha == paths[2].boundary == 0.025 / 4
    assert held.mirror_approved["p"].beyond_noise and not held.mirror_approved["q"].beyond_noise
    assert held.false_negatives is not None and held.false_negatives.alpha == 0.025 / 3
    own = share_alpha("per_path", 0.05, 0.025, 0.3, fn, (), mirror_approved=approvals)
    assert [path.boundary for path in own.family.paths] == [0.025, 0.05, 0.05, 0.05]


@pytest.mark.parametrize("m", [2, 3, 4])
def test_the_family_wise_rate_is_at_most_the_level_computed_exactly(m: int) -> None:
    """Independent uniform p values (each test exactly at its level): Holm blocks anything with
    chance 1 - (1 - level / m)^m, at most the level; each path on its own at the level gives
    1 - (1 - level)^m, which is not."""
    level = 0.05
    assert 1 - (1 - level / m) ** m <= level < 1 - (1 - level) ** m


def test_the_procedure_blocks_as_often_as_the_formula_says() -> None:
    """Holm's procedure over a lattice of two p values standing in for the uniform law."""
    level = 0.05
    points = (np.arange(400) + 0.5) / 400
    hits = sum(any(holm_blocks(list(ps), level)) for ps in itertools.product(points, repeat=2))
    assert hits / 400**2 == pytest.approx(1 - (1 - level / 2) ** 2, abs=0.002)
