"""The verdict banner: what the gate decided, which rule fired, and the numbers beside it."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.core.gate.mcnemar import format_p
from flipgate.core.gate.rules import BY_NAME
from flipgate.core.gate.stats import Effect
from flipgate.present.numbers import p_beside, signed_points
from flipgate.present.reasons import gate_words, sentence, summary
from flipgate.present.report import (
    ALLOW_PARTIAL_NOTE,
    boundary_words,
    found,
    ledger_words,
    worth_line,
)
from flipgate.tui.format import VERDICT_SYMBOL, case_ids, count, literal
from flipgate.tui.widgets.panel import Panel, one_line

SAFETY_SHOWN = 12  # failed safety cases named in the banner; the red-case table holds them all
BANNER_WORDS = {"outcome_limit": "limit breached"}  # where the banner words it otherwise


def _effect(effect: Effect | None) -> str:
    """`-3.0 pts [-7.1, +0.5]`: the paired change in pass rate and its interval at the test's
    level (each bound keeps its sign)."""
    if effect is None:
        return "—"
    return f"{effect.points:+.1f} pts [{signed_points(effect.low)}, {signed_points(effect.high)}]"


class VerdictBanner(Panel):
    TITLE = "verdict"
    DEFAULT_CSS = """
    VerdictBanner { padding: 0 2; }
    """

    def on_mount(self) -> None:
        self.add_class(f"-{self.comparison.result.verdict.lower()}")

    def render(self) -> RenderableType:
        if self.short:
            return Group(*(one_line(line) for line in self._gist()))
        result = self.comparison.result
        head = Text()
        head.append(f" {VERDICT_SYMBOL[result.verdict]} {result.verdict} ", self.style("heading"))
        fired = BY_NAME[result.rule]
        fired_line = f"rule {fired.number} · {fired.says}"
        # Side by side when it fits, else the rule on a line of its own rather than broken.
        fits = head.cell_len + 3 + len(fired_line) <= self.content_size.width
        head.append("   " if fits else "\n")
        head.append(fired_line, self.style("label"))
        lines: list[RenderableType] = [head, literal(summary(result))]

        numbers = Text()
        for name, value, style in (
            ("b", count(result.b), "b"),
            ("c", count(result.c), "c"),
            ("net b - c", f"{result.b - result.c:+,}" if result.b != result.c else "0", ""),
            ("margin", str(result.margin), ""),
            ("flip cap", str(result.flip_cap), ""),
            ("alpha", f"{result.alpha:g}", ""),
            (*boundary_words(result), ""),
            (
                "p" + (" by template" if result.p_by == "template" else ""),
                p_beside(result.p, result.blocks_at),
                "",
            ),
            ("effect", _effect(result.effect), ""),
        ):
            numbers.append(f"{name} ", self.style("muted"))
            numbers.append(value, self.style(style) if style else "")
            numbers.append("   ")
        lines.append(numbers)
        if worth := worth_line(
            result, brief=True
        ):  # what a pass is worth, before anyone reads it as safe
            lines.append(
                Text("what this PASS is worth: ", self.style("label")).append(
                    worth, self.style("warn")
                )
            )
        lines.append(Text(gate_words(self.comparison.spec), self.style("muted")))
        ledger = result.ledger
        if result.unpaired or not ledger.whole or not ledger.balanced:  # the ledger panel has all
            arms = " · ".join(ledger_words(arm, found) for arm, found in ledger.arms.items())
            lines.append(Text("ledger: ", self.style("label")).append_text(literal(arms)))
        if result.allow_partial:
            lines.append(Text(ALLOW_PARTIAL_NOTE, self.style("warn")))

        warn = self.style("warn")
        for what in found(result):
            words = f"⚠ {BANNER_WORDS.get(what.rule.name, what.heading)}: "
            lines.extend(Text(words, warn).append_text(literal(sentence(r))) for r in what.reasons)
            if what.cases:
                lines.append(Text(words, warn).append_text(case_ids(what.cases, SAFETY_SHOWN)))
        for warning in result.warnings:
            lines.append(Text("⚠ warning: ", warn).append_text(literal(sentence(warning))))
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

    def _gist(self) -> list[Text]:
        """Three lines: the verdict and why, the numbers it rests on (each name beside its value),
        and the first warning or finding (all of them on a taller terminal, and under `?`)."""
        result = self.comparison.result
        head = Text(f" {VERDICT_SYMBOL[result.verdict]} {result.verdict} ", self.style("heading"))
        head.append(" ")
        head.append_text(literal(summary(result).removeprefix(f"{result.verdict}: ")))
        numbers = Text()
        p_name = "p" + (" by template" if result.p_by == "template" else "")
        for name, value in (
            ("b", count(result.b)),
            ("c", count(result.c)),
            ("net", f"{result.b - result.c:+,}" if result.b != result.c else "0"),
            ("margin", str(result.margin)),
            ("flip cap", str(result.flip_cap)),
            (p_name, p_beside(result.p, result.blocks_at)),
            ("effect", _effect(result.effect)),
        ):
            numbers.append(f"{name}\N{NO-BREAK SPACE}", self.style("muted"))
            numbers.append(value.replace(" ", "\N{NO-BREAK SPACE}"))
            numbers.append("  ")
        warn = self.style("warn")
        notes = [
            Text(f"⚠ {BANNER_WORDS.get(what.rule.name, what.heading)}: ", warn).append_text(
                literal(sentence(what.reasons[0]) if what.reasons else ", ".join(what.cases))
            )
            for what in found(result)
        ] + [Text("⚠ warning: ", warn).append_text(literal(sentence(w))) for w in result.warnings]
        third = notes[0] if notes else Text(gate_words(self.comparison.spec), self.style("muted"))
        if len(notes) > 1:
            third = Text(f"(+{len(notes) - 1} more) ", warn).append_text(third)
        return [head, numbers, third]
