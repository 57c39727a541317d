"""What a run says of itself, in words (the notes: core/importers/notes.py, core/gate/reruns.py)."""

from __future__ import annotations

from functools import singledispatch

from flipgate.core.gate.reruns import RerunReplaced
from flipgate.core.importers.notes import (
    CachedRepeats,
    DocumentsMissing,
    LogNotFinished,
    RepetitionsMissing,
    RowsMissing,
)

CACHED_SHOWN = 5  # cases named in a note on cached repeats


@singledispatch
def note_words(note: object) -> str:
    raise TypeError(f"no words for the run note {note!r}")


@note_words.register
def _(n: LogNotFinished) -> str:
    never = f" ({n.missing} of {n.expected} repetitions never ran)" if n.missing else ""
    return f"the Inspect log's status is {n.status!r}: the run did not finish{never}"


@note_words.register
def _(n: DocumentsMissing) -> str:
    return f"{n.missing} of {n.expected} lm-eval documents have no line in the samples files"


@note_words.register
def _(n: RowsMissing) -> str:
    return (
        f"{n.missing} of {n.expected} promptfoo rows are missing: the eval did not finish "
        "(interrupted, or exported while it ran)"
    )


@note_words.register
def _(n: CachedRepeats) -> str:
    more = len(n.cases) - CACHED_SHOWN
    shown = ", ".join(n.cases[:CACHED_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return (
        f"promptfoo served {n.repeats} repeats from its cache ({shown}): those repeats are not "
        "independent runs; rerun with --no-cache"
    )


@note_words.register
def _(n: RepetitionsMissing) -> str:
    return (
        f"{n.missing} repetitions are missing: some cases have fewer rows than the {n.most} of "
        "the most repeated"
    )


@note_words.register
def _(n: RerunReplaced) -> str:
    return f"{n.cases} flipped cases replaced by the rerun {n.run_id}"
