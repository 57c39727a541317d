"""Snapshots of the case list filtered by ledger state, in the dark and light themes at the common
terminal size and at 80x24: a promptfoo run interrupted after 8 of its 48 rows, gated with
`--allow-partial` (every case, then those whose run did not finish)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from flipgate.session import ImportOptions

from .conftest import keys, open_app

PROMPTFOO = Path(__file__).parents[1] / "fixtures" / "promptfoo"

Snap = Callable[..., bool]


@pytest.mark.parametrize(
    ("theme", "size"),
    [("dark", (140, 45)), ("dark", (80, 24)), ("light", (140, 45)), ("light", (80, 24))],
    ids=lambda value: value if isinstance(value, str) else f"{value[0]}x{value[1]}",
)
def test_run_not_finished_cases(snap_compare: Snap, theme: str, size: tuple[int, int]) -> None:
    app = open_app(
        PROMPTFOO / "file-prompts" / "results.json",
        PROMPTFOO / "interrupted" / "results.json",
        theme=theme,
        allow_partial=True,
        import_options=ImportOptions(select={"prompt": "v1"}),
    )
    assert snap_compare(app, terminal_size=size, run_before=keys("r", "a", "l", "l"))
