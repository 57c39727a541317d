"""Triage step 1, infra (SPEC §5): timeouts, crashes and rate limits, and which flipped case's
verdict hinges on them; facts `arm_infra`, `infra_flip`, `all_infra`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import polars as pl

from flipgate.core.gate.collapse import PREFIX, collapsed
from flipgate.core.gate.compare import Comparison
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import ARMS, Arm, TriageClass, TriageFactCode

Kinds = tuple[tuple[str, int], ...]  # (infra kind, repetitions): `timeout 2, crash 1`
# What the infra repetitions did to an arm's verdict: had they passed it would pass, had they
# failed it would fail, or it stands whatever they did.
InfraEffect = Literal["would_pass", "would_fail", "stands"]


@dataclass(frozen=True)
class ArmInfraShare:
    """An arm's infra repetitions against `infra.max_share`."""

    code: ClassVar[TriageFactCode] = "arm_infra"
    arm: Arm
    count: int
    reps: int
    share: float
    allowed: float
    kinds: Kinds


@dataclass(frozen=True)
class InfraCount:
    """One arm of a flipped case with infra repetitions."""

    arm: Arm
    passes: int
    gradable: int
    infra: int
    kinds: Kinds
    effect: InfraEffect


@dataclass(frozen=True)
class InfraFlip:
    """A flipped case with infra repetitions: per arm, its counts and what they did."""

    code: ClassVar[TriageFactCode] = "infra_flip"
    case: str
    arms: tuple[InfraCount, ...]  # the arms with an infra repetition
    hinges: bool  # the verdict in an arm hinges on its infra repetitions


@dataclass(frozen=True)
class AllInfra:
    """A case with no gradable repetition in an arm: unpaired, left out of the count."""

    code: ClassVar[TriageFactCode] = "all_infra"
    case: str
    arm: Arm


@dataclass(frozen=True)
class InfraFindings:
    code: ClassVar[TriageClass] = "infra"
    over: tuple[Arm, ...]  # the arms above the allowed share
    hinges: int  # flipped cases whose verdict hinges on infra repetitions
    touched: int  # flipped cases with infra that did not decide them
    lost: int  # cases that lost every repetition in an arm to infra


FACTS = (ArmInfraShare, InfraFlip, AllInfra)


def infra_step(comparison: Comparison, flips: pl.DataFrame) -> TriageStep:
    result, spec = comparison.result, comparison.spec
    facts: list[ArmInfraShare | InfraFlip | AllInfra] = []
    for arm in ARMS:
        stats = result.infra[arm]
        kinds = tuple(stats.by_kind.items())
        facts.append(
            ArmInfraShare(arm, stats.count, stats.reps, stats.share, spec.infra_max_share, kinds)
        )
    with_infra = _with_infra(comparison, flips)
    facts += with_infra
    decisive = [fact.case for fact in with_infra if fact.hinges]
    touched = [fact.case for fact in with_infra if not fact.hinges]
    lost = comparison.cases.filter(pl.col("unpaired") == "infra")
    facts += (AllInfra(case, arm) for case, arm in lost.select("case", "unpaired_arm").iter_rows())
    over = tuple(arm for arm in ARMS if result.infra[arm].share > spec.infra_max_share)
    return TriageStep(
        "infra",
        InfraFindings(over, len(decisive), len(touched), lost.height),
        tuple(facts),
        (*decisive, *touched, *lost["case"].to_list()),
        bool(over or decisive or lost.height),
        explains=tuple(decisive),
    )


def _with_infra(comparison: Comparison, flips: pl.DataFrame) -> list[InfraFlip]:
    """The flipped cases with an infra repetition, in order, each arm's counts and whether the
    verdict hinges on the infra repetitions."""
    spec = comparison.spec

    def verdict(passing: pl.Expr, graded: pl.Expr) -> pl.Expr:
        return (
            pl.when(pl.col("safety"))
            .then(collapsed(spec.aggregate_safety, passing, graded))
            .otherwise(collapsed(spec.aggregate_ordinary, passing, graded))
        )

    arms, hinges, touched = [], [], []
    for arm, prefix in PREFIX.items():
        kinds = _infra_kinds(comparison, arm).rename({"kinds": f"{prefix}_kinds"})
        flips = flips.join(kinds, on="case", how="left", maintain_order="left")
        infra, passes, gradable, passed = (
            pl.col(f"{prefix}_{name}") for name in ("infra", "passes", "gradable", "passed")
        )
        infra = infra.fill_null(0)
        would_pass = ~passed & verdict(passes + infra, gradable + infra)
        would_fail = passed & ~verdict(passes, gradable + infra)
        effect = (
            pl.when(would_pass)
            .then(pl.lit("would_pass"))
            .when(would_fail)
            .then(pl.lit("would_fail"))
            .otherwise(pl.lit("stands"))
        )
        arms.append(
            pl.when(infra > 0)
            .then(
                pl.struct(
                    infra=infra,
                    passes=passes,
                    gradable=gradable,
                    kinds=pl.col(f"{prefix}_kinds"),
                    effect=effect,
                )
            )
            .alias(arm)
        )
        hinges.append((infra > 0) & (would_pass | would_fail))
        touched.append(infra > 0)
    found = flips.select(
        "case", *arms, hinges=pl.any_horizontal(hinges), touched=pl.any_horizontal(touched)
    ).filter("touched")
    return [
        InfraFlip(
            row["case"],
            tuple(
                InfraCount(
                    arm,
                    row[arm]["passes"],
                    row[arm]["gradable"],
                    row[arm]["infra"],
                    tuple((k["infra"], k["len"]) for k in row[arm]["kinds"] or ()),
                    row[arm]["effect"],
                )
                for arm in ARMS
                if row[arm] is not None
            ),
            row["hinges"],
        )
        for row in found.iter_rows(named=True)
    ]


def _infra_kinds(comparison: Comparison, arm: str) -> pl.DataFrame:
    """case, `kinds`: its infra kinds with their counts, by kind."""
    infra = comparison.reps[arm].filter(pl.col("status") == "infra")
    return (
        infra.group_by("case", pl.col("infra").fill_null("unspecified"))
        .len()
        .sort("case", "infra")
        .group_by("case", maintain_order=True)
        .agg(kinds=pl.struct("infra", "len"))
    )
