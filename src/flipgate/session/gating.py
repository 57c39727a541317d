"""The gate applied to what was read: the only place above the core that compares runs.

`gate` is the first answer (and, given rerun results, the second, SPEC §3.6); `gate_again` is the
app's after an edit (the flaky list, a retirement) or on loading the reruns; `rank` and
`rank_campaign` compare each candidate with the incumbent under the same terms.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TypedDict

from flipgate.core.gate.attempts import Earlier
from flipgate.core.gate.compare import ArmResults, Comparison, compare, judge_arm
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import judge_repeats
from flipgate.core.gate.loosening import GateBase
from flipgate.core.gate.power import FlipRule
from flipgate.core.gate.registered import Registration
from flipgate.core.gate.rerun_price import price
from flipgate.core.gate.reruns import compare_with_reruns
from flipgate.core.gate.retired import Retirements
from flipgate.core.gate.spec import GateSpec
from flipgate.core.rank.ranking import Ranking
from flipgate.core.rank.ranking import rank as rank_runs
from flipgate.core.runs.model import Progress, Run
from flipgate.core.runs.reading import load_run
from flipgate.session.reading import CampaignInputs, GateInputs, Terms, read_terms, silent
from flipgate.session.request import GateRequest

PAIRING = "pairing the cases and counting the flips"
RERUNNING = "applying the rule to the rerun results"


def gate(
    inputs: GateInputs,
    progress: Progress = silent,
    *,
    judged: ArmResults | None = None,
    price: bool = True,
) -> Comparison:
    """The gate on the runs read; with rerun results read beside them, applied once more with
    those (the first verdict kept as `result.previous`): one step, or two. `judged` is the
    baseline's side when a ranking already judged it. Without `price` the rerun plan is left
    unpriced: the app prices it (`priced`) when its screen opens."""
    progress(PAIRING)
    terms = inputs.terms
    first = compare(
        inputs.baseline,
        inputs.candidate,
        terms.spec,
        **_judging(terms, inputs.request),
        judged_baseline=judged,
        look=_look(inputs),
        **_held_to(inputs),
    )
    first = _judged_again(first, inputs, progress)
    if inputs.reruns is None:
        return priced(first, inputs.request.rerun_target) if price else first
    progress(RERUNNING)
    second = compare_with_reruns(
        first, *inputs.reruns, declared_change=inputs.request.declared_change
    )
    return replace(second, judge_repeats=first.judge_repeats)


def _judged_again(comparison: Comparison, inputs: GateInputs, progress: Progress) -> Comparison:
    """`comparison` with each arm's judging passes measured (`rejudged/`): the judge alone."""
    if not inputs.rejudged:
        return comparison
    progress("measuring the judge on the rejudged outputs")
    spec = inputs.terms.spec
    measured = tuple(
        judge_repeats(arm, comparison.run(arm), passes, spec)
        for arm, passes in inputs.rejudged.items()
    )
    return replace(comparison, judge_repeats=measured)


def gate_again(
    shown: Comparison,
    inputs: GateInputs,
    progress: Progress = silent,
    *,
    reruns: bool = False,
    price: bool = True,
) -> Comparison:
    """The comparison `shown` gated again under the terms of `inputs` (the flaky list and the
    retirements as they now are; its arms as they are, reruns and all, and its first verdict
    kept); with `reruns`, the rerun results of `inputs` applied to it instead. One step.
    `price` as `gate` takes it."""
    request = inputs.request
    if reruns:
        if inputs.reruns is None:
            raise ValueError("no rerun results were read (read_again with reruns=True)")
        progress(RERUNNING)
        second = compare_with_reruns(shown, *inputs.reruns, declared_change=request.declared_change)
        return replace(second, judge_repeats=shown.judge_repeats)
    progress(f"{PAIRING}, with the list as it is")
    terms = inputs.terms
    again = compare(
        shown.baseline,
        shown.candidate,
        terms.spec,
        **_judging(terms, request),
        **_judged_arms(shown, terms.spec),
        previous=shown.result.previous,
        look=shown.result.look,  # the look it was gated at (`--look`), not the first again
        **_held_to(inputs),
    )
    again = replace(again, judge_repeats=shown.judge_repeats)
    return priced(again, request.rerun_target) if price else again


class _JudgedArms(TypedDict, total=False):
    judged_baseline: ArmResults
    judged_candidate: ArmResults


