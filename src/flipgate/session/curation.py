"""What the flaky-list and calibration commands read: identical runs of one baseline, the gate
spec and the flaky list, each a workspace's unless given (`flipgate flaky`, `flipgate calibrate`).

A flaky list is only ever edited where it was named: `--flaky FILE`, or the workspace's
`flaky.yaml` with `-w WORKSPACE`; never a `flaky.yaml` in whatever folder the command runs in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flipgate.core.curation.entries import load_list
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.plural import plural
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import (
    FLAKY_LIST,
    GATE_SPEC,
    REJUDGED_FOLDER,
    REPEATS_FOLDER,
    find_rejudged,
    find_repeats,
    is_workspace,
)
from flipgate.core.vocab import ARMS
from flipgate.session.request import existing_file


@dataclass(frozen=True)
class CurationRequest:
    """The runs and files of a curation command, each resolved."""

    identical: tuple[Path, ...]  # the RUNs given, else the workspace's baseline and repeats
    gate: Path | None  # None: the spec's defaults
    flaky: Path | None  # the list named, or the workspace's; None: nothing listed
    workspace: Path | None
    # the RUNs given, else the workspace's baseline and its judging passes (rejudged/baseline/)
    judgings: tuple[Path, ...] = ()

    @classmethod
    def of(
        cls,
        runs: Sequence[str | Path] = (),
        *,
        workspace: Path | None = None,
        gate: Path | None = None,
        flaky: Path | None = None,
    ) -> CurationRequest:
        """`runs`, or a workspace (`-w`, or the one RUN given): its baseline and
        `baseline-repeats/`, its `gate.yaml` and its `flaky.yaml` where not given."""
        paths = [Path(p) for p in runs]
        judgings = list(paths)
        if workspace is None and len(paths) == 1 and is_workspace(paths[0]):
            workspace, paths = paths[0], []
        if workspace is not None:
            if not workspace.is_dir():
                raise InputError(workspace, "no such workspace")
            baseline = [workspace / ARMS[0]] if (workspace / ARMS[0]).exists() else []
            rejudged = find_rejudged(workspace / REJUDGED_FOLDER).get(ARMS[0], ())
            judgings = judgings or [*baseline, *rejudged]
            paths = paths or [*baseline, *find_repeats(workspace)]
            gate = gate or existing_file(workspace / GATE_SPEC)
            flaky = flaky or existing_file(workspace / FLAKY_LIST)
        return cls(tuple(paths), gate, flaky, workspace, tuple(judgings))

    @property
    def flaky_file(self) -> Path:
        """The list to edit (a workspace's first entry starts its `flaky.yaml`); bad usage when
        neither a list nor a workspace was named."""
        if self.flaky is not None:
            return self.flaky
        if self.workspace is None:
            raise InputError(
                Path("--flaky"), "give --flaky FILE or -w WORKSPACE: the flaky list to edit"
            )
        return self.workspace / FLAKY_LIST

    @property
    def arms(self) -> tuple[Path, Path] | None:
        """The workspace's baseline and candidate, when it holds both: the suite as gated, and
        the run at hand."""
        if self.workspace is None:
            return None
        baseline, candidate = (self.workspace / arm for arm in ARMS)
        return (baseline, candidate) if baseline.exists() and candidate.exists() else None


def read_spec(request: CurationRequest) -> GateSpec:
    return load_spec(request.gate)


def read_flaky(request: CurationRequest) -> FlakyList:
    """The flaky list named (empty when none is, or when curation has yet to start it)."""
    return load_list(request.flaky)


def read_runs(paths: Sequence[Path]) -> list[Run]:
    """Each run read and checked, in the order given."""
    return [load_run(path) for path in paths]


def read_identical(request: CurationRequest, *, at_least: int) -> list[Run]:
    """The identical baseline runs; bad usage when fewer than `at_least` were given."""
    if len(request.identical) < at_least:
        where = request.workspace or (request.identical[0] if request.identical else Path("RUN"))
        raise InputError(
            where,
            f"give at least {plural(at_least, 'identical baseline run')} (or a workspace with "
            f"{REPEATS_FOLDER}/)",
        )
    return read_runs(request.identical)


def read_judgings(request: CurationRequest) -> tuple[Run, list[Run]]:
    """A run and its judging passes (the same stored outputs judged again); bad usage when no
    pass was given."""
    if len(request.judgings) < 2:
        where = request.workspace or (request.judgings[0] if request.judgings else Path("RUN"))
        raise InputError(
            where,
            "give a run and at least one judging pass of its outputs (or a workspace with "
            f"{REJUDGED_FOLDER}/{ARMS[0]}/)",
        )
    run, *passes = read_runs(request.judgings)
    return run, passes


def read_arms(request: CurationRequest) -> tuple[Run, Run] | None:
    arms = request.arms
    if arms is None:
        return None
    baseline, candidate = read_runs(arms)
    return baseline, candidate
