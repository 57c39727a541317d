"""Shared formatting for every screen: symbols and words for pass/fail and outcomes, numbers, and
`literal`, the one door through which text read from a run reaches the screen.

Colour is never the only carrier of meaning: every pass/fail and outcome has a symbol and a word,
so a colour-blind reviewer (or a monochrome terminal) reads the same screen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
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


def middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut in the middle (`policy-j…2026-08`) so that both ends
    of an identifier stay: never broken across lines, never cut where it reads as another value."""
    if cell_len(text) <= width or width < 3:
        return text
    keep = width - 1
    head = keep - keep // 2
    tail = keep // 2
    return f"{_cells(text, head)}…{_cells(text[::-1], tail)[::-1]}"


def _cells(text: str, width: int) -> str:
    """The start of `text` that fits in `width` cells."""
    out, used = [], 0
    for char in text:
        used += cell_len(char)
        if used > width:
            break
        out.append(char)
    return "".join(out)


_WORD = re.compile(r"[^ ]+ *")  # a word and the ordinary spaces after it: a no-break space joins


class Unparted:
    """`text` wrapped at its ordinary spaces only, so that what a no-break space joins (`b = 9`,
    `present.numbers.labelled`) stays on one line: Rich breaks at any whitespace, that one too.
    A run wider than the whole column is still folded."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        for line in self.text.split("\n", allow_blank=True):
            breaks, used = [], 0
            for word in _WORD.finditer(line.plain):
                if used and used + cell_len(word.group().rstrip(" ")) > options.max_width:
                    breaks.append(word.start())
                    used = 0
                used += cell_len(word.group())
            for part in line.divide(breaks):
                part.rstrip()
                yield part

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.text.plain.split("\n")
        runs = [run for line in lines for run in line.split(" ")]
        widest = max(map(cell_len, lines))
        return Measurement(max(map(cell_len, runs)), widest).with_maximum(options.max_width)
