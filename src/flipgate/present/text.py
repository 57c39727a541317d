"""Untrusted text (run ids, key values, case ids, rule names, reasons, model output) made safe
to show: the one place that turns it into what a terminal, a CI log, a Markdown comment, an XML
report or a JSON document may carry. One escaper per format, and every writer uses its format's:

- Terminal and log (`safe`, `literal`): every character that is obeyed rather than shown is
  shown instead. C0 controls become Unicode control pictures (ESC -> ␛, a newline -> ␊, so that
  a case id cannot forge a line of the log), DEL ␡, and C1 controls, bidi overrides (U+202E
  turns text around), zero-width and line-separator characters and tag characters are written
  as `\\u202e`; so are the emoji modifiers whose width terminals disagree on (a skin tone, the
  variation selectors), so that a line of model text keeps the borders beside it in place.
  Wrapped in `rich.text.Text`, markup such as `[bold red]` stays brackets.
  Multi-line text (a stored output, a note) keeps its newlines and tabs with `lines=True`.
- Markdown (`markdown`, `markdown_code`): no markup, no HTML, no mention that pings anyone, and
  in a code span no escapes at all, just a fence the text cannot close.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl
    from rich.style import Style
    from rich.text import Text

# What a terminal obeys, or a reader cannot see, rather than a glyph it shows.
_HIDDEN_RANGES = (
    (0x00, 0x1F),  # C0 controls: ESC starts a terminal escape, BEL rings, CR rewrites the line
    (0x7F, 0x9F),  # DEL and the C1 controls (U+009B is a one-byte CSI)
    (0x061C, 0x061C),  # Arabic letter mark
    (0x180E, 0x180E),  # Mongolian vowel separator
    (0x200B, 0x200F),  # zero-width space, joiners, left-to-right and right-to-left marks
    (0x2028, 0x202E),  # line and paragraph separators; bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner and invisible operators
    (0x2066, 0x206F),  # bidi isolates and deprecated format controls
    (0xFEFF, 0xFEFF),  # zero-width no-break space (a byte-order mark)
    (0xD800, 0xDFFF),  # lone surrogates: a name that is not UTF-8, as Python decodes it
    (0xFFF9, 0xFFFB),  # interlinear annotation
    (0xFFFE, 0xFFFF),  # not characters: XML refuses them
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII
    # Shown, but measured differently by Rich (which joins them to the emoji before them) and by
    # a terminal that measures each character (tmux: a skin tone is two more cells, a heart with
    # VS16 one fewer): the line's border would move. As escapes, every terminal measures alike.
    (0xFE0E, 0xFE0F),  # variation selectors 15 and 16: text or emoji presentation
    (0x1F3FB, 0x1F3FF),  # emoji skin-tone modifiers
)
HIDDEN = tuple(chr(c) for low, high in _HIDDEN_RANGES for c in range(low, high + 1))
# A polars string is UTF-8: it never holds a surrogate, and cannot be given one to look for.
_COLUMN_HIDDEN = tuple(c for c in HIDDEN if not 0xD800 <= ord(c) <= 0xDFFF)
_HIDDEN = re.compile(
    "[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _HIDDEN_RANGES) + "]"
)
_LAYOUT = "\n\t"  # kept in multi-line text: they move to the next line or column, nothing else


def shown(char: str) -> str:
    """A hidden character as text that shows it and is never obeyed: `\\x1b` -> `␛`."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # Unicode control pictures: ␀ … ␟
    if code == 0x7F:
        return "␡"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def safe(text: object, *, lines: bool = False) -> str:
    """`text` on one line, every hidden character shown; with `lines`, newlines and tabs kept."""
    if lines:
        return _HIDDEN.sub(
            lambda m: m.group() if m.group() in _LAYOUT else shown(m.group()), str(text)
        )
    return _HIDDEN.sub(lambda m: shown(m.group()), str(text))


def safe_column(column: str) -> pl.Expr:
    """`safe` over a column of one-line text (null as empty), vectorised: one literal
    multi-pattern replace, where a regex callback per row would loop in Python."""
    import polars as pl  # the command line's text needs no polars to start

    return (
        pl.col(column)
        .fill_null("")
        .str.replace_many(list(_COLUMN_HIDDEN), [shown(c) for c in _COLUMN_HIDDEN])
    )