def _judged_arms(shown: Comparison, spec: GateSpec) -> _JudgedArms:
    """The arms `shown` judged on its own runs under `spec`, for `compare` to take again: an arm's
    judging depends on neither the flaky list nor the retirements, which are what the app edits
    (at a million cases, two seconds of the re-gate's six)."""
    again = _JudgedArms()
    for judged in shown.judged:
        if judged.run is shown.run(judged.arm) and judged.spec is spec:
            if judged.arm == "baseline":
                again["judged_baseline"] = judged
            else:
                again["judged_candidate"] = judged
    return again


def priced(comparison: Comparison, target: float) -> Comparison:
    """`comparison` with its rerun plan priced (on a full run's INCONCLUSIVE; else as it is):
    what the plan takes, its chance to resolve the verdict, the cheapest plan reaching `target`.

    The chance is taken at the boundary the flips are held to at the next look: the looks share
    alpha (looks.py), and at that look the paths to BLOCK share its boundary (family.py)."""
    escalation = comparison.result.escalation
    if escalation is None or escalation.action != "rerun_flipped" or escalation.runs is None:
        return comparison
    result = comparison.result
    # the escalation's boundary is the flips' share of the next look's (escalation.next_look_share)
    boundary = result.alpha if escalation.boundary is None else escalation.boundary
    plan = price(
        {"baseline": comparison.baseline, "candidate": comparison.candidate},
        comparison.cases,
        escalation.cases,
        escalation.runs,
        FlipRule(boundary, result.margin, result.flip_cap, comparison.spec.test),
        target,
    )
    return replace(comparison, rerun_price=plan)


def rank(request: GateRequest, progress: Progress = silent) -> Ranking:
    """`flipgate rank`: each candidate read (lean) when the ranking reaches it and dropped once
    measured, so one candidate at a time is in memory."""
    terms = read_terms(request, progress)
    options = request.import_options

    def candidates() -> Iterator[tuple[str, Run]]:
        for name, path in request.candidates:
            run = load_run(path, progress=progress, lean=True, import_options=options)
            yield name or run.run_id, run

    incumbent = load_run(request.baseline, progress=progress, lean=True, import_options=options)
    return _rank(terms, request, incumbent, candidates(), None, progress)


def rank_campaign(
    inputs: CampaignInputs, progress: Progress = silent
) -> tuple[Ranking, ArmResults]:
    """A campaign read whole, ranked; with the incumbent's side of the gate, judged once, which
    `gate` takes again for the candidate opened."""
    terms = inputs.terms
    progress("comparing each candidate with the incumbent")
    judged = judge_arm("baseline", inputs.incumbent, terms.spec)
    ranking = _rank(terms, inputs.request, inputs.incumbent, inputs.candidates, judged, progress)
    return ranking, judged


class _Judging(TypedDict):
    """What the gate is told besides the runs and the spec, as `compare` and `rank` take it."""

    flaky: FlakyList
    declared_change: tuple[str, ...]
    retired: Retirements
    base: GateBase | None
    allow_partial: bool  # a run not whole gated, to INCONCLUSIVE at best, rather than INVALID


def _judging(terms: Terms, request: GateRequest) -> _Judging:
    return _Judging(
        flaky=terms.flaky,
        declared_change=request.declared_change,
        retired=terms.retired,
        base=terms.base,
        allow_partial=request.allow_partial,
    )


class _HeldTo(TypedDict):
    """What a pair's gate is held to besides its terms: the rule registered before the run and
    the change's earlier attempts (`rank` takes neither: a ranking is not a gate of a change)."""

    registration: Registration | None
    earlier: Earlier | None


def _look(inputs: GateInputs) -> int | None:
    """This look at the change: the ledger's count, else `--look`, else the first."""
    recorded = inputs.recorded
    return inputs.request.look if recorded is None else recorded.earlier.look


def _held_to(inputs: GateInputs) -> _HeldTo:
    recorded = inputs.recorded
    return _HeldTo(
        registration=inputs.registration,
        earlier=None if recorded is None else recorded.earlier,
    )


def _rank(
    terms: Terms,
    request: GateRequest,
    incumbent: Run,
    candidates: Iterable[tuple[str, Run]],
    judged: ArmResults | None,
    progress: Progress,
) -> Ranking:
    return rank_runs(
        incumbent,
        candidates,
        terms.spec,
        **_judging(terms, request),
        judged_baseline=judged,
        on_compared=lambda name, _: progress(f"compared {name} with the incumbent"),
    )
