"""The gate result as a CI job prints it: JSON (SPEC §8, `as_json`), plain text for a log
(`as_text`), Markdown for a pull request (`as_markdown`); `shared` holds what they share. The words
of every reason come from `present.reasons`.
"""

from typing import TYPE_CHECKING, Any

from flipgate.present.report.as_json import json_text, to_json
from flipgate.present.report.as_markdown import to_markdown
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

if TYPE_CHECKING:
    from flipgate.present.report.as_text import to_text


def __getattr__(name: str) -> Any:
    """`to_text`, imported when first asked for: the text report draws with Rich, which the JSON
    report in CI goes without (0.06 s of CPU at its start-up)."""
    if name == "to_text":
        from flipgate.present.report.as_text import to_text

        return to_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
