"""The help screen: every key binding, read from the one list in `bindings.py`, grouped by where
it applies, plus any binding the screen below adds on its own."""

from __future__ import annotations

from typing import ClassVar

from rich import box
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from flipgate.tui.bindings import (
    KEY_BINDINGS,
    WHERE,
    bindings_for,
    display_keys,
    keymap_of,
    keys_of,
    shown_keys,
)


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
            scroll.border_subtitle = Text(
                f"{shown_keys(self.app, 'close-help', first=True)} to close"
            )
            yield Static(self._table())

    def _table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD, expand=True, show_edge=False)
        table.add_column("key", no_wrap=True, style="bold")
        table.add_column("does")
        table.add_column("where", style="dim")
        # The keys of the screen help was opened from come first, then everything else.
        beneath = type(self.beneath).BINDINGS if self.beneath is not None else []
        here = {b.id for b in beneath if isinstance(b, Binding)}
        keymap = keymap_of(self.app)
        for entry in sorted(KEY_BINDINGS, key=lambda entry: entry.id not in here):
            table.add_row(
                display_keys(keys_of(entry, keymap)),
                entry.description,
                WHERE.get(entry.screen, entry.screen),
            )
        return table

    def action_close(self) -> None:
        self.dismiss()
