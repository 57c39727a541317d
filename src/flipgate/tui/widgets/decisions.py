"""A case's decisions and checks, rule by rule, across every repetition of both arms.

Each cell is the label given plus the outcome's code (`escalate INC`), coloured by outcome; the
repetition in focus is marked in the header, and the reason each arm gave in it stands at the end
of the arm's row, beside the verdicts it explains. The codes are spelled out in the section's title.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from flipgate.core.gate.outcomes import OUTCOME_WORDS, SEVERITY
from flipgate.core.vocab import ARMS
from flipgate.present.casefile import CaseDetail, RuleLine, Verdict
from flipgate.present.cause import fold, wrong_first
from flipgate.tui.format import OUTCOME_CODE, literal, middle, safe
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


COMPACT = 100  # below this many columns the rule names are cut sooner and the arms abbreviated
ARM_SHORT = {"baseline": "base", "candidate": "cand"}
REASON_CELL = (4, 240)  # lines, characters of a reason in the table; the cause above holds it whole


@dataclass(frozen=True)
class DecisionsTable:
    """The table laid out for the width it is given: on a narrow terminal the reasons keep the
    room to stay readable beside the verdicts."""

    detail: CaseDetail
    focus: int
    palette: Palette

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        compact = options.max_width < COMPACT
        yield decisions_table(self.detail, self.focus, self.palette, compact=compact)


def decisions_table(
    detail: CaseDetail, focus: int, palette: Palette, *, compact: bool = False
) -> Table:
    """One row per rule and arm, the rules the candidate gets wrong first, one column per
    repetition, then the reason given in the repetition in focus; the reason column takes what
    width is left and wraps at spaces. A rule name too long is cut in its middle, never wrapped."""
    table = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    longest = max((len(safe(line.rule)) for line in detail.lines), default=4)
    width = min(14 if compact else 24, longest)
    table.add_column("rule", no_wrap=True, width=max(width, 4))
    table.add_column("expected", overflow="fold", min_width=8)
    table.add_column("arm", no_wrap=True)
    for i, rep in enumerate(detail.reps):
        table.add_column(f"▸rep {rep}" if i == focus else f"rep {rep}", no_wrap=True)
    table.add_column(f"reason in rep {detail.reps[focus]}", overflow="fold", ratio=1, min_width=12)
    for line in wrong_first(detail.lines):
        # a rule with a wrong verdict in either arm stands out from the agreeing ones
        style = palette.bad if any(line.wrong(a) for a in ARMS) else ""
        rule = Text(middle(safe(line.rule), width), style)
        for arm in ARMS:
            cells: list[RenderableType] = (
                [rule, literal(line.expected)] if arm == ARMS[0] else ["", ""]
            )
            cells.append(Text(ARM_SHORT[arm] if compact else arm, style=palette.muted))
            for i, verdict in enumerate(line.verdicts[arm]):
                slot = detail.rep(arm, i)
                cell = verdict_cell(verdict, slot is not None and slot.status == "infra", palette)
                if i == focus:
                    cell.stylize("underline")
                cells.append(cell)
            cells.append(reason_cell(line.verdicts[arm][focus], palette, compact=compact))
            table.add_row(*cells, end_section=arm == ARMS[-1])
    return table


def reason_cell(verdict: Verdict | None, palette: Palette, *, compact: bool = False) -> Text:
    """The reason, folded; narrow, one line cut with an ellipsis (the cause above and `o` hold
    it whole), so that a column a dozen cells wide does not stand a reason on end."""
    if verdict is None or not verdict.reason:
        return Text("—", style=palette.muted)
    if compact:
        return Text(safe(verdict.reason), no_wrap=True, overflow="ellipsis")
    lines, chars = REASON_CELL
    folded = fold(verdict.reason, lines=lines, chars=chars)
    cell = literal(folded.kept, lines=True)
    if not folded.whole:
        cell.append(f" … {folded.hidden:,} more characters", palette.muted)
    return cell


def legend(lines: tuple[RuleLine, ...]) -> str:
    """The outcome codes that appear in the table, spelled out: `FN false negative · OK agreement`."""
    seen = {v.outcome for line in lines for arm in ARMS for v in line.verdicts[arm] if v}
    return " · ".join(
        f"{OUTCOME_CODE[outcome]} {OUTCOME_WORDS[outcome]}"
        for outcome in SEVERITY
        if outcome in seen
    )


class DecisionsView(Static):
    """Decisions and checks of one case; redrawn when the repetition in focus moves."""

    DEFAULT_CSS = """
    DecisionsView { height: auto; padding: 0 1; }
    """

    def show(self, detail: CaseDetail, focus: int) -> None:
        palette = Palette.of(self.app)
        if not detail.lines:
            self.border_title = "decisions and checks"
            self.update(Text("no decisions or checks (every repetition is infra)", "dim"))
            return
        codes = legend(detail.lines)
        self.border_title = "decisions and checks" + (f"  ({codes})" if codes else "")
        self.update(DecisionsTable(detail, focus, palette))
