"""The app's three themes, each colour defined once, and the one stylesheet that uses them.

A theme is a Textual `Theme`. Its standard colours (primary, background, success, ...) colour
Textual's own widgets (footer, palette, inputs, notifications) and are given from flipgate's
colours below; its `variables` carry flipgate's colours under their own names, which the
stylesheet (`flipgate.tcss`, package data beside this module) reads: Textual passes some of its
standard colours through HSL and back, one step off (`$warning` is #dfaf68 for #e0af68).
`surface` and `border` are Textual's names too: flipgate's colours for them are the ones every
widget paints with. Switching theme is setting `App.theme`.
"""

from __future__ import annotations

from importlib.resources import files

from textual.theme import Theme

STYLESHEET = files("flipgate.tui").joinpath("flipgate.tcss").read_text(encoding="utf-8")
THEMES = ("dark", "light", "high-contrast")

# One row a colour, one column a theme (dark, light, high contrast: black and white, bright hues).
COLOURS = {
    "bg": ("#1a1b26", "#fafafa", "#000000"),  # the background
    "fg": ("#c0caf5", "#1f2328", "#ffffff"),  # text
    "surface": ("#1f2335", "#eef0f4", "#000000"),  # title bar, boxes, help, confirmations, tables
    "muted": ("#737aa2", "#59636e", "#d0d0d0"),  # text that steps back
    "border": ("#3b4261", "#c8ccd4", "#ffffff"),  # a panel's border, an input's
    "focus": ("#7aa2f7", "#2e5cb8", "#ffff00"),  # a focused panel, labels
    "pass": ("#9ece6a", "#1a7f37", "#00ff00"),
    "fail": ("#f7768e", "#cf222e", "#ff5555"),
    "warn": ("#e0af68", "#9a6700", "#ffff00"),  # a warning, INCONCLUSIVE
    "b": ("#ff9e64", "#bc4c00", "#ff8800"),  # a flip from pass to fail
    "c": ("#7dcfff", "#0550ae", "#00ffff"),  # a flip from fail to pass
    "mirror": ("#bb9af7", "#8250df", "#ff55ff"),  # INVALID, and the mirror outcome
}
# What only Textual's widgets use; its darker surfaces and blurred borders are shaded from
# `shaded`: on the light theme white, so that they stay as light as on white.
TEXTUAL_ONLY = {
    "secondary": ("#bb9af7", "#7847bd", "#00ffff"),
    "accent": ("#e0af68", "#9a5b00", "#ffff00"),
    "panel": ("#292e42", "#e8eaf0", "#000000"),
    "shaded": ("#1f2335", "#ffffff", "#000000"),
}
FOCUS_BORDER = ("round", "round", "heavy")  # a focused panel's border


def _theme(column: int) -> Theme:
    colour = {name: values[column] for name, values in COLOURS.items()}
    textual = {name: values[column] for name, values in TEXTUAL_ONLY.items()}
    return Theme(
        name=f"flipgate-{THEMES[column]}",
        primary=colour["focus"],
        secondary=textual["secondary"],
        accent=textual["accent"],
        foreground=colour["fg"],
        background=colour["bg"],
        surface=textual["shaded"],
        panel=textual["panel"],
        success=colour["pass"],
        warning=colour["warn"],
        error=colour["fail"],
        dark=THEMES[column] != "light",
        variables={
            **colour,
            # An outcome takes the colour of what it is: a failure waved through, a false
            # alarm (the flip of a pass to a fail), no decision.
            "fn": colour["fail"],
            "fp": colour["b"],
            "inc": colour["warn"],
            "focus-border": FOCUS_BORDER[column],
        },
    )


TEXTUAL_THEMES = {name: _theme(column) for column, name in enumerate(THEMES)}