def literal(text: object, style: str | Style = "", *, lines: bool = False) -> Text:
    """Untrusted text as a Rich `Text`: never parsed as markup, hidden characters shown. Rich is
    loaded here, by the first caller that draws: the JSON report goes without it."""
    from rich.text import Text

    return Text(safe(text, lines=lines), style=style)


# What Markdown (GitHub's included) reads as markup inside a line, escaped with a backslash.
_MARKUP = re.compile(r"([\\`*_\[\]#|~])")
# What starts a list item when it starts the text: a line of a list (`- TEXT`) would nest one.
_ITEM = re.compile(r"^(\d*)([-+.)])(?=\s|$)")
# What GitHub turns into a link with no markup at all: `https://`, `ftp://`, `www.`. A zero-width
# space (as an entity: the text still reads as written) inside each keeps it text.
_AUTOLINK = re.compile(r"(:)(//)|(www)(\.)", re.IGNORECASE)
_UNSEEN = "&#8203;"


def markdown(text: object) -> str:
    """Untrusted text in a Markdown line or table cell: shown as written, one line.

    No markup and no HTML: markup characters are backslash-escaped and `&`, `<`, `>` written as
    entities, and a list marker it starts with too. No link: a bare URL autolinks, so an unseen
    space breaks `://` and `www.`. No mention: `@user` and `@org/team` would ping them (and
    `a@b.org` would link), so an unseen space follows each `@`.
    """
    out = _ITEM.sub(r"\1\\\2", _MARKUP.sub(r"\\\1", safe(text)))
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = _AUTOLINK.sub(lambda m: _UNSEEN.join(g for g in m.groups() if g), out)
    return out.replace("@", "@" + _UNSEEN)


def markdown_column(column: str) -> pl.Expr:
    """`markdown` over a column (null as empty, any type as its text), vectorised."""
    import polars as pl

    text = pl.col(column).cast(pl.String).fill_null("")
    text = text.str.replace_many(list(_COLUMN_HIDDEN), [shown(c) for c in _COLUMN_HIDDEN])
    text = text.str.replace_all(_MARKUP.pattern, r"\$1")
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("@", "@&#8203;")):
        text = text.str.replace_all(char, entity, literal=True)
    return text


def markdown_code(text: object) -> str:
    """Untrusted text as a Markdown code span: nothing inside a span is markup, HTML or a
    mention, so nothing is escaped (`cand_run_1` stays `cand_run_1`); the fence is one backtick
    longer than the longest run of backticks in the text, so the text cannot close it."""
    content = safe(text)
    longest = max((len(run) for run in re.findall("`+", content)), default=0)
    fence = "`" * (longest + 1)
    if not content:
        content = " "  # a span holds something: the nearest to nothing is a space
    elif content.strip(" ") and (content[0] in "` " or content[-1] in "` "):
        content = f" {content} "  # CommonMark strips one space from each side, unless all are
    return f"{fence}{content}{fence}"


# --------------------------------------------------------------------------- XML and JSON


def xml_safe(root: ET.Element) -> ET.Element:
    """Every attribute and text of the tree under `root` made `safe` (an element's text and tail
    keep their lines), in place: what XML 1.0 refuses, or a CI log obeys, is shown instead. A
    writer builds its tree from the values as they are and hands it here once, whole."""
    for element in root.iter():
        for name, value in element.attrib.items():
            element.set(name, safe(value))
        if element.text:
            element.text = safe(element.text, lines=True)
        if element.tail:
            element.tail = safe(element.tail, lines=True)
    return root


def json_text(data: Any) -> str:
    """`data` as indented JSON. orjson writes a 100,000-case report in a few milliseconds (the
    standard library's indenting encoder is pure Python and takes fifty); what it refuses, a lone
    surrogate or an integer past 64 bits, is written by the standard library, the surrogate shown
    as `safe` shows it and the integer exactly."""
    import orjson  # only a JSON report needs it

    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONEncodeError:
        return json.dumps(_plain(data), indent=2, ensure_ascii=False, default=_as_text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _plain(value: Any) -> Any:
    """`value` as the standard library writes it as orjson would: surrogates shown, a number that
    is not finite null (orjson's), tuples as lists."""
    if isinstance(value, str):
        return _SURROGATE.sub(lambda m: shown(m.group()), value)
    if isinstance(value, dict):
        return {_plain(key) if isinstance(key, str) else key: _plain(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _as_text(value: Any) -> Any:
    """What orjson writes natively and the standard library does not: dates, as ISO text."""
    if isinstance(value, date | datetime | time):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")
