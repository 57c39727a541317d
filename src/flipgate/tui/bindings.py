"""Every key binding of the app, defined once as data with a stable id, and the user's keymap.

The footer (Textual `Binding`s built from here), the help screen, the command palette and every
key named in a screen's text read this list, so a key shown in one place is the key that works in
the others. The ids let a user remap a key (`keymap:` in the settings file, applied with
`App.set_keymap`) without touching the code; `check_keymap` says what is wrong with one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.binding import Binding, BindingType
from textual.keys import Keys, key_to_character

Keymap = Mapping[str, str]  # binding id -> Textual key names, comma-separated
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")
# Textual's names for keys that are not characters (escape, f1, pageup, ...), less its internal ones.
KEY_NAMES = frozenset(
    name for key in Keys if not (name := key.value.rpartition("+")[2]).startswith("<")
)
SHOWN = {
    "question_mark": "?",
    "slash": "/",
    "escape": "esc",
    "enter": "enter",
    "colon": ":",
    "backspace": "⌫",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
}


def display_keys(keys: str) -> str:
    """Comma-separated key names as the app's text shows them: `question_mark,f1` -> `? / f1`."""
    return " / ".join(SHOWN.get(key, key) for key in keys.split(","))


@dataclass(frozen=True)
class KeyBinding:
    id: str
    key: str  # Textual key names, comma-separated for alternatives
    action: str
    description: str
    screen: str  # where it applies: "app" everywhere, else a screen's (or widget's) name
    show: bool = True  # shown in the footer (when it fits: see `priority`)
    palette: bool = False  # offered in the command palette too
    # The footer keeps the keys of the highest priority when the screen is narrow: 1 what the
    # screen is for, 2 what a reviewer does often, 3 the rest. Help and the palette always stay.
    priority: int = 2

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.description, show=self.show, id=self.id)


