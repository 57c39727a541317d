"""Every key binding of the app, defined once as data with a stable id.

The footer (Textual `Binding`s built from here), the help screen and the command palette all read
this list, so a key shown in one place is the key that works in the others; the ids let a user
remap a key with `App.set_keymap` without touching the code.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class KeyBinding:
    id: str
    key: str  # Textual key names, comma-separated for alternatives
    action: str
    description: str
    screen: str  # where it applies: "app" everywhere, else a screen's (or widget's) name
    show: bool = True  # shown in the footer
    palette: bool = False  # offered in the command palette too

    @property
    def display_key(self) -> str:
        names = {"question_mark": "?", "slash": "/", "escape": "esc", "enter": "enter"}
        return " / ".join(names.get(key, key) for key in self.key.split(","))

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.description, show=self.show, id=self.id)


KEY_BINDINGS: tuple[KeyBinding, ...] = (
    KeyBinding("quit", "q", "quit", "Quit", "app", palette=True),
    KeyBinding("help", "question_mark,f1", "help", "Help", "app", palette=True),
    KeyBinding("palette", "ctrl+p", "command_palette", "Commands", "app", show=False),
    KeyBinding("next-theme", "t", "next_theme", "Next theme", "app", show=False),
    KeyBinding("open", "enter", "open", "Drill in", "overview"),
    KeyBinding("red-cases", "r", "red_cases", "Red cases", "overview", palette=True),
    KeyBinding("search", "slash", "search", "Search", "overview", palette=True),
    KeyBinding("export-plan", "e", "export_plan", "Rerun plan", "overview", palette=True),
    KeyBinding("load-reruns", "l", "load_reruns", "Load reruns", "overview", palette=True),
    KeyBinding("triage", "c", "triage", "Triage", "overview", palette=True),
    KeyBinding("flaky-list", "f", "flaky_list", "Flaky list", "overview", palette=True),
    KeyBinding("next-panel", "tab,down,right", "next_panel", "Next panel", "overview", show=False),
    KeyBinding(
        "previous-panel",
        "shift+tab,up,left",
        "previous_panel",
        "Previous panel",
        "overview",
        show=False,
    ),
    KeyBinding("matrix-left", "left", "move(0, -1)", "Cell left", "matrix", show=False),
    KeyBinding("matrix-right", "right", "move(0, 1)", "Cell right", "matrix", show=False),
    KeyBinding("matrix-up", "up", "move(-1, 0)", "Cell up", "matrix", show=False),
    KeyBinding("matrix-down", "down", "move(1, 0)", "Cell down", "matrix", show=False),
    KeyBinding("plan-new-name", "n,enter", "new_name", "Write under a new name", "confirm-plan"),
    KeyBinding("plan-overwrite", "o", "overwrite", "Overwrite it", "confirm-plan"),
    KeyBinding("plan-cancel", "escape", "cancel", "Cancel", "confirm-plan"),
    KeyBinding("close-help", "escape,q,question_mark", "close", "Close", "help"),
)


def key_bindings(screen: str) -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.screen == screen)


def bindings_for(screen: str) -> list[BindingType]:
    """The Textual bindings of one screen (or of the app, with "app")."""
    return [entry.binding() for entry in key_bindings(screen)]


def palette_entries() -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.palette)
