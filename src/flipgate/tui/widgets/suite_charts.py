"""The suite-health pictures: coverage bars, the case-age histogram, rejection reasons, the
counterfactual table; each followed by its findings in words, the same lines the audit prints.

Charts render on every refresh from the audit, so a theme switch or a resize redraws them; bar
lengths follow the widget's width.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

from flipgate.core.suite.audit import SuiteAudit
from flipgate.present.numbers import percent_beside
from flipgate.present.suite_findings import READING_WORDS, Section
from flipgate.tui.format import literal

STYLES = ("traffic", "cases", "flag", "muted", "heading")
BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float, most: float, width: int) -> str:
    """`value` of `most` as a bar of `width` cells, to an eighth of a cell."""
    if most <= 0 or width <= 0:
        return ""
    eighths = round(max(0.0, min(value / most, 1.0)) * width * 8)
    full, part = divmod(eighths, 8)
    return "█" * full + (BLOCKS[part] if part else "")


class SuiteChart(Widget):
    """A bordered box: a picture of one diagnostic, then its findings as text."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"chart--{name}" for name in STYLES}
    # `chart--muted` is each theme's own: `$text-muted` is worked out against a background that
    # a component style lacks, and came out white on the light theme's white.
    DEFAULT_CSS = """
    SuiteChart { height: auto; padding: 0 1; border: round $panel-lighten-2; }
    SuiteChart > .chart--traffic { color: $primary; }
    SuiteChart > .chart--cases { color: $success; }
    SuiteChart > .chart--flag { color: $error; text-style: bold; }
    SuiteChart > .chart--heading { text-style: bold; }
    """

    def __init__(self, audit: SuiteAudit, section: Section, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.audit = audit
        self.section = section
        self.border_title = section.title

    def style(self, name: str) -> Style:
        """The theme's style for `name`; the empty name is the plain style."""
        return self.get_component_rich_style(f"chart--{name}", partial=True) if name else Style()

    @property
    def width(self) -> int:
        return max(self.size.width, 40)

    def picture(self) -> RenderableType | None:
        return None

    def render(self) -> RenderableType:
        picture = self.picture()
        lines = [
            Text.assemble(
                (f"{line.flag} ", self.style("flag")) if line.flag else "", literal(line.text)
            )
            for line in self.section.lines
            if not (line.row and picture is not None)  # the picture holds that row, as text
        ]
        return Group(picture, Text(""), *lines) if picture is not None else Group(*lines)


class CoverageChart(SuiteChart):
    """Per intent: its share of traffic beside its live cases; a gap in the flag colour."""

    def picture(self) -> RenderableType | None:
        cov = self.audit.coverage
        if cov is None:
            return None
        rows = cov.intents.select("intent", "share", "cases", "covered").rows()
        name_width = min(max(len(r[0]) for r in rows), 18)
        bars = max((self.width - name_width - 20) // 2, 4)
        most_share = max(r[1] for r in rows)
        most_cases = max(max(r[2] for r in rows), cov.min_cases)
        table = Table.grid(padding=(0, 1))
        table.add_column(width=name_width, no_wrap=True, overflow="ellipsis")
        table.add_column(width=bars, no_wrap=True)
        table.add_column(justify="right", width=5)
        table.add_column(width=bars, no_wrap=True)
        table.add_column(justify="right", width=4)
        table.add_row(
            Text("intent", self.style("muted")),
            Text("traffic share", self.style("traffic")),
            "",
            Text("live cases", self.style("cases")),
            "",
        )
        for intent, share, cases, covered in rows:
            table.add_row(
                literal(intent, self.style("") if covered else self.style("flag")),
                Text(bar(share, most_share, bars), self.style("traffic")),
                Text(percent_beside(share)),
                Text(bar(cases, most_cases, bars) or "·", self.style("cases")),
                Text(f"{cases}", self.style("") if covered else self.style("flag")),
            )
        return table


class AgeHistogram(SuiteChart):
    """Live cases by age in whole months, oldest at the bottom, as the suite was written."""

    def picture(self) -> RenderableType | None:
        age = self.audit.age
        if age is None:
            return None
        rows = age.histogram.rows()
        most = max(n for _, n in rows) or 1
        table = Table.grid(padding=(0, 1))
        table.add_column(justify="right", width=6)
        table.add_column(width=max(self.width - 16, 4), no_wrap=True)
        table.add_column(justify="right", width=4)
        table.add_row(Text("age", self.style("muted")), Text("live cases", self.style("muted")), "")
        for months, n in rows:
            table.add_row(
                Text(f"{months} mo"),
                Text(bar(n, most, max(self.width - 16, 4)), self.style("cases")),
                Text(f"{n}"),
            )
        return table


class RejectionChart(SuiteChart):
    """The signed rejections by the gate rule that fired."""

    def picture(self) -> RenderableType | None:
        rules = self.audit.rejections.by_rule.rows()
        if not rules:
            return None
        most = max(n for _, n in rules)
        width = max(self.width - 26, 4)
        table = Table.grid(padding=(0, 1))
        table.add_column(width=16, no_wrap=True, overflow="ellipsis")
        table.add_column(width=width, no_wrap=True)
        table.add_column(justify="right", width=4)
        one = self.audit.rejections.one_rule
        for rule, n in rules:
            style = self.style("flag") if rule == one else self.style("traffic")
            table.add_row(literal(rule), Text(bar(n, most, width), style), Text(f"{n}"))
        return table


class CounterfactualTable(SuiteChart):
    """Each system's oldest run: its score then and against today's suite, on the overlap."""

    def picture(self) -> RenderableType | None:
        cf = self.audit.counterfactual
        if cf is None or not cf.rescores:
            return None
        table = Table(box=None, padding=(0, 1), header_style=self.style("muted"))
        for name, justify in (
            ("system", "left"),
            ("run on", "left"),
            ("suite", "left"),
            ("then", "right"),
            ("now", "right"),
            ("overlap", "right"),
            ("reading", "left"),
        ):
            table.add_column(name, justify=justify, no_wrap=name != "reading")  # type: ignore[arg-type]
        for r in cf.rescores:
            moved = r.reading == "bar_moved"
            table.add_row(
                literal(r.system),
                Text(str(r.created or "-")),
                literal(r.version or "-"),
                Text(f"{r.score_then:.3f}"),
                Text("-" if r.score_now is None else f"{r.score_now:.3f}", self.style("heading")),
                Text(f"{r.overlap}/{r.cases_then}"),
                Text(
                    READING_WORDS[r.reading], self.style("cases") if moved else self.style("flag")
                ),
            )
        return table
