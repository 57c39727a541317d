"""Colours and small formats of the red-case table and the drill-down, beside `tui.format`.

Text read from a run goes through `tui.format.literal`; this module only adds the theme's colours
(resolved from the running app, so they follow a theme switch) and the repetition pattern.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import App


@dataclass(frozen=True)
class Palette:
    """The few colours the case screens use, resolved from the running app's theme."""

    good: Style
    bad: Style
    warn: Style
    muted: Style
    added: Style
    removed: Style
    hunk: Style
    cursor: Style  # the turn under the cursor in a trajectory

    @classmethod
    def of(cls, app: App[Any]) -> Palette:
        theme = app.theme_variables

        def colour(name: str, fallback: str) -> Style:
            return Style(color=theme.get(name, fallback))

        return cls(
            good=colour("text-success", "green"),
            bad=colour("text-error", "red"),
            warn=colour("text-warning", "yellow"),
            muted=Style(dim=True),
            added=Style(color=theme.get("text-success", "green"), bold=True),
            removed=Style(color=theme.get("text-error", "red"), bold=True),
            hunk=Style(color=theme.get("text-accent", theme.get("accent", "cyan"))),
            cursor=Style(bgcolor=theme.get("panel", "grey23")),
        )

    def outcome(self, name: str) -> Style:
        """Agreement and a passed check are quiet; a waved-through violation is loud."""
        if name in ("agreement", "pass"):
            return self.muted
        if name in ("false_negative", "mirror", "fail"):
            return self.bad
        return self.warn

    def direction(self, kind: str | None) -> Style:
        """A red case's direction by its code (`casefile.DIRECTIONS`): broke or failing in both
        is bad, fixed is good, the rest (unpaired, red only through a wrong decision) a warning."""
        if kind in ("pass_to_fail", "both_fail"):
            return self.bad
        if kind == "fail_to_pass":
            return self.good
        return self.warn


def rep_pattern(pattern: str, palette: Palette) -> Text:
    """`✓✗·` with each repetition coloured: pass, fail, infra."""
    colours = {"✓": palette.good, "✗": palette.bad}
    out = Text()
    for symbol in pattern:
        out.append(symbol, colours.get(symbol, palette.muted))
    return out


def metric(value: float | None, name: str) -> str:
    """A second metric in its own unit; a missing one as a dash."""
    if value is None:
        return "—"
    if name == "cost_usd":
        return f"${value:.4f}"
    if name == "latency_ms":
        return f"{value:,.0f} ms"
    return f"{value:,.1f}".removesuffix(".0")
