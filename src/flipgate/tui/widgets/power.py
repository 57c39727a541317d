"""How big the change is and what the gate can see: the effect with its interval, each verdict's
chances for a true regression of 1, 2, 3 and 5 points, what a PASS is worth, and the flips per
template (enter opens the red cases of the template they crowd into)."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.mcnemar import format_p
from flipgate.core.plural import plural
from flipgate.present.numbers import percent, signed_points
from flipgate.present.reasons import sentence
from flipgate.present.report import effect_method, never_event_brief, power_rows
from flipgate.tui.format import literal
from flipgate.tui.widgets.panel import Panel

TEMPLATES_SHOWN = 3  # templates named inline; the red-case table filters by any of them


class PowerPanel(Panel):
    TITLE = "effect · what the gate can see"

    @property
    def drill_filter(self) -> str | None:
        top = self.comparison.result.clusters.concentrated
        return f"template:{top.template}" if top is not None else "pass_to_fail"

    def render(self) -> RenderableType:
        result = self.comparison.result
        lines: list[RenderableType] = []
        effect = Text("effect  ", self.style("label"))
        if result.effect is None:
            effect.append("none: no case was paired", self.style("muted"))
        else:
            e = result.effect
            effect.append(f"{e.points:+.1f} points", self.style("b" if e.points < 0 else "c"))
            effect.append(
                f"  {percent(e.level)} CI {signed_points(e.low)} to {signed_points(e.high)}"
            )
            effect.append(f"  {effect_method(e)}", self.style("muted"))
            lines.append(effect)
            effect = Text("rules out  ", self.style("label"))
            effect.append(
                f"a regression beyond {e.rules_out:.1f} points, at {percent(e.one_sided)} one-sided"
            )
        lines.append(effect)

        power = result.power
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), show_edge=False)
        table.add_column("true regression", no_wrap=True)
        for verdict in ("BLOCK", "INCONCLUSIVE", "PASS"):
            table.add_column(verdict, justify="right", no_wrap=True)
        for row in power_rows(result):
            table.add_row(*row)
        lines.append(table)
        clustered = f", design effect {power.design_effect:.2f}" if power.design_effect > 1 else ""
        reach = Text(
            f"{power.cases:,} cases, {power.flip_share:.1%} flipping{clustered}: ",
            self.style("muted"),
        )
        if power.smallest_blocked is not None:
            reach.append(
                f"blocked {power.power:.0%} of the time from -{power.smallest_blocked:g} points"
            )
        else:
            reach.append(f"no regression is blocked {power.power:.0%} of the time")
        lines.append(reach)

        if (bound := result.safety_bound) is not None:  # the never-event bound, met or not
            line = Text("safety  ", self.style("label"))
            lines.append(line.append(never_event_brief(bound)))
        if (tested := result.false_negatives) is not None and tested.clusters:
            line = Text("false negatives  ", self.style("label"))
            lines.append(line.append_text(literal(sentence(tested))))

        clusters = result.clusters
        if clusters.templates:
            line = Text("templates  ", self.style("label"))
            line.append(
                f"{plural(clusters.flips, 'flip')} from {clusters.clusters:,}"
                f" · p {format_p(clusters.p_by_case)}"
                f" by case, {format_p(clusters.p_by_template)} by template"
            )
            lines.append(line)
            named = Text("  ")
            for i, t in enumerate(clusters.templates[:TEMPLATES_SHOWN]):
                named.append(" · " if i else "")
                named.append_text(literal(t.template))
                named.append(f" {t.broke}↓ {t.fixed}↑", self.style("muted"))
            if len(clusters.templates) > TEMPLATES_SHOWN:
                named.append(
                    f" · {len(clusters.templates) - TEMPLATES_SHOWN} more", self.style("muted")
                )
            lines.append(named)
            top = clusters.concentrated
            if top is not None:
                warn = Text("⚠ ", self.style("warn"))
                warn.append_text(literal(top.template))
                warn.append(
                    f" holds {top.flips} of {clusters.flips} flips: cloned cases (enter lists them)",
                    self.style("warn"),
                )
                lines.append(warn)
        return Group(*lines)
