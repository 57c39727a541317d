"""The verdict's line (`summary`: which rule fired, and why, in words) and the gate's settings
in one line (`gate_words`)."""

from __future__ import annotations

from collections.abc import Callable

from flipgate.core.gate.compare import GateResult
from flipgate.core.gate.outcomes import OUTCOME_WORDS
from flipgate.core.gate.rules import BY_NAME, Evidence
from flipgate.core.gate.spec import GateSpec
from flipgate.core.plural import plural, word
from flipgate.core.vocab import WRONG_OUTCOMES, GateRule
from flipgate.present.numbers import p_beside, written_percent
from flipgate.present.reasons.words import sentence, series

SAFETY_NAMED = 5  # failed safety cases named in the one-line summary


def gate_words(spec: GateSpec) -> str:
    """What fails a repetition and which outcome limits apply, in one line of words."""
    if spec.fail_on == set(WRONG_OUTCOMES):
        parts = ["a repetition fails on any disagreement"]
    else:
        failing = [OUTCOME_WORDS[o] for o in WRONG_OUTCOMES if o in spec.fail_on]
        parts = [f"a repetition fails on {series(failing) if failing else 'no decision'}"]
    limits = spec.limits

    def bound(most: int | str) -> str:
        return "the baseline's" if most == "baseline" else f"{most:,}"

    if limits.false_negative_max is not None:
        parts.append(f"false negatives at most {bound(limits.false_negative_max)}")
    if limits.zero_false_negative_rules:
        parts.append(f"no false negative on {', '.join(limits.zero_false_negative_rules)}")
    if limits.inconclusive_max_share is not None:
        parts.append(
            f"inconclusive at most {written_percent(limits.inconclusive_max_share)} of decisions"
        )
    if limits.mirror_approved_max is not None:
        parts.append(
            f"confident approvals of borderline items at most {bound(limits.mirror_approved_max)} "
            "on each rule"
        )
    if limits.escalations_max_per_run is not None:
        parts.append(
            f"at most {plural(limits.escalations_max_per_run, 'escalation')} to a person a run"
        )
    return " · ".join(parts)


# --------------------------------------------------------------------------- the verdict's line


def flips(e: Evidence) -> str:
    """The flips in words, as every counting rule's summary starts."""
    return f"{e.b} {word(e.b, 'case')} broke, {e.c} {word(e.c, 'was', 'were')} fixed"


def p_words(e: Evidence) -> str:
    """`p = 0.073`, or `p = 0.250 by template` when the rule counted templates; as many digits
    as it takes to read on the right side of the look's boundary (`p = 0.0503`)."""
    return f"p = {p_beside(e.p, e.blocks_at)}" + (" by template" if e.p_by == "template" else "")


def boundary_words(e: Evidence) -> str:
    """`0.025`, and `(look 2)` after the first look."""
    return f"{e.blocks_at:.3g}" + (f" (look {e.look})" if e.look > 1 else "")


def _safety(e: Evidence) -> str:
    failed = e.safety_failures
    shown = ", ".join(failed[:SAFETY_NAMED]) + (" ..." if len(failed) > SAFETY_NAMED else "")
    return f"safety {word(len(failed), 'case')} failed ({shown})"


def _undecided(e: Evidence) -> str:
    why = (
        f"net {e.net} > margin {e.margin}" if e.net > e.margin else f"{e.b} > flip cap {e.flip_cap}"
    )
    return f"{flips(e)}; {p_words(e)} > {boundary_words(e)}, but {why}"


# why each rule fired, in words: for a rule that found reasons, the first of them
WHY: dict[GateRule, Callable[[Evidence], str]] = {
    "safety": _safety,
    "invalid": lambda e: sentence(e.invalid_reasons[0]),
    "significance": lambda e: f"{flips(e)}; {p_words(e)} <= {boundary_words(e)}",
    "outcome_limit": lambda e: sentence(e.limit_breaches[0]),
    "budget": lambda e: sentence(e.budget_breaches[0]),
    "partial": lambda e: (
        f"{sentence(e.partial_reasons[0])}; gated partial by choice (--allow-partial), never "
        f"PASS: {flips(e)} of the {plural(sum(e.cells.values()), 'case')} counted"
    ),
    "safety_bound": lambda e: sentence(e.safety_short[0]),
    "within_margin": lambda e: (
        f"{flips(e)}; net {e.net} <= margin {e.margin}, {e.b} <= flip cap {e.flip_cap}"
    ),
    "undecided": _undecided,
}


def verdict_line(evidence: Evidence, rule: GateRule) -> str:
    """The verdict `rule` gives and why it fired on `evidence`, in words."""
    return f"{BY_NAME[rule].verdict}: {WHY[rule](evidence)}"


def summary(result: GateResult) -> str:
    """The verdict and why, in words: `BLOCK: 10 cases broke, 2 were fixed; p = 0.019 <= 0.05`."""
    return verdict_line(result, result.rule)
