"""The sample workspaces that ship with flipgate: what plain `flipgate` opens."""

from __future__ import annotations

from pathlib import Path

DEFAULT_WORKSPACE = "listing-reviewer"  # the one plain `flipgate` opens


def bundled_samples() -> Path:
    """The sample workspaces: shipped inside the wheel, or beside the source tree."""
    packaged = Path(__file__).parents[1] / "sample_runs"
    return packaged if packaged.exists() else Path(__file__).parents[3] / "sample_runs"
