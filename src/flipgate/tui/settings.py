"""The user's settings file: where it is, what it may hold, checked like every other input.

    $XDG_CONFIG_HOME/flipgate/config.yaml   (~/.config/flipgate/config.yaml when that is unset)

    keymap:                # binding id: keys (Textual key names, comma-separated alternatives)
      triage-cause: k
      quit: ctrl+q

The ids are the ones in `bindings.py` (docs/keys.md lists them). A file that is not there is no
settings; a file that is there and wrong is an `InputError` naming its line and field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import load_yaml
from flipgate.tui.bindings import Keymap, check_keymap

SETTINGS = ("keymap",)


def default_settings_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the settings file is looked for: the XDG config folder (a relative one is ignored)."""
    base = Path(environ.get("XDG_CONFIG_HOME", "")).expanduser()
    home = Path("~/.config").expanduser()
    return (base if base.is_absolute() else home) / "flipgate" / "config.yaml"


@dataclass(frozen=True)
class Settings:
    keymap: Keymap = field(default_factory=dict)


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
    return Settings(keymap=tidy)


def _keys(keys: object) -> str:
    """Keys as the keymap holds them: `1` read as a number is the key 1; spaces around go. A
    value that is not text (a list, a mapping) holds no keys, which `check_keymap` refuses."""
    if isinstance(keys, int) and not isinstance(keys, bool):
        keys = str(keys)
    return ",".join(k.strip() for k in keys.split(",")) if isinstance(keys, str) else ""
