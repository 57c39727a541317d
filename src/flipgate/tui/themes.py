"""The app's themes, each colour defined once, and the one stylesheet that uses them.

A theme is a Textual `Theme`: its standard colours (primary, background, success, ...) colour
Textual's own widgets (footer, palette, inputs, notifications) and flipgate's alike; its
`variables` name the colours only flipgate has. The stylesheet (`flipgate.tcss`, package data
beside this module) refers to both as `$variables`, so switching theme is setting `App.theme`.
"""

from __future__ import annotations

from importlib.resources import files

from textual.theme import Theme

STYLESHEET = files("flipgate.tui").joinpath("flipgate.tcss").read_text(encoding="utf-8")


def _theme(
    name: str,
    *,
    dark: bool,
    colours: dict[str, str],
    secondary: str,
    accent: str,
    panel: str,
    shaded_from: str | None = None,
    focus_border: str = "round",
) -> Theme:
    """A Textual theme from flipgate's `colours` (see `COLOURS`) and the few only Textual uses.

    Textual's standard colours are given from flipgate's, but the stylesheet reads flipgate's
    own names: Textual passes some of its colours through HSL and back, one step off
    (`$warning` is #dfaf68 for #e0af68). `surface` and `border` are Textual's names too, and
    flipgate's colours for them are the ones every widget paints with; Textual's darker surfaces
    and blurred borders are shaded from `shaded_from` (default: the surface itself)."""
    assert set(colours) == set(COLOURS), f"{name}: every colour, and no other"
    return Theme(
        name=f"flipgate-{name}",
        primary=colours["focus"],
        secondary=secondary,
        accent=accent,
        foreground=colours["fg"],
        background=colours["bg"],
        surface=shaded_from or colours["surface"],
        panel=panel,
        success=colours["pass"],
        warning=colours["warn"],
        error=colours["fail"],
        dark=dark,
        variables={
            **colours,
            # An outcome takes the colour of what it is: a failure waved through, a false
            # alarm (the flip of a pass to a fail), no decision.
            "fn": colours["fail"],
            "fp": colours["b"],
            "inc": colours["warn"],
            "focus-border": focus_border,
        },
    )


COLOURS = {
    "bg": "the background",
    "fg": "text",
    "surface": "the title bar, the loading box, help, confirmations, tables",
    "muted": "text that steps back",
    "border": "a panel's border, an input's",
    "focus": "a focused panel, labels",
    "pass": "a pass",
    "fail": "a fail",
    "warn": "a warning, INCONCLUSIVE",
    "b": "a flip from pass to fail",
    "c": "a flip from fail to pass",
    "mirror": "INVALID, and the mirror outcome",
}

TEXTUAL_THEMES = {
    "dark": _theme(
        "dark",
        dark=True,
        colours={
            "bg": "#1a1b26",
            "fg": "#c0caf5",
            "surface": "#1f2335",
            "muted": "#737aa2",
            "border": "#3b4261",
            "focus": "#7aa2f7",
            "pass": "#9ece6a",
            "fail": "#f7768e",
            "warn": "#e0af68",
            "b": "#ff9e64",
            "c": "#7dcfff",
            "mirror": "#bb9af7",
        },
        secondary="#bb9af7",
        accent="#e0af68",
        panel="#292e42",
    ),
    "light": _theme(
        "light",
        dark=False,
        colours={
            "bg": "#fafafa",
            "fg": "#1f2328",
            "surface": "#eef0f4",
            "muted": "#59636e",
            "border": "#c8ccd4",
            "focus": "#2e5cb8",
            "pass": "#1a7f37",
            "fail": "#cf222e",
            "warn": "#9a6700",
            "b": "#bc4c00",
            "c": "#0550ae",
            "mirror": "#8250df",
        },
        secondary="#7847bd",
        accent="#9a5b00",
        panel="#e8eaf0",
        shaded_from="#ffffff",  # white: the blurred borders stay as light as on white
    ),
    "high-contrast": _theme(  # black and white, bright hues, a heavy border on focus
        "high-contrast",
        dark=True,
        colours={
            "bg": "#000000",
            "fg": "#ffffff",
            "surface": "#000000",
            "muted": "#d0d0d0",
            "border": "#ffffff",
            "focus": "#ffff00",
            "pass": "#00ff00",
            "fail": "#ff5555",
            "warn": "#ffff00",
            "b": "#ff8800",
            "c": "#00ffff",
            "mirror": "#ff55ff",
        },
        secondary="#00ffff",
        accent="#ffff00",
        panel="#000000",
        focus_border="heavy",
    ),
}
THEMES = tuple(TEXTUAL_THEMES)
