"""The command palette: the app's commands, from the same binding list as the footer and help."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

from flipgate.tui.bindings import palette_entries, shown_keys

if TYPE_CHECKING:
    from flipgate.tui.app import FlipgateApp

Command = tuple[str, Callable[[], object], str]


class FlipgateCommands(Provider):
    """Switch theme, open red cases, search, export the rerun plan, help, quit."""

    def _commands(self) -> list[Command]:
        from flipgate.tui.themes import THEMES

        app = cast("FlipgateApp", self.app)
        themes: list[Command] = [
            (f"Theme: {name}", partial(app.use_theme, name), f"switch to the {name} theme")
            for name in THEMES
            if name != app.flipgate_theme
        ]
        screen: list[Command] = []
        everywhere: list[Command] = []
        for entry in palette_entries():
            if entry.screen == "app":
                run, into = partial(app.run_action, entry.action), everywhere
            elif hasattr(self.screen, f"action_{entry.action}"):
                run, into = partial(app.run_action, entry.action, self.screen), screen
            else:
                continue  # that command belongs to a screen that is not open
            into.append((entry.description, run, f"key {shown_keys(app, entry.id)}"))
        # What this screen offers first, then the themes, then help and quit.
        return screen + themes + everywhere

    async def discover(self) -> Hits:
        for name, run, help_text in self._commands():
            yield DiscoveryHit(name, run, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:
        matcher = self.matcher(query)
        for name, run, help_text in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), run, help=help_text)
