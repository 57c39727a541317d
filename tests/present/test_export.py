import csv
import io

import polars as pl

from flipgate.present.export import as_csv, as_markdown, render

HOSTILE = pl.DataFrame(
    {
        "case": ["a|b", "=HYPERLINK(1)", "-3", "@team", "<b>*x*</b>", "esc\x1b[31mred"],
        "cost": [1.5, 2.0, None, 4.0, 5.0, 6.0],
    }
)


def test_csv_is_inert_in_a_terminal_and_in_a_spreadsheet() -> None:
    rows = list(csv.reader(io.StringIO(as_csv(HOSTILE))))
    assert rows[0] == ["case", "cost"]
    cases = [row[0] for row in rows[1:]]
    assert cases == ["a|b", "'=HYPERLINK(1)", "-3", "'@team", "<b>*x*</b>", "esc␛[31mred"]
    assert [row[1] for row in rows[1:]] == ["1.5", "2.0", "", "4.0", "5.0", "6.0"]


def test_markdown_cells_carry_no_markup_html_or_mention() -> None:
    lines = as_markdown(HOSTILE).splitlines()
    assert lines[:2] == ["| case | cost |", "|---|---|"]
    assert lines[2] == "| a\\|b | 1.5 |"  # the pipe cannot end the cell
    assert lines[5] == "| @&#8203;team | 4.0 |"
    assert lines[6] == "| &lt;b&gt;\\*x\\*&lt;/b&gt; | 5.0 |"
    assert lines[7] == "| esc␛\\[31mred | 6.0 |"
    assert len(lines) == 2 + HOSTILE.height


def test_an_empty_table_is_its_header() -> None:
    empty = HOSTILE.clear()
    assert render(empty, "csv") == "case,cost\n"
    assert render(empty, "markdown") == "| case | cost |\n|---|---|\n"
