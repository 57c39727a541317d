"""Decision outcomes, baseline beside candidate (SPEC §4): the five counts, their prices and the
cost, mirrors by direction, and the reconciliation cases -> red cases -> decisions -> wrong
decisions -> outcomes with the red-case histogram."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.outcomes import WRONG_WORST_FIRST, OutcomeSummary
from flipgate.core.vocab import ARMS
from flipgate.present.outcomes import AGREEMENT_THEN_WORST, outcome_rows
from flipgate.tui.format import (
    OUTCOME_CODE,
    OUTCOME_SYMBOL,
    count,
    money,
    outcome_label,
    signed_money,
)
from flipgate.tui.widgets.panel import Panel

PASS_FAIL_ONLY = (
    "pass/fail checks only: these runs hold no labelled decisions, so there are no outcomes "
    "to count or price (the flip matrix is the whole story)"
)
BAR = 24  # width of the longest histogram bar


def _has_decisions(summaries: dict[str, OutcomeSummary]) -> bool:
    return any(summary.decisions for summary in summaries.values())


def _arm_value(summary: OutcomeSummary, value: str) -> str:
    return value if summary.decisions else "—"


def _delta(before: float, after: float, *, money_like: bool = False) -> str:
    if money_like:
        return signed_money(after - before)
    return f"{after - before:+,}" if after != before else "±0"


class OutcomesPanel(Panel):
    TITLE = "decision outcomes · baseline → candidate"

    def render(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        if not _has_decisions(summaries):
            return Text(PASS_FAIL_ONLY, self.style("muted"))
        base, cand = summaries["baseline"], summaries["candidate"]
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False, expand=True)
        table.add_column("outcome", no_wrap=True)
        table.add_column("price", justify="right")
        table.add_column("baseline", justify="right")
        table.add_column("candidate", justify="right")
        table.add_column("change", justify="right")
        for row in outcome_rows(self.comparison, AGREEMENT_THEN_WORST):
            table.add_row(
                Text(outcome_label(row.outcome), self.style(row.outcome)),
                Text("FN/FP" if row.price is None else money(row.price), self.style("muted")),
                _arm_value(base, count(row.baseline)),
                _arm_value(cand, count(row.candidate)),
                _delta(row.baseline, row.candidate),
            )
        table.add_section()
        table.add_row(
            Text("decisions", self.style("label")),
            "",
            _arm_value(base, count(base.decisions)),
            _arm_value(cand, count(cand.decisions)),
            _delta(base.decisions, cand.decisions),
        )
        table.add_row(
            Text("cost", self.style("label")),
            "",
            _arm_value(base, money(base.cost)),
            _arm_value(cand, money(cand.cost)),
            Text(
                _delta(base.cost, cand.cost, money_like=True),
                self.style("fail" if cand.cost > base.cost else "pass"),
            ),
        )
        mirrors: list[RenderableType] = [
            Text(f"{OUTCOME_SYMBOL['mirror']} mirrors", self.style("mirror"))
        ]
        for arm, summary in zip(ARMS, (base, cand), strict=True):
            line = Text(f"  {arm:<10}", self.style("muted"))
            line.append(
                f"{count(summary.mirror_approved)} approved → priced as "
                f"{OUTCOME_CODE['false_negative']} · {count(summary.mirror_rejected)} rejected → "
                f"priced as {OUTCOME_CODE['false_positive']}"
            )
            mirrors.append(line)
        return Group(table, *mirrors)


class ReconciliationPanel(Panel):
    TITLE = "reconciliation · each level adds up"

    def render(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        if not _has_decisions(summaries):
            return Text(PASS_FAIL_ONLY, self.style("muted"))
        base = summaries["baseline"].reconciliation
        cand = summaries["candidate"].reconciliation
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False, expand=True)
        table.add_column("", no_wrap=True)
        table.add_column("baseline", justify="right")
        table.add_column("candidate", justify="right")
        for name, b, c in (
            ("cases", base.cases, cand.cases),
            ("red cases", base.red_cases, cand.red_cases),
            ("decisions", base.decisions, cand.decisions),
            ("  in green cases", base.decisions_in_green_cases, cand.decisions_in_green_cases),
            (
                "  agreements in red cases",
                base.agreements_in_red_cases,
                cand.agreements_in_red_cases,
            ),
            ("wrong decisions", base.wrong_decisions, cand.wrong_decisions),
        ):
            table.add_row(
                Text(name, self.style("label" if name[0] != " " else "muted")), count(b), count(c)
            )
        for outcome in WRONG_WORST_FIRST:
            table.add_row(
                Text(f"  {outcome_label(outcome)}", self.style(outcome)),
                count(summaries["baseline"].counts[outcome]),
                count(summaries["candidate"].counts[outcome]),
            )
        return Group(table, self._histogram())

    def _histogram(self) -> RenderableType:
        summaries = self.comparison.result.outcomes
        histograms = {arm: summaries[arm].reconciliation.red_by_wrong for arm in ARMS}
        ks = sorted(set(histograms["baseline"]) | set(histograms["candidate"]))
        title = Text("red cases by wrong decisions held", self.style("label"))
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
