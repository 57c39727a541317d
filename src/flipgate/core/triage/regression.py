"""Triage step 5, regression (SPEC §5): the flips no earlier step explains, and where the broken
cases concentrate (a rule, a template), and who flipped them (the gate's split by stored output,
`core/gate/sources.py`); facts `flipped_cases`, `explained_earlier`, `cases_passing`,
`outcome_change`, `rule_wrong`, `template_broken`, `templates_cluster`, `who_flipped`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import polars as pl

from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import Comparison
from flipgate.core.triage.step import TriageStep
from flipgate.core.vocab import (
    ARMS,
    FLIP_SOURCES,
    OUTCOMES,
    Outcome,
    TriageClass,
    TriageFactCode,
)

NO_TEMPLATE = "(no template)"  # sorts the cases without a template as a group of their own
FAILED_CHECK = "failed_check"  # beside the outcomes: a pass/fail check that failed


@dataclass(frozen=True)
class FlippedCases:
    code: ClassVar[TriageFactCode] = "flipped_cases"
    flips: int  # listed ones included
    b: int  # as counted
    c: int


@dataclass(frozen=True)
class ExplainedEarlier:
    code: ClassVar[TriageFactCode] = "explained_earlier"
    by_class: tuple[tuple[TriageClass, int], ...]  # each earlier step and the flips it explains
    remain: int
    broke: int  # of those that remain
    fixed: int


@dataclass(frozen=True)
class CasesPassing:
    code: ClassVar[TriageFactCode] = "cases_passing"
    passing: tuple[int, int]  # cases passing in the baseline, in the candidate


@dataclass(frozen=True)
class OutcomeChange:
    code: ClassVar[TriageFactCode] = "outcome_change"
    outcome: Outcome
    baseline: int
    candidate: int


@dataclass(frozen=True)
class RuleWrong:
    """A rule's wrong candidate calls on the broken cases, most first."""

    code: ClassVar[TriageFactCode] = "rule_wrong"
    rule: str
    wrong: int
    cases: int
    kinds: tuple[tuple[str, int], ...]  # (outcome or `failed_check`, calls), most first


@dataclass(frozen=True)
class TemplateBroken:
    code: ClassVar[TriageFactCode] = "template_broken"
    template: str | None  # None: the broken cases without a template
    cases: tuple[str, ...]


@dataclass(frozen=True)
class TemplatesCluster:
    """The broken cases come from fewer templates than cases: cloned cases flip together."""

    code: ClassVar[TriageFactCode] = "templates_cluster"
    broken: int
    templates: int


@dataclass(frozen=True)
class WhoFlipped:
    """The broken cases no earlier step explains, by who flipped them: another output (the
    model), the same output (the grader), no outputs to compare (unknown)."""

    code: ClassVar[TriageFactCode] = "who_flipped"
    model: tuple[str, ...]
    grader: tuple[str, ...]
    unknown: tuple[str, ...]


@dataclass(frozen=True)
class RegressionFindings:
    code: ClassVar[TriageClass] = "regression"
    broken: int  # broken cases no earlier step explains
    flips: int
    rule: str | None  # the rule with most wrong calls on them
    template: str | None  # the template most of them come from, when it holds more than one


Fact = (
    FlippedCases
    | ExplainedEarlier
    | CasesPassing
    | OutcomeChange
    | RuleWrong
    | TemplateBroken
    | TemplatesCluster
    | WhoFlipped
)
FACTS = (
    FlippedCases,
    ExplainedEarlier,
    CasesPassing,
    OutcomeChange,
    RuleWrong,
    TemplateBroken,
    TemplatesCluster,
    WhoFlipped,
)


