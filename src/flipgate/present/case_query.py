"""What the case list shows: its filters (all must hold), its sort and a search by case id, over
the table `casefile.red_table` makes, vectorised on its columns.

Besides the direction, outcome, rule, template and who flipped it, a case is found by its state in
the case ledger (`vocab.CaseState`: paired, new, deleted, infra, excluded, missing repetitions,
run not finished) and by divergence: its arms' outputs or trajectories differ, whatever the
verdicts say (`present/divergence.py` finds those cases, on request).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

import polars as pl

from flipgate.core.gate.outcomes import WRONG_WORST_FIRST
from flipgate.core.vocab import CASE_STATES, FLIP_SOURCES, CaseState
from flipgate.present.casefile import CHECK_FAILED, DIRECTIONS, KINDS, OUTCOME_SHORT, sort_cases
from flipgate.present.reasons.ledger import STATE_WORDS
from flipgate.present.text import safe


@dataclass(frozen=True)
class CaseQuery:
    """What the red-case table shows: filters (all must hold), a sort and a case-id search."""

    kind: str | None = None  # one of KINDS
    safety: bool = False
    flaky: bool = False
    outcome: str | None = None  # a wrong outcome, or CHECK_FAILED
    template: str | None = None
    rule: str | None = None
    source: str | None = None  # who flipped it: model, grader, unknown (vocab.FlipSource)
    state: CaseState | None = None  # a state of the case ledger
    diverged: frozenset[str] | None = None  # the cases whose arms diverge; None: not filtered
    search: str = ""
    held: frozenset[str] = frozenset()  # the cases whose outputs or reasons hold `search`
    sort: str = "direction"
    descending: bool = False  # reverses the sort's natural order

    @classmethod
    def from_filter(cls, text: str | None) -> CaseQuery:
        """A filter given by name: a kind (`pass_to_fail`), `safety`, `flaky`, or `field:value`
        for outcome, template, rule, source and ledger state (`state:missing_repetitions`)."""
        if not text:
            return cls()
        if text in KINDS:
            return cls(kind=text)
        if text == "safety":
            return cls(safety=True)
        if text == "flaky":
            return cls(flaky=True)
        name, _, value = text.partition(":")
        if value and name == "outcome":
            return cls(outcome=value)
        if value and name == "template":
            return cls(template=value)
        if value and name == "rule":
            return cls(rule=value)
        if value in FLIP_SOURCES and name == "source":
            return cls(source=value)
        state = next((s for s in CASE_STATES if s == value), None)
        if state is not None and name == "state":
            return cls(state=state)
        raise ValueError(
            f"unknown filter {text!r}: use one of {', '.join(KINDS)}, safety, flaky, "
            "or outcome:NAME, template:NAME, rule:NAME, source:model|grader|unknown, "
            f"state:{'|'.join(CASE_STATES)}"
        )

    def cleared(self) -> CaseQuery:
        return CaseQuery(sort=self.sort, descending=self.descending)

    def with_(self, **changes: Any) -> CaseQuery:
        return replace(self, **changes)

    @property
    def filters(self) -> tuple[str, ...]:
        """The active filters in words, for the header line."""
        words = []
        if self.kind:
            words.append(DIRECTIONS[self.kind].lstrip("↓↑ "))
        if self.safety:
            words.append("safety")
        if self.flaky:
            words.append("flaky listed")
        if self.outcome:
            words.append(OUTCOME_SHORT.get(self.outcome, self.outcome))
        if self.template:
            words.append(f"template {safe(self.template)}")
        if self.rule:
            words.append(f"rule {safe(self.rule)}")
        if self.source:
            words.append(f"flipped by {self.source}")
        if self.state:
            words.append(STATE_WORDS[self.state])
        if self.diverged is not None:
            words.append("arms diverge")
        if self.search:
            words.append(
                f"“{safe(self.search)}”" + (" in ids, outputs, reasons" if self.held else "")
            )
        return tuple(words)


def select_cases(table: pl.DataFrame, query: CaseQuery) -> pl.DataFrame:
    """The red cases the query keeps, in its order."""
    conditions: list[pl.Expr] = []
    if query.kind == "unpaired":
        conditions.append(pl.col("kind") == "unpaired")
    elif query.kind:
        conditions.append(pl.col("cell") == query.kind)
    if query.safety:
        conditions.append(pl.col("safety"))
    if query.flaky:
        conditions.append(pl.col("listed"))
    if query.outcome:
        conditions.append(pl.col("outcomes").list.contains(query.outcome))
    if query.template:
        conditions.append(pl.col("template") == query.template)
    if query.rule:
        conditions.append(pl.col("rules").list.contains(query.rule))
    if query.source:
        conditions.append(pl.col("source") == query.source)
    if query.state:
        conditions.append(pl.col("state") == query.state)
    if query.diverged is not None:
        conditions.append(pl.col("case").is_in(list(query.diverged)))
    if query.search:
        in_id = pl.col("case_lower").str.contains(query.search.lower(), literal=True)
        conditions.append(in_id | pl.col("case").is_in(list(query.held)))
    kept = table.filter(*conditions) if conditions else table
    return sort_cases(kept, query.sort, descending=query.descending)


def describe(query: CaseQuery, shown: int, total: int, *, every: bool = False) -> str:
    """The header line: "pass→fail · 10 of 342 cases to review" (`every`: "of 1,000 cases")."""
    noun = ("case" if total == 1 else "cases") + ("" if every else " to review")
    count = f"{shown} of {total} {noun}" if shown != total or query.filters else f"{total} {noun}"
    return " · ".join((*query.filters, count))


def choices(
    table: pl.DataFrame, column: Literal["rules", "outcomes", "source", "state"]
) -> tuple[str, ...]:
    """The values a filter can cycle through, in a stable order (outcomes worst first, states
    in the ledger's order)."""
    # distinct in polars first: a million cases' rules are millions of Python strings
    present = set(table[column].explode().drop_nulls().unique().to_list())
    if column == "state":
        return tuple(state for state in CASE_STATES if state in present)
    if column == "outcomes":
        return tuple(o for o in (*WRONG_WORST_FIRST, CHECK_FAILED) if o in present)
    if column == "source":
        return tuple(source for source in FLIP_SOURCES if source in present)
    return tuple(sorted(present))


__all__ = ["CaseQuery", "choices", "describe", "select_cases"]
