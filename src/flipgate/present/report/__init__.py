"""The gate result as a CI job prints it: JSON (SPEC §8, `as_json`), plain text for a log
(`as_text`), Markdown for a pull request (`as_markdown`); `shared` holds what they share. The words
of every reason come from `present.reasons`.
"""

from flipgate.present.report.as_json import json_text, to_json
from flipgate.present.report.as_markdown import to_markdown
from flipgate.present.report.as_text import to_text
from flipgate.present.report.shared import (
    ALLOW_PARTIAL_NOTE,
    CASES_NAMED,
    DIRECTION_WORDS,
    EFFECT_METHOD,
    NOT_BALANCED,
    VERDICT_STYLE,
    boundary_words,
    effect_line,
    effect_method,
    exit_code,
    found,
    interval_words,
    ledger_words,
    left_out_groups,
    limit_lines,
    looks_line,
    never_event_brief,
    power_rows,
    power_title,
    run_words,
    unchecked_note,
    worth_line,
)

__all__ = [
    "ALLOW_PARTIAL_NOTE",
    "CASES_NAMED",
    "DIRECTION_WORDS",
    "EFFECT_METHOD",
    "NOT_BALANCED",
    "VERDICT_STYLE",
    "boundary_words",
    "effect_line",
    "effect_method",
    "exit_code",
    "found",
    "interval_words",
    "json_text",
    "ledger_words",
    "left_out_groups",
    "limit_lines",
    "looks_line",
    "never_event_brief",
    "power_rows",
    "power_title",
    "run_words",
    "to_json",
    "to_markdown",
    "to_text",
    "unchecked_note",
    "worth_line",
]
