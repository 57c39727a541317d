"""A signed decision's parts in words, where `flipgate verify` and the app show them."""

from __future__ import annotations

from flipgate.core.decision.record import RuleRegistered
from flipgate.core.decision.review_log import Looked
from flipgate.present.reasons.words import when
from flipgate.present.triage import TITLES

# How a turn was reached (a review log's `view` of a `turn_viewed`).
TURN_VIEWS = {"divergence": "(first divergence)", "unfold": "unfolded", "diff": "diffed"}


def rule_words(registration: RuleRegistered | None) -> str:
    """`rule registered at T by S, before run R`, or that it was not registered."""
    if registration is None:
        return "rule: not registered before the run"
    return (
        f"rule registered at {when(registration.registered)} by {registration.signer}, "
        f"before run {registration.candidate}"
    )


def looked_words(step: Looked) -> str:
    """One step of a decision's review log, as `flipgate replay` lists it (the time apart):
    `opened case lst-001 (rep 0)`, `recorded Grader: ruled out`. Case ids are untrusted: the
    caller shows the words literally."""
    rep = "" if step.rep is None else f" rep {step.rep}"
    klass = TITLES.get(step.triage_class or "", step.triage_class or "")
    finding = (step.finding or "").replace("_", " ")
    match step.event:
        case "case_opened":
            return f"opened case {step.case}" + (f" ({rep.strip()})" if rep else "")
        case "rep_viewed":
            return f"case {step.case}: showed{rep}"
        case "outputs_viewed":
            return f"case {step.case}{rep}: outputs as {step.view}"
        case "turn_viewed":
            how = TURN_VIEWS.get(step.view or "", step.view or "")
            return f"case {step.case}{rep}: turn {step.turn} {how}"
        case "finding_recorded":
            return f"recorded {klass}: {finding}"
        case "finding_undone":
            return f"undid {klass}: {finding}" if finding else f"undid {klass}"
        case "case_added":
            return f"added case {step.case} by hand to the cases reviewed"
        case "case_removed":
            return f"took case {step.case} off the cases reviewed"
