"""Untrusted text (run ids, key values, case ids, reasons, model output) made safe to show.

Wrapped in `rich.text.Text`, markup such as `[bold red]` stays brackets; control characters are
made visible so that an escape sequence cannot recolour, move or retitle the terminal.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode "control pictures" block: ESC -> ␛
    return "␡" if code == 0x7F else f"\\x{code:02x}"


def safe(text: object) -> str:
    """`text` with every control character shown instead of obeyed."""
    return _CONTROL.sub(_visible, str(text))


def literal(text: object, style: str | Style = "") -> Text:
    """Untrusted text as a Rich `Text`: never parsed as markup, control characters visible."""
    return Text(safe(text), style=style)


def markdown(text: object) -> str:
    """Untrusted text in a Markdown table cell or line: no markup, no HTML, one line."""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|")
    out = out.replace("<", "&lt;").replace(">", "&gt;")
    for ch in "`*_[]#":
        out = out.replace(ch, "\\" + ch)
    return " ".join(out.split())
