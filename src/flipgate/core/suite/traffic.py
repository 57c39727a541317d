"""`traffic.yaml`: what production traffic asks for, as each intent's share over a window.

    window: {from: 2026-05-05, to: 2026-08-02}
    source: support conversations, tagged by the intent classifier
    intents:
      multi_turn_ops: 0.221
      document_upload: 0.194

Shares need not add up to 1: what is left is traffic with no intent, reported as unclassified.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

from flipgate.core.suite.fields import load_mapping

TRAFFIC = "traffic.yaml"
FIELDS = ("window", "source", "intents")
ROUNDING = 1e-6  # shares written to three decimals may add up to a hair above 1


@dataclass(frozen=True)
class Traffic:
    start: date
    end: date
    source: str | None
    shares: pl.DataFrame  # intent, share

    @property
    def unclassified(self) -> float:
        return max(0.0, 1.0 - float(self.shares["share"].sum()))


def load_traffic(path: Path) -> Traffic:
    data, check = load_mapping(path, FIELDS, "traffic has `window` and `intents`")
    window = check.mapping(data.get("window"), "window", ("from", "to"))
    start, end = (check.day(window.get(k), f"window.{k}") for k in ("from", "to"))
    if end < start:
        raise check.bad("window.to", f"the window ends ({end}) before it starts ({start})")
    source = check.text(data["source"], "source") if data.get("source") is not None else None
    intents = data.get("intents")
    if not isinstance(intents, dict) or not intents:
        raise check.bad("intents", "a mapping of intent -> share of traffic, at least one")
    shares = {str(k): check.share(v, f"intents.{k}") for k, v in intents.items()}
    if sum(shares.values()) > 1 + ROUNDING:
        raise check.bad("intents", f"the shares add up to {sum(shares.values()):.3f}, above 1")
    frame = pl.DataFrame(
        {"intent": list(shares), "share": list(shares.values())},
        schema={"intent": pl.String, "share": pl.Float64},
    )
    return Traffic(start, end, source, frame)
