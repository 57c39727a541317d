"""A table a screen shows, as a file: CSV or Markdown, every cell untrusted text made safe for
its format, vectorised (the case list may hold a million rows).

- CSV: the text as `present.text.safe` shows it (no character a terminal obeys: `cat` on the file
  is safe), quoted by polars' writer; a cell that a spreadsheet would run as a formula (it starts
  with `=`, `+`, `-`, `@`, a tab or a carriage return and is not a number) starts with `'`.
- Markdown: a pipe table whose cells are `present.text.markdown`'s: no markup, no HTML, no mention.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import polars as pl

from flipgate.present.text import markdown, markdown_column, safe_column

Format = Literal["csv", "markdown"]
SUFFIX: dict[Format, str] = {"csv": ".csv", "markdown": ".md"}
_NUMBER = r"^[+-]?(\d[\d,]*)?(\.\d+)?%?$"
_FORMULA = r"^[=+\-@]"  # a tab or carriage return is shown as ␉ or ␍ by `safe` already


def frame_of(header: Sequence[str], rows: Iterable[Sequence[object]]) -> pl.DataFrame:
    """Rows as a screen shows them, under its column labels, every cell as its text (a Rich
    `Text` as its plain text): the frame `render` writes."""
    cells = [[str(cell) for cell in row] for row in rows]
    return pl.DataFrame(cells, schema=[(name, pl.String) for name in header], orient="row")


def as_csv(table: pl.DataFrame) -> str:
    """`table` as CSV text, header first."""
    text = table.with_columns(pl.all().cast(pl.String))
    cells = []
    for column in table.columns:
        cell = safe_column(column)
        formula = cell.str.contains(_FORMULA) & ~cell.str.contains(_NUMBER)
        cells.append(pl.when(formula).then(pl.lit("'") + cell).otherwise(cell).alias(column))
    return text.select(cells).write_csv(quote_style="necessary")


def as_markdown(table: pl.DataFrame) -> str:
    """`table` as a Markdown pipe table, each cell one line of inert text."""
    if not table.columns:
        return ""
    lines = [
        "| " + " | ".join(markdown(c) for c in table.columns) + " |",
        "|" + "|".join("---" for _ in table.columns) + "|",
    ]
    if table.height:
        cells = [markdown_column(c) for c in table.columns]
        row = pl.concat_str([pl.lit("| "), pl.concat_str(cells, separator=" | "), pl.lit(" |")])
        lines.extend(table.select(row.alias("line"))["line"].to_list())
    return "\n".join(lines) + "\n"


def render(table: pl.DataFrame, form: Format) -> str:
    return as_csv(table) if form == "csv" else as_markdown(table)
