"""A workspace: a folder holding `baseline/`, `candidate/`, and optionally the gate's files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from flipgate.core.errors import InputError
from flipgate.core.io.listing import folders_in


@dataclass(frozen=True)
class Workspace:
    """A folder holding `baseline/`, `candidate/`, and optionally `gate.yaml` and `flaky.yaml`."""

    path: Path
    baseline: Path
    candidate: Path
    gate: Path | None
    flaky: Path | None


# What a workspace may hold beside its runs, each name said once.
GATE_SPEC = "gate.yaml"
FLAKY_LIST = "flaky.yaml"
SUITE_MANIFEST = "suite.yaml"  # the suite's own record (core.suite.manifest): its retired cases
REPEATS_FOLDER = "baseline-repeats"  # a workspace's identical baseline runs
RERUNS_FOLDER = "reruns"  # reruns/baseline and reruns/candidate: the escalation's results
REJUDGED_FOLDER = "rejudged"  # rejudged/baseline/, rejudged/candidate/: judging passes (judge.py)
CANDIDATES = "candidates"  # a ranking workspace's candidates, one run in each CANDIDATES/NAME/


def find_repeats(workspace: Path) -> tuple[Path, ...]:
    """The runs under WORKSPACE/baseline-repeats/, in name order."""
    return folders_in(workspace / REPEATS_FOLDER)


def find_rejudged(folder: Path) -> dict[str, tuple[Path, ...]]:
    """FOLDER/baseline/ and FOLDER/candidate/: each entry a judging pass (a run folder, or a
    log), in name order; an arm without a folder has none."""
    found: dict[str, tuple[Path, ...]] = {}
    for arm in ("baseline", "candidate"):
        where = folder / arm
        if where.is_dir():
            found[arm] = tuple(sorted(p for p in where.iterdir() if not p.name.startswith(".")))
    return found


def is_workspace(path: Path) -> bool:
    return path.is_dir() and (path / "baseline").exists() and (path / "candidate").exists()


def load_workspace(path: Path) -> Workspace:
    if not path.exists():
        raise InputError(path, "no such workspace")
    if not is_workspace(path) and (path / CANDIDATES).is_dir():
        raise InputError(
            path,
            f"a workspace of candidates ({CANDIDATES}/NAME/): rank them with `flipgate rank "
            f"{path}`, or gate one: `flipgate gate {path / 'baseline'} {path / CANDIDATES}/NAME`",
        )
    if not is_workspace(path):
        raise InputError(path, "not a workspace: it needs baseline/ and candidate/ folders")
    gate, flaky = path / GATE_SPEC, path / FLAKY_LIST
    return Workspace(
        path=path,
        baseline=path / "baseline",
        candidate=path / "candidate",
        gate=gate if gate.exists() else None,
        flaky=flaky if flaky.exists() else None,
    )
