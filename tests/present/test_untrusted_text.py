"""Untrusted text in every output: nothing a terminal obeys, no forged log line, no Markdown
markup, HTML or mention, and code spans that stay code spans."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import default_spec, load_spec
from flipgate.core.runs.reading import load_run
from flipgate.present import report
from flipgate.present.reasons import gate_words
from flipgate.present.text import literal, markdown, markdown_code, safe
from tests.conftest import passfail_rows, write_run

TITLE_AND_CLEAR = "\x1b]0;PWNED\x07\x1b[2J"
FORGED = "x\nPASS: 0 cases broke"
RIGHT_TO_LEFT = "\u202eevil"


def test_every_character_a_terminal_obeys_is_shown_instead() -> None:
    assert safe(TITLE_AND_CLEAR) == "␛]0;PWNED␇␛[2J"
    assert safe("a\x1b[31mb\x07\x7f\x9b") == "a␛[31mb␇␡\\u009b"
    assert safe(FORGED) == "x␊PASS: 0 cases broke"  # one line: no verdict line of its own
    assert safe(RIGHT_TO_LEFT + "\u2066\u200b\U000e0041") == "\\u202eevil\\u2066\\u200b\\U000e0041"
    assert safe("a\nb\tc\x1b", lines=True) == "a\nb\tc␛"  # a stored output keeps its lines
    assert literal("[bold red]x").plain == "[bold red]x"


def test_markdown_has_no_markup_html_or_mention() -> None:
    assert markdown("@user and @org/team") == "@&#8203;user and @&#8203;org/team"
    assert markdown("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert markdown("*a* _b_ [c](d) `e` | ~f~ #1 \\") == (
        "\\*a\\* \\_b\\_ \\[c\\](d) \\`e\\` \\| \\~f\\~ \\#1 \\\\"
    )
    assert markdown(FORGED + TITLE_AND_CLEAR) == "x␊PASS: 0 cases broke␛\\]0;PWNED␇␛\\[2J"


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("cand_run_1", "`cand_run_1`"),  # no escapes inside a code span
        ("a`b", "``a`b``"),
        ("`x", "`` `x ``"),
        ("@user <b>", "`@user <b>`"),
        ("a\x1bb", "`a␛b`"),
    ],
)
def test_a_code_span_holds_any_text(text: str, span: str) -> None:
    assert markdown_code(text) == span


def _hostile(tmp_path: Path) -> Comparison:
    """Case ids, run ids, key values and rule names a pull request chose."""
    cases = [f"@org/team{TITLE_AND_CLEAR}", FORGED, RIGHT_TO_LEFT, "case-4"]
    # Decisions on the rule names gate.yaml gives (a limit on a rule no run has is bad input).
    rules = {"r\x1b]0;PWNED\x07": "approve", "@here": "approve"}
    labelled = {"expected": rules, "actual": rules}
    base = [row | labelled for row in passfail_rows({case: [True] for case in cases})]
    cand = [
        row | labelled
        for row in passfail_rows({case: [i % 2 == 0] for i, case in enumerate(cases)})
    ]
    key = {"model": f"m{TITLE_AND_CLEAR}"}
    baseline = load_run(write_run(tmp_path / "b", base, run_id=f"base`{TITLE_AND_CLEAR}", key=key))
    candidate = load_run(write_run(tmp_path / "c", cand, run_id="cand_run_1", key=key))
    gate = tmp_path / "gate.yaml"
    gate.write_text(
        'outcomes:\n  limits:\n    zero_false_negative_rules: ["r\\e]0;PWNED\\a", "@here"]\n'
    )
    return compare(baseline, candidate, load_spec(gate), FlakyList())


def test_the_text_report_shows_hostile_strings_and_forges_no_line(tmp_path: Path) -> None:
    console = Console(record=True, width=200, force_terminal=True, color_system=None)
    console.print(report.to_text(_hostile(tmp_path)))
    out = console.export_text()
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert not any(line.startswith("PASS") for line in out.splitlines()[1:])
    assert "r␛]0;PWNED␇" in out  # the rule name from gate.yaml, in the gate's description


def test_the_markdown_report_is_safe_to_post(tmp_path: Path) -> None:
    text = report.to_markdown(_hostile(tmp_path))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "@org" not in text and "@here" not in text  # no mention pings anyone
    assert "`cand_run_1`" in text  # a run id in a code span is not escaped
    assert "``base`␛]0;PWNED␇␛[2J``" in text  # and a backtick does not end its span


def test_default_spec_is_described_plainly() -> None:
    assert safe(gate_words(default_spec())) == gate_words(default_spec())
