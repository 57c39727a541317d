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
    KeyBinding(
        "suite-health", "h", "suite_health", "Suite health", "overview", show=False, palette=True
    ),
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
    # red-cases
    KeyBinding("red-open", "enter", "open_case", "Open", "red-cases", show=False),
    KeyBinding("red-search", "slash", "search", "Search", "red-cases"),
    KeyBinding("red-escape", "escape", "escape", "Clear/back", "red-cases"),
    KeyBinding("red-pass-fail", "1", "kind('pass_to_fail')", "pass→fail", "red-cases"),
    KeyBinding("red-fail-pass", "2", "kind('fail_to_pass')", "fail→pass", "red-cases"),
    KeyBinding("red-both-fail", "3", "kind('both_fail')", "both fail", "red-cases"),
    KeyBinding("red-unpaired", "4", "kind('unpaired')", "unpaired", "red-cases", show=False),
    KeyBinding("red-safety", "s", "flag('safety')", "Safety", "red-cases"),
    KeyBinding("red-flaky", "f", "flag('flaky')", "Flaky", "red-cases"),
    KeyBinding("red-outcome", "o", "cycle('outcome')", "Outcome", "red-cases"),
    KeyBinding("red-rule", "r", "cycle('rule')", "Rule", "red-cases"),
    KeyBinding("red-template", "T", "same_template", "Template", "red-cases"),
    KeyBinding("red-clear", "x", "clear_filters", "Clear", "red-cases"),
    KeyBinding("red-sort-worst", "w", "sort('worst')", "Sort worst", "red-cases", show=False),
    KeyBinding("red-sort-cost", "c", "sort('cost')", "Sort cost", "red-cases", show=False),
    KeyBinding("red-sort-case", "i", "sort('case')", "Sort id", "red-cases", show=False),
    KeyBinding("red-sort-wrong", "W", "sort('wrong')", "Sort wrong", "red-cases", show=False),
    KeyBinding(
        "red-sort-direction", "v", "sort('direction')", "Sort direction", "red-cases", show=False
    ),
    # case
    KeyBinding("case-back", "escape", "back", "Back", "case"),
    KeyBinding("case-next", "n", "next_case", "Next case", "case"),
    KeyBinding("case-previous", "p", "previous_case", "Prev case", "case"),
    KeyBinding("rep-next", "right_square_bracket,right", "next_rep", "Next rep", "case"),
    KeyBinding("rep-previous", "left_square_bracket,left", "previous_rep", "Prev rep", "case"),
    KeyBinding("diff", "d", "cycle_diff", "Diff", "case"),
    KeyBinding("turn-next", "j", "move_turn(1)", "Next turn", "case", show=False),
    KeyBinding("turn-previous", "k", "move_turn(-1)", "Prev turn", "case", show=False),
    KeyBinding("turn-unfold", "enter", "unfold_turn", "Unfold turn", "case", show=False),
    KeyBinding("turn-diff", "D", "turn_diff", "Turn diff", "case", show=False),
    KeyBinding("turn-divergence", "g", "first_divergence", "First divergence", "case", show=False),
    # triage
    KeyBinding("triage-back", "escape", "back", "Back", "triage"),
    KeyBinding("triage-ruled-out", "o", "find('ruled_out')", "Ruled out", "triage"),
    KeyBinding("triage-cause", "c", "find('cause')", "Cause", "triage"),
    KeyBinding("triage-unclear", "u", "find('unclear')", "Unclear", "triage"),
    KeyBinding("triage-note", "n", "note", "Note", "triage", show=False),
    KeyBinding("triage-next", "right_square_bracket", "step(1)", "Next step", "triage"),
    KeyBinding(
        "triage-previous", "left_square_bracket", "step(-1)", "Prev step", "triage", show=False
    ),
    KeyBinding("triage-decide", "d", "decide", "Decision", "triage"),
    # decision
    KeyBinding("decision-back", "escape", "back", "Back", "decision"),
    KeyBinding("decision-sign", "ctrl+s", "sign", "Sign and write", "decision"),
    # flaky
    KeyBinding("flaky-accept", "a", "accept", "Accept proposal", "flaky"),
    KeyBinding("flaky-retire", "r", "retire", "Retire entry", "flaky"),
    KeyBinding("flaky-switch", "tab", "switch", "Switch list", "flaky"),
    KeyBinding("flaky-back", "escape", "back", "Back", "flaky"),
    # candidates (a campaign workspace)
    KeyBinding("candidates-open", "enter", "select_cursor", "Open overview", "candidates"),
    KeyBinding("candidates-back", "escape", "candidates", "Candidates", "campaign"),
    # suite
    KeyBinding("suite-retire", "r", "retire", "Retire case", "suite"),
    KeyBinding("suite-back", "escape", "back", "Back", "suite"),
    # flaky-form
    KeyBinding("flaky-form-cancel", "escape", "cancel", "Cancel", "flaky-form"),
)


def key_bindings(screen: str) -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.screen == screen)


def bindings_for(screen: str) -> list[BindingType]:
    """The Textual bindings of one screen (or of the app, with "app")."""
    return [entry.binding() for entry in key_bindings(screen)]


def palette_entries() -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.palette)