KEY_BINDINGS: tuple[KeyBinding, ...] = (
    KeyBinding("quit", "q", "quit", "Quit", "app", palette=True, priority=1),
    KeyBinding("help", "question_mark,f1", "help", "Help", "app", palette=True, priority=1),
    KeyBinding("palette", "ctrl+p", "command_palette", "Commands", "app", show=False),
    KeyBinding("go-to-case", "colon", "go_to_case", "Go to case", "app", palette=True),
    KeyBinding("copy", "y", "copy", "Copy", "app", palette=True),
    KeyBinding("open-text", "o", "open_text", "Pager", "app", palette=True),
    KeyBinding("export-csv", "x", "export('csv')", "Export CSV", "app", palette=True),
    KeyBinding(
        "export-markdown",
        "X",
        "export('markdown')",
        "Export Markdown",
        "app",
        priority=3,
        palette=True,
    ),
    KeyBinding("next-theme", "t", "next_theme", "Theme", "app", priority=3),
    KeyBinding("open", "enter", "open", "Open", "overview", priority=1),
    KeyBinding("red-cases", "r", "red_cases", "Cases", "overview", palette=True, priority=1),
    KeyBinding("search", "slash", "search", "Search", "overview", palette=True),
    KeyBinding("export-plan", "e", "export_plan", "Rerun plan", "overview", palette=True),
    KeyBinding("load-reruns", "l", "load_reruns", "Load reruns", "overview", palette=True),
    KeyBinding("triage", "c", "triage", "Triage", "overview", palette=True, priority=1),
    KeyBinding("flaky-list", "f", "flaky_list", "Flaky list", "overview", palette=True),
    KeyBinding("calibrate", "k", "calibrate", "Calibrate", "overview", palette=True, priority=3),
    KeyBinding(
        "suite-health", "h", "suite_health", "Suite health", "overview", palette=True, priority=3
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
    KeyBinding("plan-write", "enter,w", "write", "Write the plan", "rerun-plan"),
    KeyBinding("plan-more", "plus,equals_sign", "target(1)", "Target +5", "rerun-plan"),
    KeyBinding("plan-less", "minus", "target(-1)", "Target -5", "rerun-plan"),
    KeyBinding("plan-close", "escape", "cancel", "Close", "rerun-plan"),
    KeyBinding("plan-new-name", "n,enter", "new_name", "Write under a new name", "confirm-plan"),
    KeyBinding("plan-overwrite", "o", "overwrite", "Overwrite it", "confirm-plan"),
    KeyBinding("plan-cancel", "escape", "cancel", "Cancel", "confirm-plan"),
    KeyBinding("close-help", "escape,q,question_mark", "close", "Close", "help"),
    KeyBinding("go-cancel", "escape", "cancel", "Cancel", "go-to-case"),
    KeyBinding("pager-close", "escape,q", "close", "Close", "pager"),
    # the case list (red, flipped or unpaired cases; every case with `a`)
    KeyBinding("red-open", "enter", "open_case", "Open", "red-cases", priority=1),
    KeyBinding("red-search", "slash", "search", "Search", "red-cases", priority=1),
    KeyBinding("red-escape", "escape", "escape", "Back", "red-cases", priority=1),
    KeyBinding("red-every", "a", "every_case", "Every case", "red-cases", priority=1),
    KeyBinding("red-pass-fail", "1", "kind('pass_to_fail')", "pass→fail", "red-cases"),
    KeyBinding("red-fail-pass", "2", "kind('fail_to_pass')", "fail→pass", "red-cases"),
    KeyBinding("red-state", "l", "cycle('state')", "State", "red-cases"),
    KeyBinding("red-diverged", "d", "diverged", "Diverged", "red-cases"),
    KeyBinding("red-both-fail", "3", "kind('both_fail')", "both fail", "red-cases", priority=3),
    KeyBinding("red-both-pass", "4", "kind('both_pass')", "both pass", "red-cases", priority=3),
    KeyBinding("red-unpaired", "5", "kind('unpaired')", "unpaired", "red-cases", priority=3),
    KeyBinding("red-safety", "s", "flag('safety')", "Safety", "red-cases"),
    KeyBinding("red-flaky", "f", "flag('flaky')", "Flaky", "red-cases", priority=3),
    KeyBinding("red-outcome", "o", "cycle('outcome')", "Outcome", "red-cases", priority=3),
    KeyBinding("red-rule", "r", "cycle('rule')", "Rule", "red-cases", priority=3),
    KeyBinding("red-source", "g", "cycle('source')", "Model/grader", "red-cases", priority=3),
    KeyBinding("red-template", "T", "same_template", "Template", "red-cases"),
    KeyBinding("red-clear", "backspace", "clear_filters", "Clear", "red-cases"),
    KeyBinding("red-sort-worst", "w", "sort('worst')", "Sort worst", "red-cases", priority=3),
    KeyBinding("red-sort-cost", "c", "sort('cost')", "Sort cost", "red-cases", priority=3),
    KeyBinding("red-sort-case", "i", "sort('case')", "Sort id", "red-cases", priority=3),
    KeyBinding("red-sort-wrong", "W", "sort('wrong')", "Sort wrong", "red-cases", priority=3),
    KeyBinding(
        "red-sort-direction", "v", "sort('direction')", "Sort direction", "red-cases", priority=3
    ),
    # case
    KeyBinding("case-back", "escape", "back", "Back", "case", priority=1),
    KeyBinding("case-next", "n", "next_case", "Next case", "case", priority=1),
    KeyBinding("case-previous", "p", "previous_case", "Prev case", "case"),
    KeyBinding("rep-next", "right_square_bracket,right", "next_rep", "Next rep", "case"),
    KeyBinding("rep-previous", "left_square_bracket,left", "previous_rep", "Prev rep", "case"),
    KeyBinding("diff", "d", "cycle_diff", "Diff", "case", priority=1),
    KeyBinding("turn-next", "j", "move_turn(1)", "Next turn", "case", priority=3),
    KeyBinding("turn-previous", "k", "move_turn(-1)", "Prev turn", "case", show=False),
    KeyBinding("turn-unfold", "enter", "unfold", "Expand", "case"),
    KeyBinding("turn-diff", "D", "turn_diff", "Turn diff", "case", priority=3),
    KeyBinding("turn-divergence", "g", "first_divergence", "Divergence", "case", priority=3),
    KeyBinding("every-rep", "a", "every_repetition", "All reps", "case"),
    # every repetition of a case, turn by turn
    KeyBinding("reps-back", "escape", "back", "Back", "repetitions", priority=1),
    KeyBinding("reps-down", "down,j", "move(1, 0)", "Next turn", "repetitions"),
    KeyBinding("reps-up", "up,k", "move(-1, 0)", "Prev turn", "repetitions", show=False),
    KeyBinding("reps-right", "right,l", "move(0, 1)", "Next rep", "repetitions"),
    KeyBinding("reps-left", "left,h", "move(0, -1)", "Prev rep", "repetitions", show=False),
    KeyBinding("reps-page-down", "pagedown", "page(1)", "Page down", "repetitions", show=False),
    KeyBinding("reps-page-up", "pageup", "page(-1)", "Page up", "repetitions", show=False),
    KeyBinding("reps-first", "home", "edge(False)", "First turn", "repetitions", show=False),
    KeyBinding("reps-last", "end", "edge(True)", "Last turn", "repetitions", show=False),
    KeyBinding("reps-arms-part", "g", "arms_part", "Arms part", "repetitions", priority=1),
    # triage
    KeyBinding("triage-back", "escape", "back", "Back", "triage", priority=1),
    KeyBinding("triage-ruled-out", "o", "find('ruled_out')", "Ruled out", "triage", priority=1),
    KeyBinding("triage-cause", "c", "find('cause')", "Cause", "triage", priority=1),
    KeyBinding("triage-unclear", "u", "find('unclear')", "Unclear", "triage", priority=1),
    KeyBinding("triage-undo", "z", "undo", "Undo finding", "triage"),
    KeyBinding("triage-note", "n", "note", "Note", "triage", priority=3),
    KeyBinding("triage-next", "right_square_bracket", "step(1)", "Next step", "triage"),
    KeyBinding(
        "triage-previous", "left_square_bracket", "step(-1)", "Prev step", "triage", priority=3
    ),
    KeyBinding("triage-decide", "d", "decide", "Decision", "triage", priority=1),
    # decision
    KeyBinding("decision-back", "escape", "back", "Back", "decision", priority=1),
    KeyBinding("decision-sign", "ctrl+s", "sign", "Sign and write", "decision", priority=1),
    # the decision's cases reviewed
    KeyBinding("cases-tick", "space", "tick", "Tick/untick", "cases-reviewed"),
    KeyBinding("cases-all", "a", "tick_listed(True)", "Tick all listed", "cases-reviewed"),
    KeyBinding("cases-none", "n", "tick_listed(False)", "Tick none listed", "cases-reviewed"),
    KeyBinding("cases-open", "enter", "open_case", "Open case", "cases-reviewed"),
    KeyBinding("cases-down", "down", "move(1)", "Next case", "cases-reviewed", show=False),
    KeyBinding("cases-up", "up", "move(-1)", "Prev case", "cases-reviewed", show=False),
    KeyBinding("cases-page-down", "pagedown", "page(1)", "Page down", "cases-reviewed", show=False),
    KeyBinding("cases-page-up", "pageup", "page(-1)", "Page up", "cases-reviewed", show=False),
    KeyBinding("cases-first", "home", "move_to(0)", "First case", "cases-reviewed", show=False),
    KeyBinding("cases-last", "end", "move_to(-1)", "Last case", "cases-reviewed", show=False),
    # flaky
    KeyBinding("flaky-open", "enter", "open_case", "Open case", "flaky", priority=1),
    KeyBinding("flaky-accept", "a", "accept", "Accept proposal", "flaky", priority=1),
    KeyBinding("flaky-retire", "r", "retire", "Retire entry", "flaky", priority=1),
    KeyBinding("flaky-switch", "tab", "switch", "Switch list", "flaky"),
    KeyBinding("flaky-back", "escape", "back", "Back", "flaky", priority=1),
    # calibration
    KeyBinding("calibration-write", "w", "write", "Write proposal", "calibration", priority=1),
    KeyBinding("calibration-back", "escape", "back", "Back", "calibration", priority=1),
    # candidates (a campaign workspace)
    KeyBinding(
        "candidates-open", "enter", "select_cursor", "Open overview", "candidates", priority=1
    ),
    KeyBinding("candidates-back", "escape", "candidates", "Candidates", "campaign", priority=1),
    # suite
    KeyBinding("suite-retire", "r", "retire", "Retire case", "suite", priority=1),
    KeyBinding("suite-back", "escape", "back", "Back", "suite", priority=1),
    # flaky-form
    KeyBinding("flaky-form-cancel", "escape", "cancel", "Cancel", "flaky-form"),
    # a decision's review log walked again (`flipgate replay`)
    KeyBinding("replay-next", "right_square_bracket", "step(1)", "Next step", "replay"),
    KeyBinding("replay-previous", "left_square_bracket", "step(-1)", "Prev step", "replay"),
    KeyBinding("replay-quit", "escape", "app.quit", "Quit", "replay", show=False),
)


BY_ID = {entry.id: entry for entry in KEY_BINDINGS}
# Where each group of bindings applies, in words (the help screen's third column).
WHERE = {
    "app": "everywhere",
    "loading": "while loading",
    "overview": "gate overview",
    "matrix": "flip matrix",
    "rerun-plan": "rerun plan",
    "confirm-plan": "rerun plan exists",
    "help": "this help",
    "go-to-case": "go to case",
    "pager": "the text viewer",
    "red-cases": "case list",
    "case": "case drill-down",
    "repetitions": "every repetition",
    "triage": "triage checklist",
    "decision": "signed decision",
    "cases-reviewed": "cases reviewed",
    "flaky": "flaky list",
    "flaky-form": "flaky entry form",
    "calibration": "calibration",
    "candidates": "candidates",
    "campaign": "a candidate's overview",
    "replay": "decision replay",
}


def priority(binding_id: str | None, first: Collection[str] = ()) -> int:
    """The footer's priority of a binding (1 first); a binding not of this list (Textual's) last;
    one of `first` (the ids a screen raises: `KeyBar`) 1."""
    if binding_id in first:
        return 1
    entry = BY_ID.get(binding_id or "")
    return entry.priority if entry is not None else 3


def key_bindings(screen: str) -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.screen == screen)


