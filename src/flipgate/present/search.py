"""Which cases hold a piece of text in what a reviewer reads: a stored output, or the reason given
for a decision or a check, in either arm. Case-insensitive, the text taken literally, vectorised
(one pass of each frame, no lowercased copy of a million outputs). Pure: no terminal.
"""

from __future__ import annotations

import re

import polars as pl

from flipgate.core.gate.compare import Comparison
from flipgate.core.vocab import ARMS


def cases_holding(comparison: Comparison, text: str) -> frozenset[str]:
    """The cases whose outputs or reasons hold `text` (any case); empty text holds nothing."""
    if not text:
        return frozenset()
    holds = pl.col("text").str.contains(f"(?i){re.escape(text)}")
    frames = []
    for arm in ARMS:
        run = comparison.run(arm)
        for frame, column in (
            (run.reps, "output"),
            (comparison.decisions[arm], "reason"),
            (run.checks, "reason"),
        ):
            found = frame.lazy().select("case", pl.col(column).alias("text")).filter(holds)
            frames.append(found.select("case"))
    return frozenset(pl.concat(frames).unique().collect()["case"].to_list())
