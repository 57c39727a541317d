"""The cache-key diff: what each run measured, which components moved, and whether the declared
change covers the move (a move outside it is a stale baseline)."""

from __future__ import annotations

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.runs.key import key_components
from flipgate.tui.format import literal, middle, safe
from flipgate.tui.widgets.panel import Panel


class KeyDiff(Panel):
    TITLE = "cache key · what each run measured"

    def render(self) -> RenderableType:
        comparison = self.comparison
        base, cand = comparison.baseline.key, comparison.candidate.key
        declared = comparison.result.declared_change
        table = Table(box=box.SIMPLE_HEAD, padding=(0, 1), expand=True, show_edge=False)
        table.add_column("component", style=self.style("label"), no_wrap=True)
        # Values take the spare width. A value too long (a digest, a dated judge) is cut in its
        # middle, both ends kept, never wrapped mid-token where the rest reads as another value;
        # focused, the panel shows every value whole, folded.
        table.add_column("baseline", overflow="fold", ratio=1)
        table.add_column("candidate", overflow="fold", ratio=1)
        components = key_components(base, cand)
        name_width = max((len(safe(c.name)) for c in components), default=9)
        room = max(8, (self.content_size.width - name_width - len("✗ no: stale") - 16) // 2)

        def value(text: str) -> Text:
            return literal(text) if self.has_focus else Text(middle(safe(text), room))

        table.add_column("moved", no_wrap=True)
        table.add_column("declared", no_wrap=True)
        for component in components:
            if not component.moved:
                verdict = Text("·", self.style("muted"))
            elif component.name in declared:
                verdict = Text("✓ yes", self.style("pass"))
            else:
                verdict = Text("✗ no: stale", self.style("warn"))
            table.add_row(
                literal(component.name),
                value(component.shown_before),
                value(component.shown_after),
                Text("≠ yes", self.style("moved"))
                if component.moved
                else Text("= no", self.style("muted")),
                verdict,
            )
        change = Text("declared change: ", self.style("muted"))
        change.append_text(literal(", ".join(declared) if declared else "none"))
        if comparison.candidate.change_summary:
            change.append(" · ", self.style("muted"))
            change.append_text(literal(comparison.candidate.change_summary))
        return Group(table, change)