def bindings_for(screen: str) -> list[BindingType]:
    """The Textual bindings of one screen (or of the app, with "app")."""
    return [entry.binding() for entry in key_bindings(screen)]


def palette_entries() -> tuple[KeyBinding, ...]:
    return tuple(entry for entry in KEY_BINDINGS if entry.palette)


# --------------------------------------------------------------------------- the user's keymap


def keys_of(entry: KeyBinding, keymap: Keymap) -> str:
    """The keys `entry` answers to under `keymap` (its own unless remapped)."""
    return keymap.get(entry.id, entry.key)


def keymap_of(app: App[Any]) -> Keymap:
    """The keymap `app` was given; an app other than flipgate's (a test's) has none."""
    keymap: Keymap = getattr(app, "user_keymap", {})
    return keymap


def shown_keys(app: App[Any], binding_id: str, *, first: bool = False) -> str:
    """The keys of a binding as they work now in `app`, for text that names them (`first`: one)."""
    keys = keys_of(BY_ID[binding_id], keymap_of(app))
    return display_keys(keys.split(",")[0] if first else keys)


def key_problem(key: str) -> str | None:
    """Why `key` cannot be bound (None: it can): `ctrl+k`, `?`, `f5`, `question_mark`, `escape`."""
    *modifiers, name = key.split("+")
    unknown = [m for m in modifiers if m not in MODIFIERS]
    if unknown:
        return f"{unknown[0]!r} is not a modifier ({', '.join(MODIFIERS)})"
    twice = next((m for i, m in enumerate(modifiers) if m in modifiers[:i]), None)
    if twice is not None:  # Textual would never see `ctrl+ctrl+q`: the binding would be dead
        return f"{twice!r} is given twice in {key!r}"
    if len(name) == 1 and name.isprintable() and not name.isspace():
        return None
    if name in KEY_NAMES or key_to_character(name) is not None:
        return None
    return f"{key!r} is not a key Textual knows (a character, or a name like escape, f5, pageup)"


