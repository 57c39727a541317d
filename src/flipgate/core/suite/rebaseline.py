"""What one re-baseline run costs (seed 002): the price of adding cases.

"Currency is served by adding cases, and the cost of adding them is one re-baseline run of the
incumbent: eleven minutes and about $2.40 at this suite's size." A re-baseline runs today's suite
again on the incumbent, so its cost is today's run summed: `cost_usd` and `latency_ms` over every
repetition (infra ones too: they were paid for), the latency as if run one after another.
"""

from __future__ import annotations

from dataclasses import dataclass

from flipgate.core.runs.model import Run


@dataclass(frozen=True)
class Summed:
    """One field summed over the repetitions that record it."""

    total: float
    recorded: int  # repetitions with a value


@dataclass(frozen=True)
class Rebaseline:
    run_id: str
    reps: int
    cost_usd: Summed | None  # None: no repetition records it
    latency_ms: Summed | None


def rebaseline(today: Run) -> Rebaseline:
    """Today's run's cost and time, summed: what running it again costs."""

    def summed(field: str) -> Summed | None:
        if field not in today.reps.columns:
            return None
        values = today.reps[field].drop_nulls()
        return Summed(float(values.sum()), values.len()) if values.len() else None

    return Rebaseline(
        today.run_id,
        today.reps.height,
        summed("cost_usd"),
        summed("latency_ms"),
    )
