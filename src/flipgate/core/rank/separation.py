"""Whether candidates can be told apart: from the incumbent (improvement, Holm-adjusted across the
candidates that could win) and from each other (the exact paired test both ways, adjacent ranks).

Each test is the gate's own: its `test` (exact or mid-p), by template when the gate counts
templates. Which of two candidates leads was picked by the data, so a lead is tested both ways (a
one-sided test in the direction the data chose fires twice as often as its alpha, 5.4% against
2.7%, issue 27). Candidates whose adjacent ranks cannot be told apart at alpha form one tie group
(HELM's leaderboard: 89 of 89 adjacent ranks not separable at 5%, stanford-crfm/helm #4336).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from flipgate.core.gate.compare import GateResult
from flipgate.core.gate.mcnemar import FlipTest, flip_p
from flipgate.core.gate.spec import GateSpec
from flipgate.core.gate.stats import sign_flip_p


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m - i), never below
    the one before it, at most 1. It holds the chance of any false claim at alpha."""
    adjusted = [0.0] * len(ps)
    running = 0.0
    for i, at in enumerate(sorted(range(len(ps)), key=ps.__getitem__)):
        running = max(running, min(1.0, (len(ps) - i) * ps[at]))
        adjusted[at] = running
    return adjusted


def improvement_p(gate: GateResult, test: FlipTest) -> float:
    """The one-sided p that the candidate fixes at least what it fixed, on balance, if nothing
    changed: the gate's test on its flips the other way round, by template where the gate
    counted templates."""
    if gate.p_by != "template":
        return flip_p(gate.c, gate.b, test)
    clusters = gate.clusters
    nets = [t.fixed - t.broke for t in clusters.templates]
    return sign_flip_p(nets + [-1] * clusters.loose[0] + [1] * clusters.loose[1], test)


@dataclass(frozen=True)
class Lead:
    """One candidate against the next in rank order, case by case: the exact paired test both
    ways. `winner` is the one ranked above (the winner itself only for the first pair)."""

    winner: str
    runner_up: str
    paired: int  # cases graded in both and not flaky-listed
    winner_only: int  # cases the winner passes and the runner-up fails
    runner_up_only: int
    p_winner_better: float  # one-sided p of a lead at least the winner's, with no difference
    p_runner_up_better: float  # the same the other way
    alpha: float

    @property
    def p_two_sided(self) -> float:
        """Both ways: the data picked which one leads, so either direction counts."""
        return min(1.0, 2 * min(self.p_winner_better, self.p_runner_up_better))

    @property
    def within_noise(self) -> bool:
        return self.p_two_sided > self.alpha


def lead(above: str, below: str, verdicts: dict[str, pl.DataFrame], spec: GateSpec) -> Lead:
    """`above` against `below` on the cases both were graded on, under the release rule."""
    both = (
        verdicts[above]
        .join(verdicts[below].drop("template"), on="case", suffix="_other")
        .drop_nulls(["passed", "passed_other"])
    )
    w, r = pl.col("passed"), pl.col("passed_other")
    above_only, below_only = both.select(
        (w & ~r).sum().alias("above_only"), (r & ~w).sum().alias("below_only")
    ).row(0)
    if spec.clusters == "template" and both["template"].is_not_null().any():
        # each template's net lead once; a case without a template is its own cluster
        nets = (
            both.with_columns(pl.coalesce("template", "case").alias("cluster"))
            .group_by("cluster")
            .agg(((w & ~r).cast(pl.Int64) - (r & ~w).cast(pl.Int64)).sum().alias("net"))["net"]
            .to_list()
        )
        p_above = sign_flip_p(nets, spec.test)
        p_below = sign_flip_p([-d for d in nets], spec.test)
    else:
        p_above = flip_p(above_only, below_only, spec.test)
        p_below = flip_p(below_only, above_only, spec.test)
    return Lead(above, below, both.height, above_only, below_only, p_above, p_below, spec.alpha)


def tie_groups(leads: Sequence[Lead], tied_on_key: Sequence[bool]) -> list[int]:
    """The group of each of n candidates in rank order, from the n - 1 adjacent leads: the next
    candidate starts a new group only when it cannot tie (an equal key is a tie) and the lead
    over it is beyond noise. Groups are numbered from 1; a chain of inseparable neighbours is one
    group, as a leaderboard's adjacent ranks are read."""
    groups = [1]
    for pair, tied in zip(leads, tied_on_key, strict=True):
        groups.append(groups[-1] + (0 if tied or pair.within_noise else 1))
    return groups
