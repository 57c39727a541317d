"""Several runs' decision outcomes side by side (`flipgate outcomes`, seed 000's last table):
each run read and judged on its own by one gate spec, none of them a baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import ArmResults, judge_runs
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.importers import ImportOptions
from flipgate.core.runs.reading import load_run


@dataclass(frozen=True)
class SideBySide:
    spec: GateSpec
    runs: tuple[ArmResults, ...]  # in the order given


def side_by_side(
    paths: Sequence[Path], gate: Path | None = None, import_options: ImportOptions | None = None
) -> SideBySide:
    """Read every run (a run folder, its run.yaml, or another tool's log), then judge each by
    `gate` (the defaults when None). Two runs at least: one is not a comparison."""
    if len(paths) < 2:
        raise InputError(
            paths[0] if paths else Path("RUN"), "give two runs or more to set side by side"
        )
    spec = load_spec(gate)
    runs = [load_run(path, import_options=import_options) for path in paths]
    return SideBySide(spec, judge_runs(runs, spec))
