"""Triage evidence (SPEC §5): what the runs show about each of the five classes, in walk order.

    1. infra           timeouts, crashes, rate limits: repetitions that decided a case's verdict
    2. flaky           listed cases, repetitions that split within an arm, flips between
                       identical baseline runs
    3. grader          a moved judge; the same output graded differently in the two arms
    4. stale_baseline  key drift, a case added, removed or edited, another eval-set revision
    5. regression      what is left: the flips no earlier class names, and where they concentrate

Each class's evidence is its own module (`infra.py`, `flaky.py`, `grader.py`, `stale.py`,
`regression.py`); `evidence` computes every step from a `Comparison` alone (plus optional repeats
of the baseline). A step's facts and its summary are payloads with a code
(`vocab.TriageFactCode`; a summary's code is its class), worded in `present/triage.py`.

Rerunning until green is never offered: a case that passes half the time goes green at least once
in three tries 87.5% of the time, which turns a gate on reliability into a gate on luck.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import polars as pl

from flipgate.core.gate.compare import Comparison
from flipgate.core.runs.model import Run
from flipgate.core.triage import flaky, grader, infra, regression, stale
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import FLIPS, TriageClass

# Every fact's payload class, in the walk's order (a test holds them to `vocab.TriageFactCode`),
# and each step's findings, whose code is its class.
TRIAGE_FACTS = (*infra.FACTS, *flaky.FACTS, *grader.FACTS, *stale.FACTS, *regression.FACTS)
STEP_FINDINGS = (
    infra.InfraFindings,
    flaky.FlakyFindings,
    grader.GraderFindings,
    stale.StaleFindings,
    regression.RegressionFindings,
)


def evidence(comparison: Comparison, baseline_repeats: Sequence[Run] = ()) -> list[TriageStep]:
    """The five steps in walk order. A repeat whose key differs from the baseline is refused."""
    flaky.check_repeats(comparison.baseline, baseline_repeats)
    flips = comparison.cases.filter(pl.col("cell").is_in(FLIPS))
    steps = [
        infra.infra_step(comparison, flips),
        flaky.flaky_step(comparison, flips, baseline_repeats),
        grader.grader_step(comparison, flips),
        stale.stale_step(comparison),
    ]
    steps.append(regression.regression_step(comparison, flips, steps))
    return steps


def named_cases(steps: Iterable[TriageStep]) -> dict[str, tuple[TriageClass, ...]]:
    """Every case the steps name, once, in walk order (the cases a reviewer looked at), with the
    classes whose step named it."""
    named: dict[str, tuple[TriageClass, ...]] = {}
    for step in steps:
        for case in step.cases:
            named[case] = (*named.get(case, ()), step.klass)
    return named


def placed(comparison: Comparison, steps: Sequence[TriageStep]) -> list[tuple[str, TriageStep]]:
    """Each broken case (pass -> fail) with the first step, in walk order, that explains it;
    the regression step (last) holds the ones no earlier step explains."""
    broken = [case for case, direction in comparison.result.flipped if direction == FLIPS[0]]
    first: dict[str, TriageStep] = {}  # a look-up per case: at a million cases, 50,000 of them
    for step in steps:
        first.update((case, step) for case in step.explains if case not in first)
    return [(case, first.get(case, steps[-1])) for case in broken]


__all__ = ["TriageStep", "evidence", "named_cases", "placed"]