def _same_key(key: str) -> str:
    """One spelling per key, so that `?` and `question_mark` clash."""
    *modifiers, name = key.split("+")
    return "+".join([*modifiers, key_to_character(name) or name])


def check_keymap(keymap: Keymap) -> tuple[str, str] | None:
    """The first binding id in `keymap` that is wrong, and why (None: every entry is good).

    An id must name a binding; its keys must be keys; and after remapping no two bindings of
    one screen may share a key. A screen's key may still hide an app-wide one, as it does
    without a keymap (on help, q closes rather than quits).
    """
    for binding_id, keys in keymap.items():
        if binding_id not in BY_ID:
            return binding_id, "no key binding has this id (docs/keys.md lists them)"
        if not keys.strip():
            return binding_id, "give the keys as text: one key, or several separated by commas"
        for key in keys.split(","):
            problem = key_problem(key.strip())
            if problem is not None:
                return binding_id, problem
    taken: dict[tuple[str, str], str] = {}
    for entry in KEY_BINDINGS:
        for key in keys_of(entry, keymap).split(","):
            where = (entry.screen, _same_key(key.strip()))
            if where in taken:
                mapped, other = (entry.id, taken[where])
                if mapped not in keymap:
                    mapped, other = other, mapped
                return mapped, (
                    f"{key.strip()!r} is already the key of {other!r} "
                    f"({WHERE.get(entry.screen, entry.screen)})"
                )
            taken[where] = entry.id
    return None
