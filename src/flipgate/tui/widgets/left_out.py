"""What the flip count leaves out: infra failures per arm, flaky-listed, retired and unpaired cases."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.core.gate.pairing import Unpaired
from flipgate.core.plural import plural
from flipgate.core.vocab import ARMS
from flipgate.present.reasons import sentence
from flipgate.tui.format import case_ids, count, literal, share
from flipgate.tui.widgets.panel import Panel

SHOWN = 6  # ids listed inline; the red-case table holds the rest
LABEL_WIDTH = 12


class InfraPanel(Panel):
    TITLE = "infra failures · not graded"

    def render(self) -> RenderableType:
        result = self.comparison.result
        limit = self.comparison.spec.infra_max_share
        lines: list[RenderableType] = []
        for arm in ARMS:
            infra = result.infra[arm]
            over = infra.share > limit
            line = Text(f"{arm:<10}", self.style("label"))
            line.append(f"{plural(infra.count, 'repetition')} of {count(infra.reps)}  ")
            line.append(share(infra.count, infra.reps), self.style("warn" if over else ""))
            line.append("  ⚠ over the limit" if over else "", self.style("warn"))
            lines.append(line)
            if infra.by_kind:
                kinds = Text(" " * 10 + "by kind: ", self.style("muted"))
                kinds.append_text(
                    literal(" · ".join(f"{kind} {count(n)}" for kind, n in infra.by_kind.items()))
                )
                lines.append(kinds)
        lines.append(Text(f"limit {limit:.0%} of an arm's repetitions", self.style("muted")))
        return Group(*lines)


class LeftOutPanel(Panel):
    TITLE = "left out of b and c"

    @property
    def drill_filter(self) -> str:
        return "unpaired"

    def render(self) -> RenderableType:
        result = self.comparison.result
        listed = f"{plural(len(result.flaky_listed), 'case')} listed"
        lines: list[RenderableType] = [self._group("flaky list", listed, result.flaky_flipped)]
        for heading, cases in (
            ("flipped", result.flaky_flipped),
            ("in neither run", result.flaky_unknown),
        ):
            if cases:
                lines.append(
                    Text(f"  {heading}: ", self.style("muted")).append_text(case_ids(cases, SHOWN))
                )
        if result.retired:  # the suite manifest's archive (suite.yaml)
            archived = f"{plural(len(result.retired), 'case')} in the suite's archive"
            lines.append(self._group("retired", archived, result.retired_flipped))
            for r in result.retired[:SHOWN]:
                line = Text(f"  retired {r.retired}: ", self.style("muted"))
                lines.append(line.append_text(literal(f"{r.case}, {r.reason}")))
            if len(result.retired) > SHOWN:
                lines.append(Text(f"  and {len(result.retired) - SHOWN} more", self.style("muted")))
        unpaired = Text(f"{'unpaired':<{LABEL_WIDTH}}", self.style("label"))
        unpaired.append(plural(len(result.unpaired), "case"))
        lines.append(unpaired)
        states: dict[tuple[str, str], list[Unpaired]] = {}  # by state and arm, in order met
        for left in result.unpaired:
            states.setdefault((left.code, left.arm), []).append(left)
        for found in states.values():
            line = Text(f"  {sentence(found[0])} ({count(len(found))}): ", self.style("muted"))
            lines.append(line.append_text(case_ids([u.case for u in found], SHOWN)))
        return Group(*lines)

    def _group(self, label: str, counted: str, flipped: tuple[str, ...]) -> Text:
        """A group of cases left out: `label  what is counted, K of them flipped`."""
        line = Text(f"{label:<{LABEL_WIDTH}}", self.style("label"))
        line.append(f"{counted}, ")
        line.append(f"{len(flipped)} of them flipped", self.style("warn") if flipped else "")
        return line
