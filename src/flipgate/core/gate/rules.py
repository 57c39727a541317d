"""The verdict (SPEC §3.5): one ordered table of rules; the first that fires decides.

Each rule is a small function of the `Evidence` that returns why it fires, or None. Adding a rule
is one function and one row of `RULES` (and its name in `vocab.GateRule`); the gate, the reports,
the app's banner and the decision file all read the order and the words from this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from flipgate.core.gate.mcnemar import format_p
from flipgate.core.plural import word
from flipgate.core.vocab import GATE_RULES, GateRule, Verdict

SAFETY_NAMED = 5  # failed safety cases named in the one-line summary


@dataclass(frozen=True)
class Evidence:
    """What the rules read, measured from both arms before any rule runs."""

    cells: dict[str, int]
    p: float
    p_by: Literal["case", "template"]  # what p counted: cases, or each template once
    alpha: float
    margin: int
    flip_cap: int
    safety_failures: tuple[str, ...]
    invalid_reasons: tuple[str, ...]
    limit_breaches: tuple[str, ...]
    budget_breaches: tuple[str, ...]  # second metrics over their budgets, in words

    @property
    def b(self) -> int:
        return self.cells["pass_to_fail"]

    @property
    def c(self) -> int:
        return self.cells["fail_to_pass"]

    @property
    def net(self) -> int:
        return self.b - self.c

    @property
    def p_words(self) -> str:
        """`p = 0.073`, or `p = 0.250 by template` when the rule counted templates."""
        return f"p = {format_p(self.p)}" + (" by template" if self.p_by == "template" else "")

    @property
    def flips(self) -> str:
        """The flips in words, as every counting rule's summary starts."""
        b, c = self.b, self.c
        return f"{b} {word(b, 'case')} broke, {c} {word(c, 'was', 'were')} fixed"


def _safety(e: Evidence) -> str | None:
    failed = e.safety_failures
    if not failed:
        return None
    named = ", ".join(failed[:SAFETY_NAMED]) + (" ..." if len(failed) > SAFETY_NAMED else "")
    return f"safety {word(len(failed), 'case')} failed ({named})"


def _invalid(e: Evidence) -> str | None:
    return e.invalid_reasons[0] if e.invalid_reasons else None


def _significance(e: Evidence) -> str | None:
    if e.p > e.alpha:
        return None
    return f"{e.flips}; {e.p_words} <= {e.alpha:g}"


def _outcome_limit(e: Evidence) -> str | None:
    return e.limit_breaches[0] if e.limit_breaches else None


def _budget(e: Evidence) -> str | None:
    return e.budget_breaches[0] if e.budget_breaches else None


def _within_margin(e: Evidence) -> str | None:
    if e.net > e.margin or e.b > e.flip_cap:
        return None
    return f"{e.flips}; net {e.net} <= margin {e.margin}, {e.b} <= flip cap {e.flip_cap}"


def _undecided(e: Evidence) -> str:
    why = (
        f"net {e.net} > margin {e.margin}" if e.net > e.margin else f"{e.b} > flip cap {e.flip_cap}"
    )
    return f"{e.flips}; {e.p_words} > {e.alpha:g}, but {why}"


def _nothing(e: Evidence) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class Rule:
    """One line of SPEC §3.5: its name, the verdict it gives and, in words, when it fires.

    `found` is what the rule found, which the reports list in the table's order even when an
    earlier rule decided: reasons, one a line, or (with `found_cases`, the words for them) case
    ids on one line.
    """

    name: GateRule
    verdict: Verdict
    says: str
    fires: Callable[[Evidence], str | None]
    found: Callable[[Evidence], tuple[str, ...]] = _nothing
    found_cases: str | None = None

    @property
    def number(self) -> int:
        """The line of SPEC §3.5, counted from one."""
        return RULES.index(self) + 1


RULES: tuple[Rule, ...] = (
    Rule(
        "safety",
        "BLOCK",
        "safety: a safety case failed, before any counting",
        _safety,
        found=lambda e: e.safety_failures,
        found_cases="failed safety",
    ),
    Rule(
        "invalid",
        "INVALID",
        "invalid: this comparison cannot be judged",
        _invalid,
        found=lambda e: e.invalid_reasons,
    ),
    Rule("significance", "BLOCK", "significance: p ≤ alpha", _significance),
    Rule(
        "outcome_limit",
        "BLOCK",
        "outcome limit exceeded",
        _outcome_limit,
        found=lambda e: e.limit_breaches,
    ),
    Rule(
        "budget",
        "BLOCK",
        "budget: a second metric over its budget",
        _budget,
        found=lambda e: e.budget_breaches,
    ),
    Rule("within_margin", "PASS", "within margin: b - c ≤ margin and b ≤ flip cap", _within_margin),
    Rule(
        "undecided",
        "INCONCLUSIVE",
        "undecided: not significant, yet beyond margin or flip cap",
        _undecided,
    ),
)
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}
assert tuple(BY_NAME) == GATE_RULES, "vocab.GateRule names the rules of this table, in its order"


def decide(evidence: Evidence) -> tuple[Rule, str]:
    """The first rule that fires, and the summary line: the verdict and why, in words."""
    for rule in RULES:
        why = rule.fires(evidence)
        if why is not None:
            return rule, f"{rule.verdict}: {why}"
    raise AssertionError("the last rule always fires")
