"""The user's settings file: where it is, what it may hold, checked like every other input.

    $XDG_CONFIG_HOME/flipgate/config.yaml   (~/.config/flipgate/config.yaml when that is unset)

    keymap:                # binding id: keys (Textual key names, comma-separated alternatives)
      triage-cause: k
      quit: ctrl+q
    theme: light           # the theme the app opens in; `t` in the app sets it

The ids are the ones in `bindings.py` (docs/keys.md lists them). A file that is not there is no
settings; a file that is there and wrong is an `InputError` naming its line and field. The app
writes `theme:` itself, under the file's lock (`core/io/edit.py`), keeping the rest as written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from flipgate.core.errors import InputError
from flipgate.core.io.atomic import make_folder
from flipgate.core.io.edit import edit
from flipgate.core.io.yamlio import load_yaml
from flipgate.tui.bindings import Keymap, check_keymap
from flipgate.tui.themes import THEMES

SETTINGS = ("keymap", "theme")
_THEME_LINE = re.compile(r"^theme:.*$", re.MULTILINE)


def default_settings_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the settings file is looked for: the XDG config folder (a relative one is ignored)."""
    base = Path(environ.get("XDG_CONFIG_HOME", "")).expanduser()
    home = Path("~/.config").expanduser()
    return (base if base.is_absolute() else home) / "flipgate" / "config.yaml"


@dataclass(frozen=True)
class Settings:
    keymap: Keymap = field(default_factory=dict)
    theme: str | None = None  # None: the app's default


def load_settings(path: Path | None = None) -> Settings:
    """The settings in `path`; without one, those in the default place, if there is a file there."""
    if path is None:
        path = default_settings_path()
        if not path.exists():
            return Settings()
    data, lines = load_yaml(path)
    if data is None:
        return Settings()
    if not isinstance(data, dict):
        raise InputError(path, "settings must be a mapping (keymap: ...)", line=1)
    for name in data:
        if name not in SETTINGS:
            known = ", ".join(SETTINGS)
            raise InputError(
                path, f"unknown setting (known: {known})", line=lines.line(str(name)), field=name
            )
    keymap = data.get("keymap") or {}
    if not isinstance(keymap, dict):
        raise InputError(
            path,
            "keymap must map binding ids to keys (triage-cause: k)",
            line=lines.line("keymap"),
            field="keymap",
        )
    tidy = {str(binding_id): _keys(keys) for binding_id, keys in keymap.items()}
    wrong = check_keymap(tidy)
    if wrong is not None:
        binding_id, problem = wrong
        where = f"keymap.{binding_id}"
        raise InputError(path, problem, line=lines.line(where), field=where)
    theme = data.get("theme")
    if theme is not None and theme not in THEMES:
        raise InputError(
            path,
            f"theme must be one of {', '.join(THEMES)}",
            line=lines.line("theme"),
            field="theme",
        )
    return Settings(keymap=tidy, theme=theme)


def remember_theme(name: str, path: Path | None = None) -> Path:
    """Write `theme: NAME` into the settings file (made when there is none), the rest of it kept
    as written; returns the file. Under the file's lock, replaced whole: an `InputError` when it
    cannot be written, and then it stays as it was."""
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}")
    path = path or default_settings_path()
    make_folder(path.parent)
    with edit(path) as file:
        text = (file.before or b"").decode("utf-8")
        line = f"theme: {name}"
        if _THEME_LINE.search(text) is None:
            changed = f"{text.rstrip()}\n{line}\n".lstrip("\n")
        else:
            changed = _THEME_LINE.sub(line, text, count=1)
        try:
            written = yaml.safe_load(changed)
        except yaml.YAMLError:
            written = None
        if not isinstance(written, dict) or written.get("theme") != name:
            raise InputError(path, "the theme could not be set here: edit the file by hand")
        file.replace(changed)
    return path


def _keys(keys: object) -> str:
    """Keys as the keymap holds them: `1` read as a number is the key 1; spaces around go. A
    value that is not text (a list, a mapping) holds no keys, which `check_keymap` refuses."""
    if isinstance(keys, int) and not isinstance(keys, bool):
        keys = str(keys)
    return ",".join(k.strip() for k in keys.split(",")) if isinstance(keys, str) else ""
