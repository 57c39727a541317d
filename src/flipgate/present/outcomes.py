"""The decision-outcome table (SPEC §4) as the reports and the app show it: one row per outcome,
its price, and for each run its count and its cost; the mirrors split by the way they decided,
named by the runs' own labels; then the reconciliation, cases -> red cases -> decisions. The gate
shows two runs (baseline, candidate), `flipgate outcomes` any number. Each front end formats the
rows in its own way."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flipgate.core.gate.outcomes import (
    OUTCOME_WORDS,
    WRONG_WORST_FIRST,
    OutcomeSummary,
    unit_price,
)
from flipgate.core.gate.spec import GateSpec
from flipgate.core.plural import plural
from flipgate.core.runs.model import Labels
from flipgate.core.vocab import OUTCOMES
from flipgate.present.numbers import amount, signed_amount
from flipgate.present.text import literal, markdown

if TYPE_CHECKING:
    from rich.console import RenderableType

# The app's order: agreement first, then the wrong outcomes worst first.
AGREEMENT_THEN_WORST = ("agreement", *WRONG_WORST_FIRST)
# What tells a failing case from a red one, said once beside every outcome table.
FAIL_AND_RED = (
    "a case fails (the flip matrix) when its repetitions fail by the gate's rule; a red case "
    "holds at least one wrong decision (any outcome but agreement), whatever the rule fails on"
)


@dataclass(frozen=True)
class OutcomeRow:
    """One outcome, or one direction of the mirrors (`decided`: the label it decided)."""

    outcome: str
    price: float | None  # None for the mirrors' total: each priced by the direction it decided
    counts: tuple[int, ...]  # one per run, in the table's order
    costs: tuple[float, ...]
    decided: str | None = None

    @property
    def words(self) -> str:
        return OUTCOME_WORDS[self.outcome] if self.decided is None else f"decided {self.decided}"

    @property
    def baseline(self) -> int:
        return self.counts[0]

    @property
    def candidate(self) -> int:
        return self.counts[-1]

    @property
    def change(self) -> int:
        return self.counts[-1] - self.counts[0]

    @property
    def cost_change(self) -> float:
        return self.costs[-1] - self.costs[0]


def outcome_rows(
    summaries: Sequence[OutcomeSummary],
    labels: Labels,
    spec: GateSpec,
    order: Sequence[str] = OUTCOMES,
) -> list[OutcomeRow]:
    """The rows of the runs' outcome counts and costs, in `order` (SPEC §4's by default); after
    the mirrors, one row for each way they decided, priced as a false negative (a confident
    approval of a borderline item) or as a false positive."""
    rows = []
    for outcome in order:
        rows.append(
            OutcomeRow(
                outcome,
                None if outcome == "mirror" else spec.price(outcome),  # priced by direction
                tuple(s.counts[outcome] for s in summaries),
                tuple(s.cost_by_outcome[outcome] for s in summaries),
            )
        )
        if outcome == "mirror":
            for decided, approved, count in (
                (labels.negative, True, [s.mirror_approved for s in summaries]),
                (labels.positive, False, [s.mirror_rejected for s in summaries]),
            ):
                price = unit_price("mirror", spec, approved=approved)
                costs = tuple(n * price for n in count)
                rows.append(OutcomeRow("mirror", price, tuple(count), costs, decided))
    return rows


def mirror_words(labels: Labels) -> str:
    """How a mirror is priced, with the run's own labels."""
    return (
        f'a mirror decided where a person should have looked: "{labels.negative}" is priced as a '
        f'false negative (a confident approval of a borderline item), "{labels.positive}" as a '
        "false positive"
    )


@dataclass(frozen=True)
class ReconciliationRow:
    """One level of the reconciliation: its words, how deep it sits, one figure per run."""

    words: str
    depth: int
    values: tuple[str, ...]
    held: int | None = None  # a row of the red cases by the wrong decisions they hold: how many
    outcome: str | None = None  # a row of the wrong decisions by outcome: which


