"""The judge alone (issue 23 item 2): each arm's stored outputs judged again (`rejudged/`), each
rule's flip rate with its interval and the cases unstable under the judge, worded as the report
words them (`present/judge.py`)."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.present.judge import judge_lines
from flipgate.present.text import literal
from flipgate.tui.widgets.panel import Panel


class JudgePanel(Panel):
    TITLE = "the judge alone · the same outputs judged again"

    def render(self) -> RenderableType:
        lines: list[RenderableType] = []
        for repeats in self.comparison.judge_repeats:
            first, *rest = judge_lines(repeats)
            lines.append(literal(first, self.style("label")))
            lines += [literal(line, self.style("muted")) for line in rest]
        return Group(*lines) if lines else Text("")
