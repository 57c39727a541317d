"""What a run says of itself: each note a code with its facts in the core, its words here, shown
as before (the importers' tests hold the real logs' notes)."""

from __future__ import annotations

import dataclasses

from flipgate.core.gate.reruns import RerunReplaced
from flipgate.core.importers.notes import (
    CachedRepeats,
    DocumentsMissing,
    ImportNote,
    LogNotFinished,
    RepetitionsMissing,
    RowsMissing,
)
from flipgate.core.vocab import RUN_NOTE_CODES
from flipgate.present.run_notes import note_words

NOTES: dict[ImportNote | RerunReplaced, str] = {
    LogNotFinished("error", 20, 24): "the Inspect log's status is 'error': the run did not "
    "finish (20 of 24 repetitions never ran)",
    LogNotFinished("started", 0, 90): "the Inspect log's status is 'started': the run did not "
    "finish",
    DocumentsMissing(3, 40): "3 of 40 lm-eval documents have no line in the samples files",
    RowsMissing(40, 48): "40 of 48 promptfoo rows are missing: the eval did not finish "
    "(interrupted, or exported while it ran)",
    CachedRepeats(9, tuple(f"t{i}" for i in range(7))): "promptfoo served 9 repeats from its "
    "cache (t0, t1, t2, t3, t4 and 2 more): those repeats are not independent runs; rerun with "
    "--no-cache",
    RepetitionsMissing(4, 3): "4 repetitions are missing: some cases have fewer rows than the 3 "
    "of the most repeated",
    RerunReplaced(12, "rerun-7"): "12 flipped cases replaced by the rerun rerun-7",
}


def test_every_note_has_a_code_facts_and_words() -> None:
    assert {type(note).code for note in NOTES} == set(RUN_NOTE_CODES)
    for note, words in NOTES.items():
        assert note_words(note) == words
        # the facts are counts, names and ids: no sentence in the core
        for field in dataclasses.fields(note):
            value = getattr(note, field.name)
            assert not (isinstance(value, str) and " " in value), (note, value)
