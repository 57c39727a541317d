"""The help screen: the keys of the screen it was opened from first (and of the widget in focus
there), then the keys that work everywhere, then the words that screen uses, each defined once in
`present/glossary.py`; the other screens' keys last. Read from the one list in `bindings.py`."""

from __future__ import annotations

from typing import ClassVar

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from flipgate.present.glossary import defined
from flipgate.tui.bindings import (
    BY_ID,
    KEY_BINDINGS,
    WHERE,
    KeyBinding,
    bindings_for,
    display_keys,
    keymap_of,
    keys_of,
    shown_keys,
)


def binding_ids(screen: Screen[object] | None) -> list[str]:
    """The ids of the bindings of `screen` and of every widget on it, in the list's order."""
    if screen is None:
        return []
    nodes = [screen, *screen.query("*")]
    ids = {
        binding.id
        for node in nodes
        for binding in type(node).BINDINGS
        if isinstance(binding, Binding) and binding.id in BY_ID
    }
    return [entry.id for entry in KEY_BINDINGS if entry.id in ids]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = bindings_for("help")
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen VerticalScroll {
        width: 84; max-width: 100%; height: auto; max-height: 100%; padding: 0 1;
    }
    """

    def __init__(self, beneath: Screen[object] | None = None) -> None:
        super().__init__()
        self.beneath = beneath

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as scroll:
            scroll.border_title = "help"
            scroll.border_subtitle = Text(
                f"{shown_keys(self.app, 'close-help', first=True)} to close"
            )
            yield Static(self.contents())

    def contents(self) -> RenderableType:
        here = binding_ids(self.beneath)
        everywhere = [entry.id for entry in KEY_BINDINGS if entry.screen == "app"]
        parts: list[RenderableType] = []
        if here:
            parts += [Text("keys on this screen", "bold"), self._keys([BY_ID[i] for i in here])]
        parts += [Text("keys everywhere", "bold"), self._keys([BY_ID[i] for i in everywhere])]
        terms: tuple[str, ...] = getattr(self.beneath, "TERMS", ())
        if terms:
            parts += [Text("words on this screen", "bold"), self._glossary(terms)]
        elsewhere = [e for e in KEY_BINDINGS if e.id not in here and e.id not in everywhere]
        parts += [Text("keys of the other screens", "bold"), self._keys(elsewhere, where=True)]
        return Group(*parts)

    def _keys(self, entries: list[KeyBinding], *, where: bool = False) -> Table:
        table = Table(box=box.SIMPLE, expand=True, show_edge=False, show_header=False)
        table.add_column("key", no_wrap=True, style="bold", min_width=10)
        table.add_column("does", ratio=1)
        if where:
            table.add_column("where", style="dim", no_wrap=True)
        keymap = keymap_of(self.app)
        for entry in entries:
            row = [display_keys(keys_of(entry, keymap)), entry.description]
            table.add_row(*row, *([WHERE.get(entry.screen, entry.screen)] if where else []))
        return table

    @staticmethod
    def _glossary(terms: tuple[str, ...]) -> Table:
        table = Table(box=box.SIMPLE, expand=True, show_edge=False, show_header=False)
        table.add_column("term", no_wrap=True, style="bold", min_width=10)
        table.add_column("means", ratio=1)
        for term, meaning in defined(terms):
            table.add_row(term, meaning)
        return table

    def action_close(self) -> None:
        self.dismiss()
