"""The rerun plan priced, in words (issue 23 item 4): what it takes (repetitions, tokens, cost)
and what it buys (the chance the second look resolves the verdict), and the cheapest plan that
reaches the target. The text report, the Markdown report and the app's rerun-plan dialog say
the same lines; the core computes them (`core/gate/rerun_price.py`)."""

from __future__ import annotations

from flipgate.core.gate.rerun_price import MAX_PLAN_RUNS, PlanPrice, PricedPlan
from flipgate.core.plural import plural

UNKNOWN = "unknown"


def tokens_words(value: int | None) -> str:
    return UNKNOWN if value is None else f"{value:,} tokens"


def cost_words(value: float | None) -> str:
    return UNKNOWN if value is None else f"${value:,.2f}"


def takes(plan: PricedPlan) -> str:
    """`12 cases x 5 repetitions x 2 arms = 120 repetitions · 84,000 tokens · $1.20`."""
    return (
        f"{plural(plan.cases, 'case')} x {plural(plan.runs, 'repetition')} x 2 arms = "
        f"{plural(plan.repetitions, 'repetition')} · {tokens_words(plan.tokens)} · "
        f"cost {cost_words(plan.cost_usd)}"
    )


def buys(plan: PricedPlan) -> str:
    """`a 64% chance to resolve the verdict (BLOCK 41%, PASS 23%)`."""
    chance = plan.chance
    how = "" if chance.method == "exact" else " (normal approximation)"
    share = f"{chance.resolves:.0%}"
    return (
        f"{'an' if share.startswith(('8', '11%', '18%')) else 'a'} {share} chance to resolve the verdict (BLOCK {chance.block:.0%}, "
        f"PASS {chance.passes:.0%}){how}"
    )


def price_lines(price: PlanPrice) -> list[tuple[str, str]]:
    """(label, value) lines: the plan, what it buys, the cheapest plan, the model."""
    plan = price.plan
    lines = [("takes", takes(plan)), ("buys", buys(plan))]
    unknown = [arm for arm, usage in plan.usage.items() if usage.cost_usd is None]
    if unknown:
        lines.append(("usage", f"{' and '.join(unknown)}: no cost recorded in the run"))
    cheapest = price.cheapest
    target = f"{price.target:.0%}"
    if cheapest is None:
        lines.append(("cheapest", f"no plan of up to {MAX_PLAN_RUNS} repetitions reaches {target}"))
    elif cheapest.runs == plan.runs:
        lines.append(("cheapest", f"this plan is the cheapest that reaches {target}"))
    else:
        lines.append(
            (
                "cheapest",
                f"{plural(cheapest.runs, 'repetition')} a case and arm reaches {target}: "
                f"{takes(cheapest)}; {buys(cheapest)}",
            )
        )
    lines.append(
        (
            "model",
            "each case's repetitions pass at its observed share, (passes + 1) / (reps + 2); "
            f"a strict majority passes a case; BLOCK at p <= {price.alpha:.3g}",
        )
    )
    return lines
