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
        # the outputs scanned where they are stored, then their lines named by case
        outputs = run.texts.every(["output"]).lazy().select("line", text="output").filter(holds)
        frames.append(
            outputs.join(run.reps.lazy().select("line", "case"), on="line").select("case")
        )
        for frame in (comparison.decisions[arm], run.checks):
            found = frame.lazy().select("case", pl.col("reason").alias("text")).filter(holds)
            frames.append(found.select("case"))
    return frozenset(pl.concat(frames).unique().collect()["case"].to_list())
