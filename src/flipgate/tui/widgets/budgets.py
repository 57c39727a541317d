"""The second metrics' budgets (SPEC §3 `budgets`): every budget, met or not, in words."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.present.reasons import sentence
from flipgate.tui.format import literal
from flipgate.tui.widgets.panel import Panel


class BudgetsPanel(Panel):
    TITLE = "second metrics · budgets"

    def render(self) -> RenderableType:
        lines: list[RenderableType] = []
        for check in self.comparison.result.budgets:
            mark = Text(
                "✗ over  " if check.exceeded else "✓ met   ",
                self.style("fail" if check.exceeded else "pass"),
            )
            lines.append(mark.append_text(literal(sentence(check))))
        lines.append(Text("over the gradable repetitions of the paired cases", self.style("muted")))
        return Group(*lines)
