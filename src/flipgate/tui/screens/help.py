"""The help screen: every key binding, read from the one list in `bindings.py`, grouped by where
it applies, plus any binding the screen below adds on its own."""

from __future__ import annotations

from typing import ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from flipgate.tui.bindings import KEY_BINDINGS, KeyBinding, bindings_for

WHERE = {
    "app": "everywhere",
    "loading": "while loading",
    "overview": "gate overview",
    "matrix": "flip matrix",
    "confirm-plan": "rerun plan exists",
    "help": "this help",
}


def _display_key(key: str) -> str:
    return KeyBinding("", key, "", "", "").display_key


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("help")
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 90%; padding: 0 1;
    }
    """

    def __init__(self, beneath: Screen[object] | None = None) -> None:
        super().__init__()
        self.beneath = beneath

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "keys"
            scroll.border_subtitle = "esc to close"
            yield Static(self._table())

    def _table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False)
        table.add_column("key", no_wrap=True, style="bold")
        table.add_column("does")
        table.add_column("where", style="dim")
        for entry in KEY_BINDINGS:
            table.add_row(
                entry.display_key, entry.description, WHERE.get(entry.screen, entry.screen)
            )
        for key, description in self._extra_bindings():
            table.add_row(_display_key(key), description, "the screen below")
        return table

    def _extra_bindings(self) -> list[tuple[str, str]]:
        """Bindings of the screen below that the shared list does not hold (screens built later)."""
        if self.beneath is None:
            return []
        known = {entry.id for entry in KEY_BINDINGS}
        found: dict[str, str] = {}
        for key, bindings in self.beneath._bindings.key_to_bindings.items():
            for binding in bindings:
                if binding.id not in known and binding.description:
                    found.setdefault(binding.description, key)
        return [(key, Text(description).plain) for description, key in found.items()]

    def action_close(self) -> None:
        self.dismiss()
