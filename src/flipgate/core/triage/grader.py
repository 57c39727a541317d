"""Triage step 3, grader (SPEC §5): a moved judge, and flipped cases whose stored output is the same
in both arms under another grade (the gate's split of b and c by who flipped them,
`core/gate/sources.py`), and the judge measured alone on stored outputs judged again
(`rejudged/`, `core/gate/judge.py`); facts `judge_moved`, `judge_held`, `flip_split`,
`grader_noise`, `same_output`, `no_flip_to_compare`, `no_output_graded_twice`, `judge_alone`,
`no_judge_repeats`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import polars as pl

from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.judge import LEVEL
from flipgate.core.gate.sources import SourceCounts, normalise
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import Arm, TriageClass, TriageFactCode


@dataclass(frozen=True)
class JudgeMoved:
    code: ClassVar[TriageFactCode] = "judge_moved"
    baseline: str | None  # the key's `judge`; None: not in that key
    candidate: str | None
    declared: bool  # the change under test declares it


@dataclass(frozen=True)
class JudgeHeld:
    code: ClassVar[TriageFactCode] = "judge_held"
    judge: str | None  # None: in neither key


@dataclass(frozen=True)
class FlipSplit:
    """The counted flips by who flipped them: the same output graded apart (the grader), another
    output (the model), no outputs to compare (unknown)."""

    code: ClassVar[TriageFactCode] = "flip_split"
    broke: SourceCounts
    fixed: SourceCounts
    volatile: int  # the normaliser's patterns (gate.yaml `outputs.volatile`)


@dataclass(frozen=True)
class GraderSelfNoise:
    """One arm's grader against itself: repetitions of a case with the same output, graded apart."""

    code: ClassVar[TriageFactCode] = "grader_noise"
    arm: Arm
    same_output_pairs: int
    graded_apart: int
    cases: tuple[str, ...]


@dataclass(frozen=True)
class SameOutput:
    """A flipped case with a repetition whose output is the same in both arms, graded apart:
    the pair shown, the same repetition first, then an exact match."""

    code: ClassVar[TriageFactCode] = "same_output"
    case: str
    baseline_rep: int
    candidate_rep: int
    exact: bool  # identical, not only after whitespace normalisation
    baseline_passed: bool
    candidate_passed: bool
    pairs: int  # such pairs of repetitions in the case


@dataclass(frozen=True)
class NoFlipToCompare:
    code: ClassVar[TriageFactCode] = "no_flip_to_compare"


@dataclass(frozen=True)
class NoOutputGradedTwice:
    code: ClassVar[TriageFactCode] = "no_output_graded_twice"
    compared: int  # flipped cases compared


@dataclass(frozen=True)
class JudgeAlone:
    """One rule's judge flip rate in one arm: of the stored outputs judged at least twice, those
    given more than one verdict, with the exact interval at `level`."""

    code: ClassVar[TriageFactCode] = "judge_alone"
    arm: Arm
    rule: str
    judgings: int
    outputs: int
    flipped: int
    low: float
    high: float
    level: float


@dataclass(frozen=True)
class NoJudgeRepeats:
    """No stored outputs were judged again: the judge's own noise is not measured."""

    code: ClassVar[TriageFactCode] = "no_judge_repeats"


@dataclass(frozen=True)
class GraderFindings:
    code: ClassVar[TriageClass] = "grader"
    judge_moved: bool
    same_output: int  # flipped cases that kept their output under another grade
    flipped: int = 0  # the counted flips, for "4 of 15"


Fact = (
    JudgeMoved
    | JudgeHeld
    | FlipSplit
    | GraderSelfNoise
    | SameOutput
    | NoFlipToCompare
    | NoOutputGradedTwice
    | JudgeAlone
    | NoJudgeRepeats
)
FACTS = (
    JudgeMoved,
    JudgeHeld,
    FlipSplit,
    GraderSelfNoise,
    SameOutput,
    NoFlipToCompare,
    NoOutputGradedTwice,
    JudgeAlone,
    NoJudgeRepeats,
)


def _graded_outputs(comparison: Comparison, arm: str, cases: list[str]) -> pl.DataFrame:
    run = comparison.run(arm)
    rows = run.reps.filter(pl.col("case").is_in(cases) & (pl.col("status") == "ok"))
    outputs = (
        run.texts.beside(rows.select("case", "rep", "line"), ["output"])
        .filter(pl.col("output").is_not_null())
        .select("case", "rep", "output")
    )
    graded = comparison.reps[arm].select("case", "rep", "passed")
    joined = outputs.join(graded, on=["case", "rep"])
    return joined.with_columns(norm=normalise(joined["output"], comparison.spec.volatile))


def grader_step(comparison: Comparison, flips: pl.DataFrame) -> TriageStep:
    base_key, cand_key = comparison.baseline.key, comparison.candidate.key
    judges = (base_key.get("judge"), cand_key.get("judge"))
    judge_moved = judges[0] != judges[1]
    facts: list[Fact] = [
        JudgeMoved(*judges, "judge" in comparison.result.declared_change)
        if judge_moved
        else JudgeHeld(judges[0])
    ]

    cases = flips["case"].to_list()
    sources = comparison.result.sources
    # The cases the gate's split gives the grader: each shown with a pair of its repetitions.
    graders = list(sources.cases_from("grader")) if sources is not None else []
    if sources is not None and comparison.result.flipped:
        counts = sources.counts
        facts.append(
            FlipSplit(counts["pass_to_fail"], counts["fail_to_pass"], len(sources.volatile))
        )
        facts += (
            GraderSelfNoise(arm, noise.same_output_pairs, noise.graded_apart, noise.cases)
            for arm, noise in sources.noise.items()
            if noise.graded_apart
        )
    pairs = (
        _graded_outputs(comparison, "baseline", graders)
        .join(_graded_outputs(comparison, "candidate", graders), on="case", suffix="_cand")
        .filter(
            (pl.col("passed") != pl.col("passed_cand")) & (pl.col("norm") == pl.col("norm_cand"))
        )
        .with_columns(
            same_rep=pl.col("rep") == pl.col("rep_cand"),
            exact=pl.col("output") == pl.col("output_cand"),
        )
        .sort(
            "case",
            "same_rep",
            "exact",
            "rep",
            "rep_cand",
            descending=[False, True, True, False, False],
        )
    )
    same_output = (
        pairs.with_columns(n=pl.len().over("case"))
        .unique("case", keep="first", maintain_order=True)
        .select("case", "rep", "rep_cand", "exact", "passed", "passed_cand", "n")
    )
    facts += (SameOutput(*row) for row in same_output.iter_rows())
    same = same_output["case"].to_list()
    if not cases:
        facts.append(NoFlipToCompare())
    elif not same:
        facts.append(NoOutputGradedTwice(len(cases)))
    alone = [
        JudgeAlone(
            r.arm, rate.rule, r.judgings, rate.outputs, rate.flipped, rate.low, rate.high, LEVEL
        )
        for r in comparison.judge_repeats
        for rate in r.rules
    ]
    facts += alone or [NoJudgeRepeats()]
    return TriageStep(
        "grader",
        GraderFindings(judge_moved, len(same), len(comparison.result.flipped)),
        tuple(facts),
        tuple(same),
        bool(judge_moved or same),
        tuple(same),
    )
