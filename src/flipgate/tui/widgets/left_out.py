"""What the flip count leaves out: infra failures per arm; the case ledger, the flaky-listed, the
retired and the cases not paired."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.plural import plural
from flipgate.core.vocab import ARMS
from flipgate.present.report import (
    ALLOW_PARTIAL_NOTE,
    NOT_BALANCED,
    ledger_words,
    left_out_groups,
    run_words,
)
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
    """The case ledger: each arm's cases by state, then what is left out of b and c and why:
    the flaky list, the retired cases, the cases not paired."""

    TITLE = "ledger · left out of b and c"

    @property
    def drill_filter(self) -> str:
        return "unpaired"

    def render(self) -> RenderableType:
        result = self.comparison.result
        grid = Table.grid(padding=(0, 1))
        grid.add_column(width=LABEL_WIDTH - 1, style=self.style("label"), no_wrap=True)
        grid.add_column(ratio=1)
        for i, (arm, ledger) in enumerate(result.ledger.arms.items()):
            grid.add_row("ledger" if i == 0 else "", literal(ledger_words(arm, ledger)))
            if said := run_words(ledger):
                grid.add_row("", Text(said, self.style("warn")))
        if not result.ledger.balanced:
            grid.add_row("", Text(NOT_BALANCED, self.style("fail")))
        if result.allow_partial:
            grid.add_row("", Text(ALLOW_PARTIAL_NOTE, self.style("warn")))
        listed = f"{plural(len(result.flaky_listed), 'case')} listed"
        grid.add_row("flaky list", self._group(listed, result.flaky_flipped))
        for heading, cases in (
            ("flipped", result.flaky_flipped),
            ("in neither run", result.flaky_unknown),
        ):
            if cases:
                grid.add_row(
                    "",
                    Text(f"{heading}: ", self.style("muted")).append_text(case_ids(cases, SHOWN)),
                )
        if result.retired:  # the suite manifest's archive (suite.yaml)
            archived = f"{plural(len(result.retired), 'case')} in the suite's archive"
            grid.add_row("retired", self._group(archived, result.retired_flipped))
            for r in result.retired[:SHOWN]:
                line = Text(f"retired {r.retired}: ", self.style("muted"))
                grid.add_row("", line.append_text(literal(f"{r.case}, {r.reason}")))
            if len(result.retired) > SHOWN:
                grid.add_row(
                    "", Text(f"and {len(result.retired) - SHOWN} more", self.style("muted"))
                )
        grid.add_row("not paired", plural(len(result.unpaired), "case"))
        for heading, left in left_out_groups(result):
            line = literal(heading, style=self.style("muted"))
            line.append(f" ({count(len(left))}): ", self.style("muted"))
            grid.add_row("", line.append_text(case_ids(left, SHOWN)))
        return grid

    def _group(self, counted: str, flipped: tuple[str, ...]) -> Text:
        """A group of cases left out: `what is counted, K of them flipped`."""
        line = Text(f"{counted}, ")
        line.append(f"{len(flipped)} of them flipped", self.style("warn") if flipped else "")
        return line
