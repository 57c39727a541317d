"""Two texts compared for a person, line by line (`unified_diff`, `side_by_side`; word by word
inside a changed line is `present/word_diff.py`). Shown by the drill-down's outputs diff and the
trajectory's turns; the core never reads them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

DiffTag = Literal[" ", "+", "-", "@"]


@dataclass(frozen=True)
class DiffLine:
    tag: DiffTag  # context, added (candidate), removed (baseline), hunk header
    text: str


@dataclass(frozen=True)
class DiffRow:
    """One row of a side-by-side diff; a side is None where the other arm has a line alone."""

    tag: Literal["equal", "replace", "delete", "insert"]
    left: str | None
    right: str | None


def unified_diff(
    baseline: str | None, candidate: str | None, context: int = 3
) -> tuple[DiffLine, ...]:
    """The candidate's output against the baseline's, line by line (`-` baseline, `+` candidate)."""
    a, b = (baseline or "").splitlines(), (candidate or "").splitlines()
    lines = []
    for raw in difflib.unified_diff(a, b, n=context, lineterm=""):
        if raw.startswith(("---", "+++")):
            continue  # file headers: there are no files, the arms are named on screen
        tag = raw[:1]
        if tag == "@":
            lines.append(DiffLine("@", raw))
        else:
            lines.append(DiffLine(tag if tag in "+-" else " ", raw[1:]))  # type: ignore[arg-type]
    return tuple(lines)


def side_by_side(baseline: str | None, candidate: str | None) -> tuple[DiffRow, ...]:
    """Both outputs aligned line by line, changed lines paired where difflib pairs them."""
    a, b = (baseline or "").splitlines(), (candidate or "").splitlines()
    rows: list[DiffRow] = []
    # autojunk (difflib's default) leaves out lines found everywhere (`},` in long JSON), which
    # keeps long outputs from taking minutes; it changes nothing under 200 lines
    matcher = difflib.SequenceMatcher(a=a, b=b)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = a[i1:i2], b[j1:j2]
        for k in range(max(len(left), len(right))):
            lhs = left[k] if k < len(left) else None
            rhs = right[k] if k < len(right) else None
            if tag == "equal":
                rows.append(DiffRow("equal", lhs, rhs))
            elif lhs is None:
                rows.append(DiffRow("insert", None, rhs))
            elif rhs is None:
                rows.append(DiffRow("delete", lhs, None))
            else:
                rows.append(DiffRow("replace", lhs, rhs))
    return tuple(rows)
