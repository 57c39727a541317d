"""The footer line: the keys that work on the current screen, each one clickable.

Textual's `Footer` mounts one widget per key, and mounts them all again whenever the bindings
change, on hidden screens too. Bindings change several times as a screen opens, so on the case
drill-down the footers cost more than drawing everything else. This bar shows the same bindings
(the screen's active ones marked `show`, one per action, the command palette on the right) as one
line of text, redrawn in place without a new layout.

When the line is too short for every key, the keys of the lowest priority go first (`bindings.
priority`: what the screen is for stays, then what a reviewer does often), the last of a
priority before the first; a key is shown whole or not at all, and help (`?`, which lists
every key) always stays. A screen names in `FOOTER_FIRST` the app-wide keys (binding ids) that are
what it is for there, of the first priority on it (calibration: `x`, its table exported).
"""

from __future__ import annotations

from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

from flipgate.tui.bindings import priority

PALETTE_ACTIONS = ("command_palette", "app.command_palette")
HELP_ACTIONS = ("help", "app.help")


class KeyBar(Widget):
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom; height: 1;
        background: $footer-background; color: $footer-description-foreground;
        link-color: $footer-description-foreground; link-style: none;
        link-background-hover: $footer-item-background; link-style-hover: reverse;
    }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.refresh()

    def render(self) -> Content:
        keys: dict[str, tuple[Content, int]] = {}
        palette: Content | None = None
        offers = getattr(self.screen, "offers", None)  # a screen may leave out keys of no use now
        first = getattr(self.screen, "FOOTER_FIRST", ())  # and raise an app-wide key it is for
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if offers is not None and not offers(binding.action):
                continue
            click = Style.from_meta({"@click": f"app.simulate_key({binding.key!r})"})
            entry = Content.assemble(
                (f" {self.app.get_key_display(binding)} ", "bold $footer-key-foreground"),
                (f"{binding.description} ", ""),
            ).stylize(click)
            if not enabled:
                entry = entry.stylize("dim")
            if binding.action in PALETTE_ACTIONS:
                palette = entry
            elif binding.show and binding.action not in keys:
                rank = 0 if binding.action in HELP_ACTIONS else priority(binding.id, first)
                keys[binding.action] = (entry, rank)
        if palette is None or not self.app.ENABLE_COMMAND_PALETTE:
            return fit(keys, self.size.width)
        room = self.size.width - palette.cell_length - 1
        line = fit(keys, room)
        return Content.assemble(line, " " * max(1, room + 1 - line.cell_length), palette)


def fit(keys: dict[str, tuple[Content, int]], room: int) -> Content:
    """The keys that fit in `room` cells, in their order, the lowest priority left out first;
    help (rank 0) last on the line and never left out."""
    shown = sorted(keys, key=lambda action: keys[action][1] == 0)  # help to the end
    dropping = sorted(shown, key=lambda action: (keys[action][1], shown.index(action)))

    def line() -> Content:
        return Content("").join(keys[action][0] for action in shown)

    fitted = line()
    while fitted.cell_length > room and dropping and keys[dropping[-1]][1] > 0:
        shown.remove(dropping.pop())
        fitted = line()
    return fitted