def regression_step(
    comparison: Comparison, flips: pl.DataFrame, earlier: Sequence[TriageStep]
) -> TriageStep:
    result = comparison.result
    explained = {case for step in earlier for case in step.explains}
    remaining = flips.filter(~pl.col("case").is_in(sorted(explained)))
    broken = remaining.filter(pl.col("cell") == "pass_to_fail")
    fixed = remaining.filter(pl.col("cell") == "fail_to_pass")
    by_class = tuple((step.klass, len(step.explains)) for step in earlier)
    passing = [
        int(comparison.cases[f"{prefix}_passed"].fill_null(False).sum())
        for prefix in PREFIX.values()
    ]
    facts: list[Fact] = [
        FlippedCases(flips.height, result.b, result.c),
        ExplainedEarlier(by_class, remaining.height, broken.height, fixed.height),
        CasesPassing((passing[0], passing[1])),
    ]
    counts = [result.outcomes[arm].counts for arm in ARMS]
    if any(result.outcomes[arm].decisions for arm in ARMS):
        facts += (OutcomeChange(o, counts[0][o], counts[1][o]) for o in OUTCOMES)

    by_rule = _wrong_by_rule(comparison, broken["case"].to_list())
    facts += by_rule
    templates = (
        broken.group_by(pl.col("template").fill_null(NO_TEMPLATE))
        .agg(pl.len().alias("n"), "case")  # in the paired table's natural order
        .sort("n", "template", descending=[True, False])
    )
    facts += (
        TemplateBroken(None if template == NO_TEMPLATE else template, tuple(cases))
        for template, _, cases in templates.iter_rows()
    )
    if templates.height and templates.height < broken.height:
        facts.append(TemplatesCluster(broken.height, templates.height))
    sources = result.sources
    if sources is not None and broken.height:
        read = broken.select("case").join(
            sources.cases.select("case", "source"), on="case", how="left", maintain_order="left"
        )
        by_source = {
            source: tuple(read.filter(pl.col("source") == source)["case"])
            for source in FLIP_SOURCES
        }
        facts.append(WhoFlipped(by_source["model"], by_source["grader"], by_source["unknown"]))

    top = templates.row(0) if templates.height else (NO_TEMPLATE, 0, [])
    cluster = top[0] if top[0] != NO_TEMPLATE and top[1] > 1 else None  # one a template: none
    order = pl.col("cell") == "fail_to_pass"  # broken first, then fixed
    return TriageStep(
        "regression",
        RegressionFindings(
            broken.height, flips.height, by_rule[0].rule if by_rule else None, cluster
        ),
        tuple(facts),
        tuple(remaining.sort(order, maintain_order=True)["case"].to_list()),
        bool(broken.height),
        tuple(broken["case"].to_list()),
    )


def _wrong_by_rule(comparison: Comparison, cases: list[str]) -> list[RuleWrong]:
    """The candidate's wrong calls on `cases` by rule, most first."""
    wrong_decisions = (
        comparison.decisions["candidate"]
        .filter(pl.col("case").is_in(cases) & (pl.col("outcome") != "agreement"))
        .select("case", "rule", pl.col("outcome").cast(pl.String))
    )
    gradable = comparison.candidate.reps.filter(pl.col("status") == "ok").select("case", "rep")
    failed_checks = (
        comparison.candidate.checks.filter(pl.col("case").is_in(cases) & ~pl.col("passed"))
        .join(gradable, on=["case", "rep"], how="semi")
        .select("case", "rule", outcome=pl.lit(FAILED_CHECK))
    )
    wrong = pl.concat([wrong_decisions, failed_checks])
    if wrong.height == 0:
        return []
    per_rule = (
        wrong.group_by("rule")
        .agg(pl.len().alias("wrong"), pl.col("case").n_unique().alias("cases"))
        .sort("wrong", "rule", descending=[True, False])
    )
    kinds = (
        wrong.group_by("rule", "outcome")
        .len()
        .sort("rule", "len", "outcome", descending=[False, True, False])
        .group_by("rule", maintain_order=True)
        .agg(kinds=pl.struct("outcome", "len"))
    )
    return [
        RuleWrong(rule, n, in_cases, tuple((k["outcome"], k["len"]) for k in found))
        for rule, n, in_cases, found in per_rule.join(
            kinds, on="rule", maintain_order="left"
        ).iter_rows()
    ]
