"""The gate's paths to BLOCK share alpha: the chance of a false BLOCK over all of them (SPEC §9).

Each statistical path holds its level on its own: significance (McNemar's test, or the sign-flip
test by template), an outcome limit against the baseline (`false_negative_max: baseline`, and
`mirror_approved_max: baseline` on each rule with a borderline item: the sign-flip test of
excess.py) and each budget relative to the baseline (`max_increase`, the
permutation test of excess.py). A gate with several of them BLOCKs with no change more often than
any one: up to the sum of their levels (bench/README.md measures it). So the paths at one look
are a family, and the look's boundary (looks.py) is shared between them.

The method is Holm's step-down procedure over the paths' p values (Holm, S. (1979). A simple
sequentially rejective multiple test procedure. Scandinavian Journal of Statistics 6(2), 65-70):
sorted p(1) <= ... <= p(m), path (i) blocks while p(i) <= level / (m - i + 1), and the first that
does not stops the rest. It holds the family-wise rate at the level under any dependence between
the paths, which matters here: the paths read the same cases (a change that breaks cases also
adds false negatives and latency), and no joint law of McNemar's p, a sign-flip p and a
permutation p is known to the gate. Whether the gate blocks at all is Bonferroni's (the smallest
p at level / m); Holm adds only which further paths are named. A joint resampling of all paths
(Westfall & Young 1993's min-p) would recover what positive dependence costs, but needs one
randomisation that every path's test is built on; the exact McNemar test is not.

Each path is then held to its own boundary: the largest p at which Holm, the other paths' p as
they are, would still block it. It is one of level / k, k = 1..m, and the path blocks exactly
when its p is at or below it, so each path's printed p and boundary say what it was held to, and
the significance path's interval is put at its boundary (bounds.py).

Absolute limits are not tests and stay outside the family: a safety case that failed, a limit of
zero (`zero_false_negative_rules`), `false_negative_max: N`, a budget's `max`.

`family: per_path` in gate.yaml is the explicit choice of the old rule: significance at the look's
boundary, each other path at alpha on its own; the report says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from flipgate.core.gate.budgets import BudgetCheck, held_budget
from flipgate.core.gate.excess import Excess, OutcomeExcess
from flipgate.core.gate.spec import FamilyRule

# What a path tests: the flips, the false negatives against the baseline's, the confident
# approvals of borderline items on one rule against the baseline's, a relative budget.
PathKind = Literal["significance", "false_negatives", "mirror_approved", "budget"]


def holm_blocks(ps: Sequence[float], level: float) -> tuple[bool, ...]:
    """Holm's step-down procedure at `level`: whether each p is rejected (the path blocks)."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    blocked = [False] * m
    for step, i in enumerate(order):
        if ps[i] > level / (m - step):
            break
        blocked[i] = True
    return tuple(blocked)


def holm_boundaries(ps: Sequence[float], level: float) -> tuple[float, ...]:
    """Each path's boundary: the largest p at which Holm at `level` would block it, the other
    paths' p as they are. Holm blocks a path on [0, B] for one B among level / k (k = 1..m): a
    path whose p moves past another's is held to the next step's, larger, boundary only if that
    other one blocks."""
    m = len(ps)
    steps = [level / k for k in range(m, 0, -1)]  # smallest first
    bounds = []
    for j in range(m):
        held = steps[0]  # at level / m a path is first, or tied first, and always blocks
        for step in steps[1:]:
            if holm_blocks([*ps[:j], step, *ps[j + 1 :]], level)[j]:
                held = step
        bounds.append(held)
    return tuple(bounds)


@dataclass(frozen=True)
class HeldPath:
    """One statistical path to BLOCK, its p, and the boundary it was held to."""

    kind: PathKind
    p: float
    boundary: float
    metric: str | None = None  # a budget's metric, or the rule of confident approvals

    @property
    def blocks(self) -> bool:
        return self.p <= self.boundary


@dataclass(frozen=True)
class Family:
    """The statistical paths at this look and how they shared the look's boundary."""

    rule: FamilyRule
    level: float  # what the paths share: the look's boundary (looks.py)
    alpha: float  # the gate's alpha, each path's own level under `per_path` (but significance)
    # significance first, then the false negatives, the confident approvals by rule, the budgets
    paths: tuple[HeldPath, ...]

    @property
    def significance(self) -> HeldPath:
        return self.paths[0]


@dataclass(frozen=True)
class Shared:
    """The family and each path's test held to its boundary, as the rules read them."""

    family: Family
    false_negatives: Excess | None
    budgets: tuple[BudgetCheck, ...]
    mirror_approved: dict[str, Excess]  # by rule


def share_alpha(
    rule: FamilyRule,
    alpha: float,
    level: float,
    p: float,
    false_negatives: OutcomeExcess | None,
    budgets: tuple[BudgetCheck, ...],
    *,
    labelled: bool = True,
    mirror_approved: Mapping[str, OutcomeExcess] | None = None,
) -> Shared:
    """Hold each path to its boundary: the flips' `p`, the false negatives against the baseline's
    (None: no such limit), the confident approvals of borderline items on each rule against the
    baseline's (`mirror_approved`, rule -> its test) and every relative budget (`max_increase`),
    sharing the look's boundary `level` by Holm, or each on its own (`per_path`: the flips at
    `level`, the others at `alpha`). On runs with no labelled decision (`labelled` false) there is
    no false negative to count: the limit is no path, and its empty test is held to alpha as it
    stands."""
    approvals = dict(mirror_approved or {})
    if false_negatives is not None and not labelled:
        shared = share_alpha(rule, alpha, level, p, None, budgets, mirror_approved=approvals)
        return replace(shared, false_negatives=false_negatives.held(alpha))
    relative = [check for check in budgets if check.noise is not None]
    kinds: list[tuple[PathKind, float, str | None]] = [("significance", p, None)]
    if false_negatives is not None:
        kinds.append(("false_negatives", false_negatives.p, None))
    kinds += [("mirror_approved", test.p, name) for name, test in approvals.items()]
    for check in relative:
        assert check.noise is not None and check.budget.max_increase is not None
        kinds.append(("budget", check.noise.p(check.budget.max_increase), check.budget.metric))
    ps = [kind[1] for kind in kinds]
    own = (level, *[alpha] * (len(ps) - 1))  # per_path: the flips at the look's, others at alpha
    bounds = holm_boundaries(ps, level) if rule == "holm" else own
    paths = tuple(
        HeldPath(kind, tested, bound, metric)
        for (kind, tested, metric), bound in zip(kinds, bounds, strict=True)
    )
    held = iter(path for path in paths if path.kind == "budget")
    rebudgeted = tuple(
        held_budget(check, next(held).boundary) if check.noise is not None else check
        for check in budgets
    )
    at = {(path.kind, path.metric): path.boundary for path in paths}
    return Shared(
        Family(rule, level, alpha, paths),
        None if false_negatives is None else false_negatives.held(at["false_negatives", None]),
        rebudgeted,
        {name: test.held(at["mirror_approved", name]) for name, test in approvals.items()},
    )
