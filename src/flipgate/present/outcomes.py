"""The decision-outcome table (SPEC §4) as the reports and the app show it: one row per outcome,
its price, each arm's count and the change. Each of them formats the rows in its own way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.outcomes import WRONG_WORST_FIRST
from flipgate.core.vocab import OUTCOMES

# The app's order: agreement first, then the wrong outcomes worst first.
AGREEMENT_THEN_WORST = ("agreement", *WRONG_WORST_FIRST)


@dataclass(frozen=True)
class OutcomeRow:
    outcome: str
    price: float | None  # None for a mirror: priced by the direction it decided
    baseline: int
    candidate: int

    @property
    def change(self) -> int:
        return self.candidate - self.baseline


def outcome_rows(comparison: Comparison, order: Sequence[str] = OUTCOMES) -> list[OutcomeRow]:
    """The rows of both arms' outcome counts, in `order` (SPEC §4's by default)."""
    outcomes, spec = comparison.result.outcomes, comparison.spec
    return [
        OutcomeRow(
            outcome,
            None if outcome == "mirror" else spec.price(outcome),
            outcomes["baseline"].counts[outcome],
            outcomes["candidate"].counts[outcome],
        )
        for outcome in order
    ]
