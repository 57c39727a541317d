"""The verdict banner: what the gate decided, which rule fired, and the numbers beside it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.core.gate.mcnemar import format_p
from flipgate.core.gate.rules import BY_NAME
from flipgate.core.gate.spec import describe
from flipgate.tui.format import VERDICT_SYMBOL, case_ids, count, literal
from flipgate.tui.widgets.panel import Panel

SAFETY_SHOWN = 12  # failed safety cases named in the banner; the red-case table holds them all


class VerdictBanner(Panel):
    TITLE = "verdict"
    DEFAULT_CSS = """
    VerdictBanner { padding: 0 2; }
    """

    def on_mount(self) -> None:
        self.add_class(f"-{self.comparison.result.verdict.lower()}")

    def render(self) -> RenderableType:
        result = self.comparison.result
        head = Text()
        head.append(f" {VERDICT_SYMBOL[result.verdict]} {result.verdict} ", self.style("heading"))
        fired = BY_NAME[result.rule]
        rule = f"rule {fired.number} · {fired.says}"
        # Side by side when it fits, else the rule on a line of its own rather than broken.
        fits = head.cell_len + 3 + len(rule) <= self.content_size.width
        head.append("   " if fits else "\n")
        head.append(rule, self.style("label"))
        lines: list[RenderableType] = [head, literal(result.summary)]

        numbers = Text()
        for name, value, style in (
            ("b", count(result.b), "b"),
            ("c", count(result.c), "c"),
            ("net b - c", f"{result.b - result.c:+,}" if result.b != result.c else "0", ""),
            ("margin", str(result.margin), ""),
            ("flip cap", str(result.flip_cap), ""),
            ("alpha", f"{result.alpha:g}", ""),
            ("p", format_p(result.p), ""),
        ):
            numbers.append(f"{name} ", self.style("muted"))
            numbers.append(value, self.style(style) if style else "")
            numbers.append("   ")
        lines.append(numbers)
        lines.append(Text(describe(self.comparison.spec), self.style("muted")))

        if result.safety_failures:
            line = Text("⚠ safety failures: ", self.style("warn"))
            lines.append(line.append_text(case_ids(result.safety_failures, SAFETY_SHOWN)))
        for title, items in (
            ("invalid", result.invalid_reasons),
            ("limit breached", result.limit_breaches),
            ("warning", result.warnings),
        ):
            for item in items:
                line = Text(f"⚠ {title}: ", self.style("warn"))
                lines.append(line.append_text(literal(item)))
        if result.previous is not None:
            before = result.previous
            lines.append(
                Text(
                    f"after the rerun · first verdict was {before.verdict} "
                    f"(b {before.b}, c {before.c}, p {format_p(before.p)})",
                    self.style("muted"),
                )
            )
        return Group(*lines)
