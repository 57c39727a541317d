"""A campaign workspace: the incumbent in `baseline/`, each candidate in `candidates/NAME/`.

Beside them, as in a gate workspace, an optional `gate.yaml` (whose `aggregate` is the release
rule) and `flaky.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.io.listing import folders_in
from flipgate.core.runs.model import Progress, Run
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import CANDIDATES, FLAKY_LIST, GATE_SPEC


@dataclass(frozen=True)
class Campaign:
    path: Path
    incumbent: Path
    candidates: tuple[tuple[str, Path], ...]  # (name, run folder), in name order
    gate: Path | None
    flaky: Path | None


def is_campaign(path: Path) -> bool:
    return path.is_dir() and (path / "baseline").exists() and (path / CANDIDATES).is_dir()


def load_campaign(path: Path) -> Campaign:
    if not path.exists():
        raise InputError(path, "no such workspace")
    if not is_campaign(path):
        raise InputError(path, f"not a campaign: it needs baseline/ and {CANDIDATES}/NAME/ folders")
    folder = path / CANDIDATES
    candidates = tuple((p.name, p) for p in folders_in(folder))
    if not candidates:
        raise InputError(folder, "no candidates: put each candidate's run in candidates/NAME/")
    gate, flaky = path / GATE_SPEC, path / FLAKY_LIST
    return Campaign(
        path=path,
        incumbent=path / "baseline",
        candidates=candidates,
        gate=gate if gate.exists() else None,
        flaky=flaky if flaky.exists() else None,
    )


@dataclass(frozen=True)
class CampaignRuns:
    """The incumbent and every candidate of a campaign, read and checked."""

    incumbent: Run
    candidates: tuple[tuple[str, Run], ...]


def load_campaign_runs(
    campaign: Campaign, progress: Progress | None = None, *, import_options: Any = None
) -> CampaignRuns:
    """Every run of the campaign; `import_options` for a run that is an Inspect or promptfoo log."""

    def read(path: Path) -> Run:
        return load_run(path, progress=progress, import_options=import_options)

    return CampaignRuns(
        read(campaign.incumbent), tuple((name, read(path)) for name, path in campaign.candidates)
    )
