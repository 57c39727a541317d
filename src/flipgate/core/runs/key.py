"""The cache key (SPEC §2, `key` in run.yaml): what a run measured, and what moved between two."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ABSENT = "(absent)"  # a component one of the keys does not name


@dataclass(frozen=True)
class Component:
    """One component of two keys, side by side; None where a key does not name it."""

    name: str
    before: str | None
    after: str | None

    @property
    def moved(self) -> bool:
        return self.before != self.after

    @property
    def shown_before(self) -> str:
        return ABSENT if self.before is None else self.before

    @property
    def shown_after(self) -> str:
        return ABSENT if self.after is None else self.after


def key_components(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[Component, ...]:
    """Every component either key names, sorted by name, moved or not."""
    return tuple(
        Component(name, before.get(name), after.get(name)) for name in sorted({*before, *after})
    )


def moved_components(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[Component, ...]:
    """The components that differ between the two keys, sorted by name."""
    return tuple(c for c in key_components(before, after) if c.moved)
