"""The footer line: the keys that work on the current screen, each one clickable.

Textual's `Footer` mounts one widget per key, and mounts them all again whenever the bindings
change, on hidden screens too. Bindings change several times as a screen opens, so on the case
drill-down the footers cost more than drawing everything else. This bar shows the same bindings
(the screen's active ones marked `show`, one per action, the command palette on the right) as one
line of text, redrawn in place without a new layout.
"""

from __future__ import annotations

from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

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
        keys: dict[str, Content] = {}
        palette: Content | None = None
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
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
                keys[binding.action] = entry
        if palette is None or not self.app.ENABLE_COMMAND_PALETTE:
            return _fit(keys, self.size.width)
        room = self.size.width - palette.cell_length - 1
        line = _fit(keys, room)
        return Content.assemble(line, " " * max(1, room + 1 - line.cell_length), palette)


def _fit(keys: dict[str, Content], room: int) -> Content:
    """As many keys as fit, from the left, then `…` and help, where every key is listed."""

    def line(actions: list[str], cut: bool) -> Content:
        parts = [keys[a] for a in actions if a not in HELP_ACTIONS]
        if cut:
            parts.append(Content(" … "))
        parts += [keys[a] for a in actions if a in HELP_ACTIONS]
        return Content("").join(parts)

    shown = list(keys)
    fitted = line(shown, cut=False)
    while fitted.cell_length > room and (droppable := [a for a in shown if a not in HELP_ACTIONS]):
        shown.remove(droppable[-1])
        fitted = line(shown, cut=True)
    return fitted
