"""Untrusted text (run ids, key values, case ids, rule names, reasons, model output) made safe
to show: the one place that turns it into what a terminal, a CI log, a Markdown comment or an
XML report may carry. Every output (text, Markdown, JUnit, the app, verify) goes through here.

- Terminal and log (`safe`, `literal`): every character that is obeyed rather than shown is
  shown instead. C0 controls become Unicode control pictures (ESC -> ␛, a newline -> ␊, so that
  a case id cannot forge a line of the log), DEL ␡, and C1 controls, bidi overrides (U+202E
  turns text around), zero-width and line-separator characters and tag characters are written
  as `\\u202e`. Wrapped in `rich.text.Text`, markup such as `[bold red]` stays brackets.
  Multi-line text (a stored output, a note) keeps its newlines and tabs with `lines=True`.
- Markdown (`markdown`, `markdown_code`): no markup, no HTML, no mention that pings anyone, and
  in a code span no escapes at all, just a fence the text cannot close.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

if TYPE_CHECKING:
    import polars as pl

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
    (0xFFF9, 0xFFFB),  # interlinear annotation
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII
)
HIDDEN = tuple(chr(c) for low, high in _HIDDEN_RANGES for c in range(low, high + 1))
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

    return pl.col(column).fill_null("").str.replace_many(list(HIDDEN), [shown(c) for c in HIDDEN])


def literal(text: object, style: str | Style = "", *, lines: bool = False) -> Text:
    """Untrusted text as a Rich `Text`: never parsed as markup, hidden characters shown."""
    return Text(safe(text, lines=lines), style=style)


# What Markdown (GitHub's included) reads as markup inside a line, escaped with a backslash. The
# text never starts a line (a prefix or a table cell comes first), so list and heading markers
# at a line's start need nothing.
_MARKUP = re.compile(r"([\\`*_\[\]#|~])")


def markdown(text: object) -> str:
    """Untrusted text in a Markdown line or table cell: shown as written, one line.

    No markup and no HTML: markup characters are backslash-escaped and `&`, `<`, `>` written as
    entities. No mention: `@user` and `@org/team` would ping them, so a zero-width space
    (as an entity) follows each `@`.
    """
    out = _MARKUP.sub(r"\\\1", safe(text))
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return out.replace("@", "@&#8203;")


def markdown_column(column: str) -> pl.Expr:
    """`markdown` over a column (null as empty, any type as its text), vectorised."""
    import polars as pl

    text = pl.col(column).cast(pl.String).fill_null("")
    text = text.str.replace_many(list(HIDDEN), [shown(c) for c in HIDDEN])
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
    if not content.strip(" ") or content[0] in "` " or content[-1] in "` ":
        content = f" {content} "  # CommonMark strips one space from each side
    return f"{fence}{content}{fence}"
