"""Shared formatting for every screen: symbols and words for pass/fail and outcomes, numbers, and
`literal`, the one door through which text read from a run reaches the screen.

Colour is never the only carrier of meaning: every pass/fail and outcome has a symbol and a word,
so a colour-blind reviewer (or a monochrome terminal) reads the same screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from flipgate.core.gate.outcomes import OUTCOME_WORDS

# The one door for untrusted text lives in the core, so that reports and the CLI use it too.
from flipgate.present.text import literal as literal
from flipgate.present.text import safe as safe

PASS = "✓ pass"
FAIL = "✗ fail"
MISSING = "· missing"

# The short code, the symbol and the word of each outcome, worst first as `gate.SEVERITY` has them.
OUTCOME_CODE = {
    "false_negative": "FN",
    "mirror": "MR",
    "false_positive": "FP",
    "inconclusive": "INC",
    "agreement": "OK",
}
OUTCOME_SYMBOL = {
    "false_negative": "✗",
    "mirror": "⇄",
    "false_positive": "✗",
    "inconclusive": "?",
    "agreement": "✓",
}
VERDICT_SYMBOL = {"PASS": "✓", "BLOCK": "✗", "INCONCLUSIVE": "?", "INVALID": "⚠"}
CELL_WORDS = {
    "both_pass": "both pass",
    "both_fail": "both fail",
    "pass_to_fail": "b  pass → fail",
    "fail_to_pass": "c  fail → pass",
}


def passed_word(passed: bool | None) -> str:
    if passed is None:
        return MISSING
    return PASS if passed else FAIL


def outcome_label(outcome: str) -> str:
    """`✗ FN false negative`: symbol, code and word."""
    return f"{OUTCOME_SYMBOL[outcome]} {OUTCOME_CODE[outcome]} {OUTCOME_WORDS[outcome]}"


def count(n: int) -> str:
    return f"{n:,}"


def share(part: float, whole: float) -> str:
    """A share as a percent; '—' when there is nothing to share."""
    if not whole:
        return "—"
    value = 100 * part / whole
    return f"{value:.1f}%" if value >= 0.1 or value == 0 else "<0.1%"


def case_ids(items: Sequence[str], shown: int) -> Text:
    """The first `shown` case ids, literally, and how many more: `a, b, c … +12`."""
    text = literal(", ".join(items[:shown]))
    if len(items) > shown:
        text.append(f" … +{count(len(items) - shown)}")
    return text
