"""Which words of two lines differ: the spans of each that the other lacks, so that a changed line
shows the words that changed rather than colouring itself whole.

One function (`word_diff`) that the outputs diff and the trajectory diff both call, so that a
better one replaces it in one place. Pure: no terminal.
"""

from __future__ import annotations

import difflib
import re

Span = tuple[int, int]  # [start, end) in characters
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
MAX_TOKENS = 2_000  # past this a line is marked whole: difflib is quadratic in the worst case


def _tokens(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def word_diff(left: str, right: str) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """The spans of `left` not in `right` and of `right` not in `left`, word by word (spaces
    between two changed words join them into one span)."""
    a, b = _tokens(left), _tokens(right)
    if len(a) > MAX_TOKENS or len(b) > MAX_TOKENS:
        return ((0, len(left)),) if left else (), ((0, len(right)),) if right else ()
    matcher = difflib.SequenceMatcher(
        a=[t for t, _, _ in a], b=[t for t, _, _ in b], autojunk=False
    )
    removed: list[Span] = []
    added: list[Span] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            _add(removed, (a[i1][1], a[i2 - 1][2]))
        if j2 > j1:
            _add(added, (b[j1][1], b[j2 - 1][2]))
    return tuple(removed), tuple(added)


def _add(spans: list[Span], span: Span) -> None:
    if span[0] == span[1]:
        return
    spans.append(span)
