"""The warnings in words: new cases, lists changed late, a run compared with itself, flips from
one template, readings that disagree, a log that does not say whether its run finished."""

from __future__ import annotations

from flipgate.core.gate.evidence import (
    ChangedLate,
    FinishNotStated,
    FlipsConcentrated,
    NewCases,
    ReadingsDisagree,
    SameRunId,
)
from flipgate.core.gate.mcnemar import format_p
from flipgate.core.gate.stats import ClusterReading
from flipgate.core.plural import plural, word
from flipgate.core.vocab import CountedBy
from flipgate.present.reasons.words import named, run_name, sentence


def cluster_words(flips: int, clusters: int, p_by_case: float, p_by_template: float) -> str:
    """`14 flips from 3 templates: p 0.004 counted by case, 0.250 by template`."""
    return (
        f"{plural(flips, 'flip')} from {plural(clusters, 'template')}: "
        f"p {format_p(p_by_case)} counted by case, {format_p(p_by_template)} by template"
    )


def clusters_line(reading: ClusterReading) -> str:
    """A reading's flips by template, as the reports title them."""
    return cluster_words(reading.flips, reading.clusters, reading.p_by_case, reading.p_by_template)


@sentence.register
def _(r: NewCases) -> str:
    n = len(r.cases)
    return (
        f"{n} new {word(n, 'case')} only in the candidate, not counted: {named(r.cases)}; "
        "rebaseline to count them"
    )


LATE_WORDS = {  # what changed late, and where it should have
    "flaky_added_late": ("flaky entries added", "the list should change"),
    "retired_late": ("cases retired", "a retirement should land"),
}


@sentence.register
def _(r: ChangedLate) -> str:
    what, should = LATE_WORDS[r.code]
    return (
        f"{what} after the baseline run was created ({', '.join(r.cases)}): "
        f"{should} in its own reviewed change, not while this one is judged"
    )


@sentence.register
def _(r: SameRunId) -> str:
    return (
        f"both arms have run_id {r.run_id!r}: one run compared with itself, "
        "or a run.yaml copied without a new run_id"
    )


COUNTED_WORDS: dict[CountedBy, str] = {
    "template": "the rule counted each template once",
    "case": "the rule counted cases (clusters: none); count a template once",
}


@sentence.register
def _(r: FlipsConcentrated) -> str:
    readings = cluster_words(r.flips, r.clusters, r.p_by_case, r.p_by_template)
    return (
        f"{r.broke + r.fixed} of the {r.flips} flipped cases come from template {r.template} "
        f"({r.broke} broke, {r.fixed} fixed): cloned cases flip together; "
        f"{COUNTED_WORDS[r.counted]} ({readings})"
    )


@sentence.register
def _(r: ReadingsDisagree) -> str:
    readings = cluster_words(r.flips, r.clusters, r.p_by_case, r.p_by_template)
    used = "templates" if r.counted == "template" else "cases"
    return f"{readings}, either side of {r.alpha:.3g}: the rule counted {used}"


@sentence.register
def _(r: FinishNotStated) -> str:
    return (
        f"the {r.arm} {r.tool} log {run_name(r.run_id, r.source)} does not say whether its run "
        f"finished: its {plural(r.cases, 'case')} are gated as the whole run"
    )
