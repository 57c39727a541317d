"""What an imported run says of itself that a user must see, each a code with its facts (words:
`present/run_notes.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from flipgate.core.vocab import RunNoteCode


@dataclass(frozen=True)
class LogNotFinished:
    """An Inspect log whose status is not `success`: the run did not finish."""

    code: ClassVar[RunNoteCode] = "log_not_finished"
    status: str
    missing: int  # planned repetitions that never ran
    expected: int


@dataclass(frozen=True)
class DocumentsMissing:
    """lm-evaluation-harness documents with no line in the samples files."""

    code: ClassVar[RunNoteCode] = "documents_missing"
    missing: int
    expected: int


@dataclass(frozen=True)
class RowsMissing:
    """promptfoo rows missing: the eval was interrupted, or exported while it ran."""

    code: ClassVar[RunNoteCode] = "rows_missing"
    missing: int
    expected: int


@dataclass(frozen=True)
class CachedRepeats:
    """Repeats promptfoo served from its cache: not independent runs."""

    code: ClassVar[RunNoteCode] = "cached_repeats"
    repeats: int
    cases: tuple[str, ...]  # sorted


@dataclass(frozen=True)
class RepetitionsMissing:
    """A table export whose cases have fewer rows than the most repeated one."""

    code: ClassVar[RunNoteCode] = "repetitions_missing"
    missing: int
    most: int  # the repetitions of the most repeated case


ImportNote = LogNotFinished | DocumentsMissing | RowsMissing | CachedRepeats | RepetitionsMissing
