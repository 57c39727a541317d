"""Snapshots of every repetition of a case, on the bundled agent-suite sample a new user opens:
at the common terminal size and at 80x24 (the repetitions scroll sideways), in dark and light."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import SAMPLES

from .conftest import keys, open_app

SIZES = {"140x45": (140, 45), "80x24": (80, 24)}

Snap = Callable[..., bool]


@pytest.mark.parametrize("theme", ["dark", "light"])
@pytest.mark.parametrize("size", list(SIZES))
def test_every_repetition_of_a_sample_case(snap_compare: Snap, theme: str, size: str) -> None:
    app = open_app(SAMPLES / "agent-suite", theme=theme)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=keys("r", "enter", "a"))


def test_every_repetition_scrolled_sideways_at_80x24(snap_compare: Snap) -> None:
    """The cursor on the last candidate repetition's turn 5: the turn column stays put."""
    app = open_app(SAMPLES / "agent-suite")
    moves = ("r", "enter", "a", "right", "right", "right", "right", "right", "j", "j", "j", "j")
    assert snap_compare(app, terminal_size=(80, 24), run_before=keys(*moves))
