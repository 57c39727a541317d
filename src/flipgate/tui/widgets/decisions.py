"""A case's decisions and checks, rule by rule, across every repetition of both arms.

Each cell is the label given plus the outcome's code (`escalate INC`), coloured by outcome; the
repetition in focus is marked in the header, and the reasons given in it are listed underneath.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from flipgate.core.gate.outcomes import SEVERITY
from flipgate.core.vocab import ARMS
from flipgate.present.casefile import CaseDetail, RuleLine, Verdict
from flipgate.tui.format import OUTCOME_CODE, OUTCOME_WORDS, literal
from flipgate.tui.widgets.case_format import Palette

CHECK_CODE = {"pass": "✓", "fail": "✗ FAIL"}


def verdict_cell(verdict: Verdict | None, infra: bool, palette: Palette) -> Text:
    if verdict is None:
        return Text("· infra" if infra else "—", style=palette.muted)
    if verdict.outcome in CHECK_CODE:
        return Text(CHECK_CODE[verdict.outcome], style=palette.outcome(verdict.outcome))
    text = literal(verdict.actual)
    text.append(f" {OUTCOME_CODE[verdict.outcome]}")
    text.stylize(palette.outcome(verdict.outcome))
    return text


def decisions_table(detail: CaseDetail, focus: int, palette: Palette) -> Table:
    """One row per rule and arm, one column per repetition: narrow enough for 80 columns."""
    table = Table(expand=False, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("rule", overflow="fold", max_width=24)
    table.add_column("expected", overflow="fold", min_width=8)
    table.add_column("arm")
    for i, rep in enumerate(detail.reps):
        table.add_column(f"▸rep {rep}" if i == focus else f"rep {rep}", overflow="fold")
    for line in detail.lines:
        # a rule with a wrong verdict in either arm stands out from the agreeing ones
        rule = literal(line.rule, palette.bad if any(line.wrong(a) for a in ARMS) else "")
        for arm in ARMS:
            cells: list[RenderableType] = (
                [rule, literal(line.expected)] if arm == ARMS[0] else ["", ""]
            )
            cells.append(Text(arm, style=palette.muted))
            for i, verdict in enumerate(line.verdicts[arm]):
                slot = detail.rep(arm, i)
                cell = verdict_cell(verdict, slot is not None and slot.status == "infra", palette)
                if i == focus:
                    cell.stylize("underline")
                cells.append(cell)
            table.add_row(*cells, end_section=arm == ARMS[-1])
    return table


def reasons(detail: CaseDetail, focus: int, palette: Palette) -> Text:
    """The reasons given in the repetition in focus, where a rule has one."""
    out = Text()
    for line in detail.lines:
        for arm in ARMS:
            verdict = line.verdicts[arm][focus]
            if verdict is None or not verdict.reason:
                continue
            out.append(f"{arm} ", style=palette.muted)
            out.append_text(literal(line.rule, "bold"))
            out.append(": ")
            out.append_text(literal(verdict.reason))
            out.append("\n")
    if not out:
        out.append(f"no reasons given in rep {detail.reps[focus]}", style=palette.muted)
    out.rstrip()
    return out


def legend(lines: tuple[RuleLine, ...], palette: Palette) -> Text:
    """The outcome codes that appear in the table, spelled out."""
    seen = {v.outcome for line in lines for arm in ARMS for v in line.verdicts[arm] if v}
    out = Text()
    for outcome in SEVERITY:
        if outcome in seen:
            out.append(
                f"{OUTCOME_CODE[outcome]} {OUTCOME_WORDS[outcome]}", palette.outcome(outcome)
            )
            out.append("  ")
    out.rstrip()
    return out


class DecisionsView(Static):
    """Decisions and checks of one case; redrawn when the repetition in focus moves."""

    DEFAULT_CSS = """
    DecisionsView { height: auto; padding: 0 1; }
    """

    def show(self, detail: CaseDetail, focus: int) -> None:
        palette = Palette.of(self.app)
        if not detail.lines:
            self.update(Text("no decisions or checks (every repetition is infra)", "dim"))
            return
        self.update(
            Group(
                decisions_table(detail, focus, palette),
                legend(detail.lines, palette),
                reasons(detail, focus, palette),
            )
        )
