"""What the app was opened on, and what it loaded: shared by the app and its screens."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flipgate.core.curation.flips import identical_runs
from flipgate.core.gate.flaky import FlakyList, load_flaky
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.importers import ImportOptions
from flipgate.core.runs.model import Progress, Run
from flipgate.core.runs.reading import load_run

RERUNS_FOLDER = "reruns"  # reruns/baseline and reruns/candidate: the escalation's results


@dataclass(frozen=True)
class Sources:
    """The two runs, the optional spec and flaky list, and the workspace things are written to."""

    baseline: Path
    candidate: Path
    gate: Path | None
    flaky: Path | None
    declared_change: tuple[str, ...]
    plan_folder: Path  # the workspace, or the folder beside the candidate run
    import_options: ImportOptions | None = None  # for Inspect / promptfoo logs
    repeats: tuple[Path, ...] = ()
    reruns: tuple[Path, Path] | None = None

    @property
    def flaky_path(self) -> Path:
        """Where the flaky list is, or will be once a first entry is accepted."""
        return self.flaky or self.plan_folder / "flaky.yaml"

    def rerun_paths(self) -> tuple[Path, Path] | None:
        """The rerun results given on the command line, else the workspace's `reruns/` folder."""
        if self.reruns is not None:
            return self.reruns
        folder = self.plan_folder / RERUNS_FOLDER
        pair = (folder / "baseline", folder / "candidate")
        return pair if all(path.exists() for path in pair) else None


@dataclass(frozen=True)
class LoadedRuns:
    """The two arms and the identical baseline runs, read and checked."""

    baseline: Run
    candidate: Run
    repeats: tuple[Run, ...]


def load_runs(sources: Sources, progress: Progress | None = None) -> LoadedRuns:
    options = sources.import_options
    baseline = load_run(sources.baseline, progress=progress, import_options=options)
    candidate = load_run(sources.candidate, progress=progress, import_options=options)
    if sources.repeats and progress is not None:
        progress(f"reading {len(sources.repeats)} identical baseline runs")
    repeats = tuple(load_run(path, import_options=options) for path in sources.repeats)
    if repeats:  # refused here, before any screen, as `flaky propose` refuses them
        identical_runs([baseline, *repeats], at_least=1)
    return LoadedRuns(baseline, candidate, repeats)


def read_gate(
    progress: Progress, gate: Path | None, flaky: Path | None
) -> tuple[GateSpec, FlakyList]:
    """The gate spec and the flaky list, each a step of a loading worker's progress."""
    progress("reading the gate spec")
    spec = load_spec(gate)
    progress("reading the flaky list")
    return spec, load_flaky(flaky)