def reconciliation_rows(
    summaries: Sequence[OutcomeSummary],
    failing: Sequence[int] | None = None,
    *,
    by_outcome: bool = False,
) -> list[ReconciliationRow]:
    """cases -> green and red -> decisions -> in green cases, agreements in red cases, wrong
    decisions: each level adds up to the one above it. `failing`: each run's cases that fail by
    the gate's rule, shown beside the red ones so that the two are never read as one;
    `by_outcome`: the wrong decisions split by outcome, worst first."""
    recs = [s.reconciliation for s in summaries]
    repeated = any(s.repetitions > 1 for s in summaries)

    def row(
        words: str, depth: int, values: Sequence[int], held: int | None = None
    ) -> ReconciliationRow:
        return ReconciliationRow(words, depth, tuple(f"{v:,}" for v in values), held)

    rows = [row("cases", 0, [r.cases for r in recs])]
    if failing is not None:
        rows.append(row("failing by the gate's rule", 1, failing))
    rows += [
        row("green: no wrong decision", 1, [r.cases - r.red_cases for r in recs]),
        row("red: at least one wrong decision", 1, [r.red_cases for r in recs]),
    ]
    over = " over its repetitions" if repeated else ""  # the misses are summed over them
    for k in sorted({k for r in recs for k in r.red_by_wrong}):
        held = [r.red_by_wrong.get(k, 0) for r in recs]
        rows.append(row(f"holding {plural(k, 'wrong decision')}{over}", 2, held, k))
    rows += [
        row("decisions", 0, [r.decisions for r in recs]),
        row("in green cases", 1, [r.decisions_in_green_cases for r in recs]),
        row("agreements in red cases", 1, [r.agreements_in_red_cases for r in recs]),
        row("wrong decisions", 1, [r.wrong_decisions for r in recs]),
    ]
    if by_outcome:
        rows += [
            ReconciliationRow(
                OUTCOME_WORDS[o], 2, tuple(f"{s.counts[o]:,}" for s in summaries), outcome=o
            )
            for o in WRONG_WORST_FIRST
        ]
    rows.append(row("escalated to a person", 1, [s.escalated for s in summaries]))
    if repeated:
        rows += [
            row("in the repetition that escalated the most", 2, [s.queue for s in summaries]),
            row("repetitions", 0, [s.repetitions for s in summaries]),
        ]
    return rows


# --------------------------------------------------------------------------- text and Markdown


def outcome_tables(
    names: Sequence[str],
    summaries: Sequence[OutcomeSummary],
    labels: Labels,
    spec: GateSpec,
    failing: Sequence[int] | None = None,
) -> list[RenderableType]:
    """The outcomes of the runs named `names` with their prices and costs, then the
    reconciliation; with two runs, the change from the first to the second. Rich is loaded
    here: the JSON report (`outcome_json`) goes without it."""
    from rich.table import Table
    from rich.text import Text

    change = len(summaries) == 2
    # Two runs have a count and a cost column each, and the change; more runs would not fit a
    # log's 80 columns that way, so each run's cell holds both, `9 · 3,600`.
    joined = len(summaries) > 2
    table = Table(title="decision outcomes, priced as gate.yaml prices them", title_justify="left")
    table.add_column("outcome", min_width=len("  decided ") + 7)
    table.add_column("price", justify="right", no_wrap=True)
    for name in names:  # a long run name folds in its header; the figures never do
        header = Text.assemble(literal(name), "\ncount · cost" if joined else "")
        table.add_column(header, justify="right", overflow="fold")
        if not joined:
            table.add_column("cost", justify="right", no_wrap=True)
    if change:
        table.add_column("change", justify="right", no_wrap=True)

    def cells(counts: Sequence[str], costs: Sequence[str]) -> list[str]:
        if joined:
            return [" · ".join(filter(None, pair)) for pair in zip(counts, costs, strict=True)]
        return [f for pair in zip(counts, costs, strict=True) for f in pair]

    for row in outcome_rows(summaries, labels, spec):
        table.add_row(
            literal(f"  {row.words}" if row.decided else row.words),
            price_words(row),
            *cells([f"{n:,}" for n in row.counts], [amount(c) for c in row.costs]),
            *([f"{row.change:+,}"] if change else []),
            style="dim" if row.decided else "",
        )
    decisions = [s.decisions for s in summaries]
    table.add_row(
        "decisions",
        "",
        *cells([f"{n:,}" for n in decisions], [""] * len(decisions)),
        *([f"{decisions[-1] - decisions[0]:+,}"] if change else []),
    )
    costs = [s.cost for s in summaries]
    table.add_row(
        "cost",
        "",
        *cells([""] * len(costs), [amount(cost) for cost in costs]),
        *([signed_amount(costs[-1] - costs[0])] if change else []),
        style="bold",
    )
    reconciliation = Table(
        title="reconciliation: cases, red cases, decisions", title_justify="left"
    )
    reconciliation.add_column("")
    for name in names:
        reconciliation.add_column(literal(name), justify="right")
    for line in reconciliation_rows(summaries, failing):
        reconciliation.add_row("  " * line.depth + line.words, *line.values)
    return [
        table,
        literal(mirror_words(labels), style="dim"),
        reconciliation,
        Text(FAIL_AND_RED, style="dim"),
    ]


