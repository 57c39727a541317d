"""`registry.yaml`: the feature flags and endpoints that are live, and what was removed when.

    flags: [upload_v2, slack_bridge]
    endpoints: [POST /v2/tickets, GET /v2/orders/<id>]
    removed:
      - {flag: upload_v1, date: 2026-03-09}
      - {endpoint: GET /v1/orders/lookup, date: 2026-01-20}

A case that references a name the registry does not hold as live tests something that is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

import polars as pl

from flipgate.core.suite.fields import load_mapping

REGISTRY = "registry.yaml"
KINDS = {"flags": "flag", "endpoints": "endpoint"}  # a list of the registry -> one of its names
FIELDS = (*KINDS, "removed")


@dataclass(frozen=True)
class Registry:
    live: pl.DataFrame  # kind (flag | endpoint), name
    removed: pl.DataFrame  # kind, name, removed (date)


def load_registry(path: Path) -> Registry:
    data, check = load_mapping(path, FIELDS, "a registry has `flags` and `endpoints`")
    live = [(KINDS[k], name) for k in KINDS for name in check.names(data.get(k), k)]
    removed: list[tuple[str, str, date]] = []
    entries = data.get("removed") or []
    if not isinstance(entries, list):
        raise check.bad(
            "removed", "a list of {flag: NAME, date: DATE} or {endpoint: NAME, date: DATE}"
        )
    for i, raw in enumerate(entries):
        at = f"removed.{i}"
        kinds = [k for k in KINDS.values() if isinstance(raw, dict) and k in raw]
        if not isinstance(raw, dict) or len(kinds) != 1 or set(raw) - {*kinds, "date"}:
            raise check.bad(at, "one of flag: NAME or endpoint: NAME, and date: DATE")
        kind = kinds[0]
        name = check.text(raw[kind], f"{at}.{kind}")
        if (kind, name) in live:
            raise check.bad(f"{at}.{kind}", f"{kind} {name!r} is both live and removed")
        removed.append((kind, name, check.day(raw.get("date"), f"{at}.date")))
    return Registry(
        pl.DataFrame(live, schema={"kind": pl.String, "name": pl.String}, orient="row"),
        pl.DataFrame(
            removed,
            schema={"kind": pl.String, "name": pl.String, "removed": pl.Date},
            orient="row",
        ),
    )
