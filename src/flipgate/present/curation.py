"""What an edit of the flaky list or the suite manifest did, in words (the facts:
`core/curation/entries.py`'s `Edit`, `core/suite/manifest.py`'s `Retirement`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flipgate.core.curation.entries import Edit, Listed

if TYPE_CHECKING:  # the manifest's reader imports pyarrow, which the app need not load for this
    from flipgate.core.suite.manifest import Retirement


def done_words(done: Edit | Retirement) -> str:
    """What an edit did, in a line: `listed case-030 (owner sam); 0 of 3 slots left`."""
    if isinstance(done, Edit):
        if isinstance(done.done, Listed):
            listed = done.done
            return f"listed {listed.case} (owner {listed.owner}); {listed.left} of {listed.cap} slots left"
        return f"retired {done.done.case}: {done.done.note}"
    manifest = done.manifest
    said = (
        f"retired {done.case} on {done.day}: {done.reason} ({manifest.live.height} live cases, "
        f"{manifest.archive.height} archived)"
    )
    if not done.layout_kept:
        said += "; the file was written out whole, its comments dropped"
    return said
