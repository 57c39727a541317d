"""Decision outcomes, baseline beside candidate (SPEC §4): the five counts, their prices and the
cost, mirrors by direction, and the reconciliation cases -> red cases -> decisions -> wrong
decisions -> outcomes with the red-case histogram."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.outcomes import OUTCOME_WORDS, OutcomeSummary
from flipgate.core.vocab import ARMS
from flipgate.present.numbers import amount, signed_amount
from flipgate.present.outcomes import (
    AGREEMENT_THEN_WORST,
    FAIL_AND_RED,
    mirror_words,
    outcome_rows,
    reconciliation_rows,
)
from flipgate.present.report.shared import failing
from flipgate.tui.format import OUTCOME_SYMBOL, count, literal, outcome_label
from flipgate.tui.widgets.panel import Panel

PASS_FAIL_ONLY = (
    "pass/fail checks only: these runs hold no labelled decisions, so there are no outcomes "
    "to count or price (the flip matrix is the whole story)"
)
BAR = 24  # width of the longest histogram bar


def _level(depth: int) -> str:
    """A row's depth in the reconciliation, drawn: the screen drops a cell's leading spaces."""
    return "" if depth == 0 else "·" * (depth - 1) + "↳ "


def _has_decisions(summaries: dict[str, OutcomeSummary]) -> bool:
    return any(summary.decisions for summary in summaries.values())


def _arm_value(summary: OutcomeSummary, value: str) -> str:
    return value if summary.decisions else "—"


def _delta(before: float, after: float, *, money_like: bool = False) -> str:
    if money_like:
        return signed_amount(after - before) if after != before else "±0"
    return f"{after - before:+,}" if after != before else "±0"


class OutcomesPanel(Panel):
    TITLE = "decision outcomes · baseline → candidate"

    def render(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        if not _has_decisions(summaries):
            return Text(PASS_FAIL_ONLY, self.style("muted"))
        base, cand = summaries["baseline"], summaries["candidate"]
        labels = self.comparison.candidate.labels
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False, expand=True)
        table.add_column("outcome", no_wrap=True)
        # every figure is whole, and so is its header: at 80 columns the outcome's words give way
        table.add_column("price", justify="right", no_wrap=True, min_width=5)
        for arm in ARMS:
            table.add_column(arm, justify="right", no_wrap=True, min_width=len(arm))
            table.add_column("cost", justify="right", no_wrap=True)
        table.add_column("change", justify="right", no_wrap=True, min_width=6)
        rows = outcome_rows([base, cand], labels, self.comparison.spec, AGREEMENT_THEN_WORST)
        for row in rows:
            name = (
                literal(f"{_level(1)}{row.words}", self.style("muted"))
                if row.decided
                else Text(
                    f"{OUTCOME_SYMBOL[row.outcome]} {OUTCOME_WORDS[row.outcome]}",
                    self.style(row.outcome),
                )
            )
            table.add_row(
                name,
                Text("" if row.price is None else amount(row.price), self.style("muted")),
                _arm_value(base, count(row.baseline)),
                _arm_value(base, amount(row.costs[0])),
                _arm_value(cand, count(row.candidate)),
                _arm_value(cand, amount(row.costs[-1])),
                _delta(row.baseline, row.candidate),
            )
        table.add_section()
        table.add_row(
            Text("decisions", self.style("label")),
            "",
            _arm_value(base, count(base.decisions)),
            "",
            _arm_value(cand, count(cand.decisions)),
            "",
            _delta(base.decisions, cand.decisions),
        )
        table.add_row(
            Text("cost", self.style("label")),
            "",
            "",
            _arm_value(base, amount(base.cost)),
            "",
            _arm_value(cand, amount(cand.cost)),
            Text(
                _delta(base.cost, cand.cost, money_like=True),
                self.style("fail" if cand.cost > base.cost else "pass"),
            ),
        )
        return Group(table, literal(mirror_words(labels), self.style("muted")))


class ReconciliationPanel(Panel):
    TITLE = "reconciliation · each level adds up"

    def render(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        if not _has_decisions(summaries):
            return Text(PASS_FAIL_ONLY, self.style("muted"))
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False, expand=True)
        table.add_column("")  # the words wrap; the figures and the arms' names never do
        for arm in ARMS:
            table.add_column(arm, justify="right", no_wrap=True, min_width=len(arm))
        arms = [summaries[arm] for arm in ARMS]
        for line in reconciliation_rows(arms, failing(self.comparison), by_outcome=True):
            if line.held is not None:
                continue  # drawn as bars below
            if line.outcome is not None:
                words = Text(_level(2) + outcome_label(line.outcome), self.style(line.outcome))
            else:
                style = self.style("label" if line.depth == 0 else "muted")
                words = Text(_level(line.depth) + line.words, style)
            table.add_row(words, *line.values)
        return Group(table, self._histogram(), Text(FAIL_AND_RED, self.style("muted")))

    def _histogram(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        histograms = {arm: summaries[arm].reconciliation.red_by_wrong for arm in ARMS}
        ks = sorted(set(histograms["baseline"]) | set(histograms["candidate"]))
        repeated = any(summaries[arm].repetitions > 1 for arm in ARMS)
        title = Text(
            "red cases by wrong decisions held"
            + (", summed over their repetitions" if repeated else ""),
            self.style("label"),
        )
        if not ks:
            return Group(title, Text("no red cases", self.style("muted")))
        top = max(max(h.values(), default=0) for h in histograms.values())
        table = Table(box=None, padding=(0, 1), show_header=True, show_edge=False)
        table.add_column("wrong", justify="right", style=self.style("muted"))
        for arm in ARMS:
            table.add_column(arm)
        for k in ks:
            cells = []
            for arm in ARMS:
                n = histograms[arm].get(k, 0)
                width = max(1, round(BAR * n / top)) if n else 0
                cell = Text(
                    "█" * width, self.style("muted" if arm == "baseline" else "label"), end=""
                )
                cell.append(f" {count(n)}")
                cells.append(cell)
            table.add_row(str(k), *cells)
        return Group(title, table)
