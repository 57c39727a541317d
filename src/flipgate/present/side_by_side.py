"""Several systems' outcomes side by side (`flipgate outcomes`): seed 000's table of the current
model, the safer one and the truly worse one, which share a pass rate and an agreement count and
differ tenfold in cost.

First one row per run (its pass rate by the gate's rule, its agreements, each wrong outcome and
the cost), then the outcome table with a count and a cost column per run and the reconciliation
(`present/outcomes.py`), in text, Markdown and JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.exact import ratio
from flipgate.core.gate.compare import ArmResults
from flipgate.core.gate.outcomes import OUTCOME_WORDS, WRONG_WORST_FIRST
from flipgate.core.gate.spec import GateSpec
from flipgate.present.numbers import amount, percent_beside
from flipgate.present.outcomes import outcome_json, outcome_markdown, outcome_tables
from flipgate.present.reasons import gate_words
from flipgate.present.text import literal, markdown

TITLE = "decision outcomes side by side"


def _share(part: int, whole: int) -> str:
    return f"{percent_beside(ratio(part, whole))} ({part:,})"


def _rows(runs: Sequence[ArmResults]) -> list[list[str]]:
    """One row per run: its green cases (every decision an agreement: the plain pass rate the
    seed reads), its agreements, each wrong outcome worst first, its cost. The cases failing by
    the gate's rule are in the reconciliation."""
    rows = []
    for judged in runs:
        o = judged.outcomes
        rec = o.reconciliation
        rows.append(
            [
                judged.run.run_id,
                _share(rec.cases - rec.red_cases, rec.cases),
                _share(o.counts["agreement"], o.decisions),
                *(f"{o.counts[outcome]:,}" for outcome in WRONG_WORST_FIRST),
                amount(o.cost),
            ]
        )
    return rows


HEAD = [
    "run",
    "green cases",
    "agreements",
    *(OUTCOME_WORDS[o] for o in WRONG_WORST_FIRST),
    "cost",
]


def to_text(runs: Sequence[ArmResults], spec: GateSpec) -> RenderableType:
    # Each run is named once, by its number, and the tables go by the numbers: run ids side by
    # side would not fit a log's 80 columns.
    named = [
        Text.assemble((f"#{n} ", "bold"), literal(judged.run.run_id), f"  {judged.run.path}")
        for n, judged in enumerate(runs, start=1)
    ]
    # The seed's point in three rows: one pass rate and one agreement count, tenfold the cost.
    table = Table(title=TITLE, title_justify="left")
    table.add_column("")
    for n in range(1, len(runs) + 1):
        table.add_column(f"#{n}", justify="right")
    rows = _rows(runs)
    for i, head in ((1, "green cases (the pass rate)"), (2, "agreements"), (-1, "cost")):
        table.add_row(head, *(row[i] for row in rows))
    return Group(
        literal(gate_words(spec), style="dim"),
        *named,
        table,
        *outcome_tables(
            [f"#{n}" for n in range(1, len(runs) + 1)],
            [judged.outcomes for judged in runs],
            runs[-1].run.labels,
            spec,
            [judged.graded - judged.passing for judged in runs],
        ),
    )


def to_markdown(runs: Sequence[ArmResults], spec: GateSpec) -> str:
    lines = [
        f"## flipgate: {TITLE}",
        "",
        f"Gate: {markdown(gate_words(spec))}",
        "",
        "| " + " | ".join(HEAD) + " |",
        "|---|" + "---:|" * (len(HEAD) - 1),
        *(f"| {markdown(row[0])} | {' | '.join(row[1:])} |" for row in _rows(runs)),
        "",
    ]
    lines += outcome_markdown(
        [judged.run.run_id for judged in runs],
        [judged.outcomes for judged in runs],
        runs[-1].run.labels,
        spec,
        [judged.graded - judged.passing for judged in runs],
    )
    return "\n".join(lines)


def to_json(runs: Sequence[ArmResults], spec: GateSpec) -> dict[str, Any]:
    labels = runs[-1].run.labels
    return {
        "spec_digest": spec.digest,
        "gate": gate_words(spec),
        "labels": {
            "negative": labels.negative,
            "positive": labels.positive,
            "abstain": labels.abstain,
        },
        "runs": [
            {
                "run_id": judged.run.run_id,
                "path": str(judged.run.path),
                "key": judged.run.key,
                "cases_graded": judged.graded,
                "cases_passing": judged.passing,
                "pass_rate": float(ratio(judged.passing, judged.graded)),
                "green_rate": float(
                    ratio(
                        judged.outcomes.reconciliation.cases
                        - judged.outcomes.reconciliation.red_cases,
                        judged.outcomes.reconciliation.cases,
                    )
                ),
                "agreement_rate": float(
                    ratio(judged.outcomes.counts["agreement"], judged.outcomes.decisions)
                ),
                "outcomes": outcome_json(judged.outcomes, judged.graded - judged.passing),
            }
            for judged in runs
        ],
    }
