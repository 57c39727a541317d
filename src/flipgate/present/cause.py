"""What the drill-down leads with: the rule that failed in the repetition in focus, with its check
and the grader's reason, and the input the model judged; and long text folded to what fits.

    cause         the first wrong verdict of the repetition in focus (the candidate's first: it
                  is the change under review), beside what the other arm said on that rule
    judged input  the field of the run that holds what the model was asked to judge (a listing,
                  a question, a ticket), else the first user turn of the trajectory
    fold          a text cut at a number of lines and characters, and how much was left out

Pure functions over a `CaseDetail`: no terminal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from flipgate.core.vocab import ARMS
from flipgate.present.casefile import CaseDetail, RuleLine, Verdict
from flipgate.present.trajectory import each_turn

# Extra fields that hold the input the model judged, by the names runs and importers give them.
INPUT_FIELDS = (
    "input",
    "inputs",
    "listing",
    "question",
    "query",
    "prompt",
    "ticket",
    "item",
    "vars",
)
OK_OUTCOMES = ("agreement", "pass")


@dataclass(frozen=True)
class Cause:
    """A wrong verdict: the rule, the arm and repetition, what was expected and given, and the
    other arm's verdict on the same rule in the same repetition (None: none there)."""

    line: RuleLine
    arm: str
    rep: int
    verdict: Verdict
    other: Verdict | None

    @property
    def other_arm(self) -> str:
        return ARMS[1 - ARMS.index(self.arm)]


def wrong(verdict: Verdict | None) -> bool:
    return verdict is not None and verdict.outcome not in OK_OUTCOMES


def cause(detail: CaseDetail, focus: int) -> Cause | None:
    """The first wrong verdict of repetition `focus`, the candidate's before the baseline's; None
    when nothing is wrong there (then the case is red in another repetition, or not at all)."""
    for arm in reversed(ARMS):
        for line in detail.lines:
            verdict = line.verdicts[arm][focus]
            if verdict is not None and wrong(verdict):
                other = line.verdicts[ARMS[1 - ARMS.index(arm)]][focus]
                return Cause(line, arm, detail.reps[focus], verdict, other)
    return None


def wrong_first(lines: tuple[RuleLine, ...]) -> tuple[RuleLine, ...]:
    """The rules the candidate gets wrong first, then those the baseline does, the rest after;
    each group in the order given."""
    return tuple(
        sorted(lines, key=lambda line: (not line.wrong("candidate"), not line.wrong("baseline")))
    )


# --------------------------------------------------------------------------- the input judged


def judged_input(detail: CaseDetail, focus: int) -> tuple[str, str] | None:
    """(where it comes from, the text) of what the model judged in repetition `focus`: an input
    field of the run, else the trajectory's first user turn; None when the run keeps neither."""
    reps = [detail.rep(arm, focus) for arm in reversed(ARMS)]
    for rep in reps:
        if rep is None:
            continue
        for name in INPUT_FIELDS:
            if name in rep.extra:
                return name, readable_value(rep.extra[name])
    for rep in reps:
        if rep is not None and rep.messages:
            user = next((t for t in each_turn(rep.messages) if t.role == "user"), None)
            if user is not None:
                return "the first user turn", user.text
    return None


def readable_value(value: Any) -> str:
    """A field as a person reads it: a mapping one `key: value` a line, text as it is, anything
    else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(f"{key}: {_one(item)}" for key, item in value.items())
    return json.dumps(value, ensure_ascii=False, indent=2)


def _one(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------- folding


@dataclass(frozen=True)
class Folded:
    kept: str
    hidden: int  # characters left out; 0: the text is whole

    @property
    def whole(self) -> bool:
        return self.hidden == 0


def fold(text: str, *, lines: int, chars: int) -> Folded:
    """`text` cut after `lines` lines or `chars` characters, whichever comes first."""
    if len(text) <= chars and text.count("\n") < lines:
        return Folded(text, 0)
    kept = "\n".join(text[:chars].split("\n")[:lines])
    return Folded(kept, len(text) - len(kept))


def fold_note(hidden: int, expand: str, pager: str) -> str:
    """`… 239,000 more characters: enter to expand, o to open in the pager`."""
    noun = "character" if hidden == 1 else "characters"
    return f"… {hidden:,} more {noun}: {expand} to expand, {pager} to open in the pager"