def _counted(row: OutcomeRow) -> list[str]:
    return [
        f for n, cost in zip(row.counts, row.costs, strict=True) for f in (f"{n:,}", amount(cost))
    ]


def price_words(row: OutcomeRow) -> str:
    return "" if row.price is None else amount(row.price)  # a mirror: each direction's below


def outcome_markdown(
    names: Sequence[str],
    summaries: Sequence[OutcomeSummary],
    labels: Labels,
    spec: GateSpec,
    failing: Sequence[int] | None = None,
) -> list[str]:
    """`outcome_tables` as Markdown: the lines of two tables, each with its note."""
    change = len(summaries) == 2
    head = "".join(f" {markdown(name)} | cost |" for name in names)
    lines = [
        "**Decision outcomes**, priced as gate.yaml prices them",
        "",
        f"| outcome | price |{head}{' change |' if change else ''}",
        "|---|---:|" + "---:|---:|" * len(names) + ("---:|" if change else ""),
    ]
    for row in outcome_rows(summaries, labels, spec):
        words = f"↳ {markdown(row.words)}" if row.decided else row.words
        cells = " | ".join(_counted(row))
        lines.append(
            f"| {words} | {price_words(row)} | {cells} |"
            + (f" {row.change:+,} |" if change else "")
        )
    decisions = [s.decisions for s in summaries]
    costs = [s.cost for s in summaries]
    totals = (
        ["decisions", "", *(f for n in decisions for f in (f"{n:,}", ""))]
        + ([f"{decisions[-1] - decisions[0]:+,}"] if change else []),
        ["**cost**", "", *(f for cost in costs for f in ("", f"**{amount(cost)}**"))]
        + ([f"**{signed_amount(costs[-1] - costs[0])}**"] if change else []),
    )
    lines += [
        *(f"| {' | '.join(cells)} |" for cells in totals),
        "",
        markdown(mirror_words(labels)),
        "",
        f"| reconciliation |{''.join(f' {markdown(name)} |' for name in names)}",
        "|---|" + "---:|" * len(names),
    ]
    for line in reconciliation_rows(summaries, failing):
        indent = "&nbsp;&nbsp;" * line.depth
        lines.append(f"| {indent}{line.words} | {' | '.join(line.values)} |")
    lines += ["", FAIL_AND_RED, ""]
    return lines


# --------------------------------------------------------------------------- JSON


def outcome_json(summary: OutcomeSummary, failing: int | None = None) -> dict[str, Any]:
    """One run's outcomes as the JSON reports give them: the five counts, each one's cost, the
    mirrors by direction and rule, the reviewers' queue and the reconciliation."""
    rec = summary.reconciliation
    return {
        **summary.counts,
        "decisions": summary.decisions,
        "cost": summary.cost,
        "cost_by_outcome": dict(summary.cost_by_outcome),
        "mirror_approved": summary.mirror_approved,
        "mirror_rejected": summary.mirror_rejected,
        "mirror_approved_by_rule": dict(summary.mirror_approved_by_rule),
        "escalated": summary.escalated,
        "escalated_most_in_one_repetition": summary.queue,
        "repetitions": summary.repetitions,
        "cases": rec.cases,
        **({"failing_cases": failing} if failing is not None else {}),
        "green_cases": rec.cases - rec.red_cases,
        "red_cases": rec.red_cases,
        "wrong_decisions": rec.wrong_decisions,
        "decisions_in_green_cases": rec.decisions_in_green_cases,
        "agreements_in_red_cases": rec.agreements_in_red_cases,
        "red_cases_by_wrong_decisions": {str(k): n for k, n in sorted(rec.red_by_wrong.items())},
    }
