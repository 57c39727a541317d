"""The outcome limits', the safety bound's and the budgets' reasons in words: what was found
beside the limit, and, against the baseline, whether beyond the noise."""

from __future__ import annotations

from fractions import Fraction

from flipgate.core.exact import ratio, written
from flipgate.core.gate.bounds import NeverEvent
from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.evidence import (
    EscalationsMaxPerRun,
    FalseNegativeMax,
    InconclusiveMaxShare,
    MirrorApprovedMax,
    ZeroFalseNegativeRule,
)
from flipgate.core.gate.excess import BudgetNoise, Excess
from flipgate.core.plural import plural
from flipgate.core.vocab import CountedBy
from flipgate.present.numbers import p_beside, percent, percent_beside, written_percent
from flipgate.present.reasons.words import sentence, signed_percent

# --------------------------------------------------------------------------- outcome limits


@sentence.register
def _(r: FalseNegativeMax) -> str:
    return f"{plural(r.found, 'false negative')}, above the limit of {r.limit}"


@sentence.register
def _(r: Excess) -> str:
    """`12 false negatives against the baseline's 5 on matched repetitions (+7): beyond the
    noise, which reaches +4 at 95% (p 0.012)`."""
    where = "beyond" if r.beyond_noise else "within"
    by = ", each template counted once" if r.by == "template" else ""
    return (
        f"{plural(r.candidate, 'false negative')} against the baseline's {r.baseline:,} on "
        f"matched repetitions ({r.excess:+,}): {where} the noise, which reaches {r.bound:+,} "
        f"at {percent(1 - r.alpha)} (p {p_beside(r.p, r.alpha)}{by})"
    )


# --------------------------------------------------------------------------- the safety bound


def _cases(n: int, by: CountedBy) -> str:
    return plural(n, "safety template" if by == "template" else "safety case")


@sentence.register
def _(r: NeverEvent) -> str:
    """Both codes: what the safety cases bound, and whether that is what the gate asks."""
    passed = r.cases - r.failed
    bound = (
        f"{_cases(r.cases, r.by)}, {passed:,} passing every repetition: the failure rate is at "
        f"most {percent(r.upper)} at {percent(r.level)} (Clopper-Pearson)"
    )
    if r.max_rate is None:
        return bound
    if r.supported:
        return f"{bound}, within the {written_percent(r.max_rate)} asked"
    return (
        f"{bound}, above the {written_percent(r.max_rate)} asked: {r.more:,} more, all passing, would "
        f"support it ({r.needed:,} in all)"
    )


@sentence.register
def _(r: ZeroFalseNegativeRule) -> str:
    return f"{plural(r.found, 'false negative')} on {r.rule}, where none is allowed"


@sentence.register
def _(r: InconclusiveMaxShare) -> str:
    share = percent_beside(ratio(r.count, r.decisions), r.budget)
    return (
        f"inconclusive decisions are {share} of the candidate's ({r.count:,} of "
        f"{r.decisions:,}), above the {written_percent(r.budget)} budget"
    )


@sentence.register
def _(r: MirrorApprovedMax) -> str:
    """`4 borderline items decided approve with confidence on r3 (a person should have looked),
    above the limit of 2`; against the baseline, as the false negatives' excess: `... against the
    baseline's 0 on matched repetitions (+4): beyond the noise, which reaches +2 at 98.8% (p
    0.0078)`."""
    items = f"{plural(r.found, 'borderline item')} decided {r.decided} with confidence on {r.rule}"
    if r.p is None or r.bound is None or r.alpha is None:
        what = "the baseline's" if r.of_baseline else "the limit of"
        return f"{items} (a person should have looked), above {what} {r.limit}"
    by = ", each template counted once" if r.by == "template" else ""
    return (
        f"{items} (a person should have looked) against the baseline's {r.limit:,} on matched "
        f"repetitions ({r.found - r.limit:+,}): beyond the noise, which reaches {r.bound:+,} at "
        f"{percent(1 - r.alpha)} (p {p_beside(r.p, r.alpha)}{by})"
    )


@sentence.register
def _(r: EscalationsMaxPerRun) -> str:
    most = "" if r.repetitions <= 1 else " in the repetition that escalated the most"
    return (
        f"{plural(r.found, 'decision')} escalated to a person{most}, above the reviewers' queue "
        f"of {r.limit:,} a run"
    )


# --------------------------------------------------------------------------- budgets


def figure(metric: str, value: float) -> str:
    """A metric's value as a person reads it: `1,412 ms`, `$0.0041`, `3.2 steps`."""
    size = abs(value)
    digits = f"{value:,.0f}" if size >= 100 else f"{value:,.2f}" if size >= 1 else f"{value:.2g}"
    if "." in digits and size >= 1:
        digits = digits.rstrip("0").rstrip(".")
    if metric.endswith("_usd"):
        return f"${digits}"
    if metric.endswith("_ms"):
        return f"{digits} ms"
    return digits


def _relative(cand: float, base: float, budget: float) -> str:
    """`18% above`, its digits enough to read on the right side of the budget's increase."""
    if cand == base:
        return "the same as"
    if base == 0:
        return "above" if cand > base else "below"
    change = Fraction(cand - base) / abs(Fraction(base))
    places = 0 if abs(change) >= Fraction(1, 100) else 1
    share = percent_beside(abs(change), abs(written(budget)), places)
    return f"{share} {'above' if change > 0 else 'below'}"


@sentence.register
def _(check: BudgetCheck) -> str:
    """Both codes, `budget_exceeded` and `budget_met`: the figures are said the same way."""
    budget, cand = check.budget, check.candidate
    words = []
    name = f"{budget.metric} {budget.stat} {figure(budget.metric, cand)}"
    if budget.max_increase is not None:
        base = check.baseline
        assert base is not None, "a relative budget is checked only against a baseline figure"
        words.append(
            f"{name} is {_relative(cand, base, budget.max_increase)} the baseline's "
            f"{figure(budget.metric, base)}, budget {signed_percent(budget.max_increase)}"
        )
        if (noise := check.noise) is not None:
            words[-1] += f": {_noise_words(noise, budget.max_increase)}"
    if budget.max is not None:
        over = "above" if cand > budget.max else "within"
        words.append(
            f"{name if not words else 'and'} is {over} the budget of "
            f"{figure(budget.metric, budget.max)}"
        )
    return ", ".join(words)


def _noise_words(noise: BudgetNoise, increase: float) -> str:
    """`beyond the noise, which reaches +6% at 95% (p 0.004, 2,000 swaps of the arms)`."""
    where = "beyond" if noise.beyond(increase) else "within"
    reach = (
        "which no swap of so few clusters can show"
        if noise.noise == float("inf")
        else f"which reaches {noise.noise - 1:+.1%} at {percent(1 - noise.alpha)}"
    )
    swaps = f"all {len(noise.ratios):,}" if noise.exact else f"{len(noise.ratios):,}"
    return (
        f"{where} the noise, {reach} (p {p_beside(noise.p(increase), noise.alpha)}, {swaps} "
        "swaps of the arms)"
    )
