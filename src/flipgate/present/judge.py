"""The judge alone, in words and in the JSON (issue 23 item 2): each arm's stored outputs judged
again, each rule's flip rate with its exact interval, the cases unstable under the judge. The
core measures (`core/gate/judge.py`); this says it, the same in the report, the app and JSON."""

from __future__ import annotations

from typing import Any

from flipgate.core.gate.judge import LEVEL, JudgeRepeats, RuleFlipRate
from flipgate.core.plural import plural
from flipgate.present.numbers import percent

PROPOSE_COMMAND = "flipgate flaky propose --rejudged"
CASES_NAMED = 8


def rate_words(rate: RuleFlipRate) -> str:
    """`correct: 10 of 40 outputs flipped (25%, 95% CI 12.7% to 41.2%)`."""
    return flip_rate_text(rate.rule, rate.flipped, rate.outputs, rate.low, rate.high, LEVEL)


def flip_rate_text(
    rule: str, flipped: int, outputs: int, low: float, high: float, level: float
) -> str:
    """A rule's judge flip rate with its exact interval, as every front end words it."""
    if not outputs:
        return f"{rule}: no output judged twice"
    interval = f"{percent(level)} CI {percent(low)} to {percent(high)}"
    return (
        f"{rule}: {flipped:,} of {plural(outputs, 'output')} flipped "
        f"({percent(flipped / outputs)}, {interval})"
    )


def heading(repeats: JudgeRepeats) -> str:
    """`baseline, judged 3 times (the run and 2 rejudgings)`."""
    again = repeats.judgings - 1
    return (
        f"{repeats.arm}, judged {repeats.judgings} times "
        f"(the run and {plural(again, 'rejudging')} of its stored outputs)"
    )


def unstable_words(repeats: JudgeRepeats) -> str:
    """The cases whose verdict moved under the judge alone, and how to propose them."""
    cases = repeats.unstable_cases
    if not cases:
        return "no case's verdict moved under the judge alone"
    named = ", ".join(cases[:CASES_NAMED])
    if len(cases) > CASES_NAMED:
        named += f" and {len(cases) - CASES_NAMED:,} more"
    them = "it" if len(cases) == 1 else "them"
    return (
        f"{plural(len(cases), 'case')} unstable under the judge alone: {named} "
        f"(to propose {them} for the flaky list: {PROPOSE_COMMAND})"
    )


def judge_lines(repeats: JudgeRepeats) -> list[str]:
    """The arm's heading, then a line per rule and the unstable cases, each indented."""
    return [
        heading(repeats),
        *(f"  {rate_words(rate)}" for rate in repeats.rules),
        f"  {unstable_words(repeats)}",
    ]


def judge_json(repeats: JudgeRepeats) -> dict[str, Any]:
    """Figures only, as docs/json.md gives them."""
    return {
        "arm": repeats.arm,
        "passes": list(repeats.passes),
        "rules": [
            {
                "rule": r.rule,
                "outputs": r.outputs,
                "flipped": r.flipped,
                "rate": r.rate,
                "low": r.low,
                "high": r.high,
                "level": LEVEL,
                "method": "clopper_pearson",
            }
            for r in repeats.rules
        ],
        "unstable": [
            {"case": u.case, "safety": u.safety, "verdicts": list(u.verdicts)}
            for u in repeats.unstable
        ],
    }
