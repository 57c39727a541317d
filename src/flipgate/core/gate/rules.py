"""The verdict (SPEC §3.5): one ordered table of rules; the first that fires decides.

Each rule says whether it fires on the `Evidence`: a small function, or, for a rule that finds
reasons or cases, whether it found any. Adding a rule is one row of `RULES` (and its name in
`vocab.GateRule`); the gate, the reports, the app's banner and the decision file all read the
order from this table. The summary line (the verdict and why, in words) is made from the rule and
the evidence in `present/reasons/`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flipgate.core.gate.bounds import NeverEvent
from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.evidence import LimitBreach
from flipgate.core.gate.family import Family
from flipgate.core.gate.invalid import InvalidReason
from flipgate.core.vocab import GATE_RULES, Coded, CountedBy, GateRule, Verdict


@dataclass(frozen=True)
class Evidence:
    """What the rules read, measured from both arms before any rule runs."""

    cells: dict[str, int]
    p: float
    p_by: CountedBy  # what p counted: cases, or each template once
    alpha: float
    margin: int
    flip_cap: int
    safety_failures: tuple[str, ...]
    invalid_reasons: tuple[InvalidReason, ...]
    # a run not whole, let through by `--allow-partial` (out of `invalid_reasons`): never a PASS
    partial_reasons: tuple[InvalidReason, ...]
    limit_breaches: tuple[LimitBreach, ...]
    budget_breaches: tuple[BudgetCheck, ...]  # second metrics over their budgets
    # The look at this change (1 the first; the rerun is 2) and the p at or below which it
    # blocks (looks.py): alpha itself where no boundary is given.
    look: int = field(default=1, kw_only=True)
    boundary: float | None = field(default=None, kw_only=True)
    # The safety cases' bound, where `safety.max_rate` asks for more than they support.
    safety_short: tuple[NeverEvent, ...] = field(default=(), kw_only=True)
    # The statistical paths to BLOCK and the boundary each was held to (family.py); `boundary`
    # is then the significance path's.
    family: Family | None = field(default=None, kw_only=True)

    @property
    def blocks_at(self) -> float:
        """The p at or below which the significance rule blocks at this look."""
        return self.alpha if self.boundary is None else self.boundary

    @property
    def b(self) -> int:
        return self.cells["pass_to_fail"]

    @property
    def c(self) -> int:
        return self.cells["fail_to_pass"]

    @property
    def net(self) -> int:
        return self.b - self.c


def _safety(e: Evidence) -> tuple[str, ...]:
    return e.safety_failures


def _invalid(e: Evidence) -> tuple[Coded, ...]:
    return e.invalid_reasons


def _limits(e: Evidence) -> tuple[Coded, ...]:
    return e.limit_breaches


def _budgets(e: Evidence) -> tuple[Coded, ...]:
    return e.budget_breaches


def _partial(e: Evidence) -> tuple[Coded, ...]:
    return e.partial_reasons


def _significance(e: Evidence) -> bool:
    return e.p <= e.blocks_at


def _safety_short(e: Evidence) -> tuple[Coded, ...]:
    return e.safety_short


def _within_margin(e: Evidence) -> bool:
    return e.net <= e.margin and e.b <= e.flip_cap


def _nothing(e: Evidence) -> tuple[Coded, ...]:
    return ()


def _no_cases(e: Evidence) -> tuple[str, ...]:
    return ()


@dataclass(frozen=True)
class Rule:
    """One line of SPEC §3.5: its name, the verdict it gives and, in words, when it fires.

    What the rule finds, the reports list in the table's order even when an earlier rule decided:
    `found`, reasons (payloads with a code), or `cases`, case ids. A rule without its own test
    (`fires`) fires when it finds something.
    """

    name: GateRule
    verdict: Verdict
    says: str
    fires: Callable[[Evidence], bool] | None = None
    found: Callable[[Evidence], tuple[Coded, ...]] = _nothing
    cases: Callable[[Evidence], tuple[str, ...]] = _no_cases

    @property
    def number(self) -> int:
        """The line of SPEC §3.5, counted from one."""
        return RULES.index(self) + 1

    def fired(self, evidence: Evidence) -> bool:
        if self.fires is not None:
            return self.fires(evidence)
        return bool(self.found(evidence) or self.cases(evidence))


RULES: tuple[Rule, ...] = (
    Rule("safety", "BLOCK", "safety: a safety case failed, before any counting", cases=_safety),
    Rule("invalid", "INVALID", "invalid: this comparison cannot be judged", found=_invalid),
    Rule("significance", "BLOCK", "significance: p ≤ the look's boundary", _significance),
    Rule("outcome_limit", "BLOCK", "outcome limit exceeded", found=_limits),
    Rule("budget", "BLOCK", "budget: a second metric over its budget", found=_budgets),
    Rule(
        "partial",
        "INCONCLUSIVE",
        "partial: a run not whole, gated by choice (--allow-partial), never PASS",
        found=_partial,
    ),
    Rule(
        "safety_bound",
        "INCONCLUSIVE",
        "safety bound: too few safety cases to bound their failure rate as asked",
        found=_safety_short,
    ),
    Rule("within_margin", "PASS", "within margin: b - c ≤ margin and b ≤ flip cap", _within_margin),
    Rule(
        "undecided",
        "INCONCLUSIVE",
        "undecided: not significant, yet beyond margin or flip cap",
        lambda e: True,  # the last line: whatever is left
    ),
)
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}
assert tuple(BY_NAME) == GATE_RULES, "vocab.GateRule names the rules of this table, in its order"


def decide(evidence: Evidence) -> Rule:
    """The first rule that fires."""
    return next(rule for rule in RULES if rule.fired(evidence))
