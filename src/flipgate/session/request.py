"""What a front end asks of the gate, with every default filled in at one place.

A command names a workspace or its runs, and perhaps some files; `GateRequest.of` resolves the
rest: the workspace's `gate.yaml`, `flaky.yaml`, `suite.yaml`, `baseline-repeats/` and `reruns/`,
the base the change is going to, and the folder where plans, the triage walk, decisions and a new
flaky list are written. The command line and the app build their requests with it and nothing
else, so the same arguments mean the same files everywhere.

A later option is one keyword of `of`, one field here and, where it is read, one step of
`reading.read`; the front ends pass it through unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from flipgate.core.errors import InputError
from flipgate.core.importers import ImportOptions, detect_format
from flipgate.core.io.digest import RESULTS_FILES, RUN_FILE
from flipgate.core.io.remote import fetched, is_copy
from flipgate.core.rank.campaign import is_campaign, load_campaign
from flipgate.core.runs.workspace import (
    FLAKY_LIST,
    GATE_SPEC,
    REJUDGED_FOLDER,
    RERUNS_FOLDER,
    SUITE_MANIFEST,
    find_repeats,
    is_workspace,
    load_workspace,
)
from flipgate.core.vocab import ARMS

DEFAULT_RERUN_TARGET = 0.8  # the chance to resolve that the cheapest rerun plan must reach
DECISIONS_FOLDER = "decisions"  # where a signed decision goes, inside the request's folder

# What a command accepts for its RUNs: a workspace or BASELINE CANDIDATE (`gate`, `decide`);
# those or a campaign workspace (`open`); a campaign or INCUMBENT CANDIDATE ... (`rank`).
Shape = Literal["pair", "pair_or_campaign", "ranking"]


@dataclass(frozen=True)
class Base:
    """Where the change under test is going (SPEC §8 `--base-*`): the gate spec, flaky list and
    suite manifest there, read at a git revision (`ref`) or named file by file. With `ref`,
    `gate` and `flaky` are the files to look up at it (the ones this gate reads, or where a
    workspace would hold them); a None half is not checked."""

    ref: str | None
    gate: Path | None
    flaky: Path | None
    suite: Path | None  # named files only: with `ref`, the request's own manifest is read at it


@dataclass(frozen=True)
class GateRequest:
    """The runs to compare and the files that judge them, each resolved; frozen, so a worker
    and the screen that started it read the same thing."""

    baseline: Path
    candidate: Path  # the one gated; of a campaign, the one opened
    gate: Path | None  # None: the spec's defaults
    flaky: Path | None  # None: no list
    suite: Path | None  # the suite manifest, whose retired cases are left out of b and c
    base: Base | None  # None: nothing checked against where the change is going
    declared_change: tuple[str, ...]  # key components the change may move, beside change.keys
    import_options: ImportOptions  # for a run that is an Inspect or promptfoo log
    repeats: tuple[Path, ...]  # identical baseline runs: triage, flaky curation, calibration
    reruns: tuple[Path, Path] | None  # the escalation's results given on the command line
    folder: Path  # the workspace, or the folder that holds the candidate: what is written goes here
    workspace: Path | None
    candidates: tuple[tuple[str | None, Path], ...] = ()  # a ranking's; name None: its run_id
    rerun_target: float = DEFAULT_RERUN_TARGET  # the chance the cheapest rerun plan reaches
    rejudged: Path | None = None  # judging passes of the arms' stored outputs (rejudged/)
    prereg: Path | None = None  # the rule registered before the run (`flipgate prereg`)
    allowed_signers: Path | None = None  # who may register it; None: git's allowedSignersFile
    ledger: str | None = None  # the attempts' ledger: a file, `git` or `git:REMOTE`; None: the
    # gate spec's `ledger:`, if any
    change_id: str | None = None  # the change gated; None: the candidate's cache key
    look: int | None = None  # this look at the change (looks.py); None: the first, or the rerun
    allow_partial: bool = False  # gate a run not whole (never to PASS) rather than refuse it

    @classmethod
    def of(
        cls,
        runs: Sequence[str | Path],
        *,
        shape: Shape = "pair",
        gate: Place | None = None,
        flaky: Place | None = None,
        suite: Place | None = None,
        base_ref: str | None = None,
        base_gate: Path | None = None,
        base_flaky: Path | None = None,
        base_suite: Path | None = None,
        change: Iterable[str] = (),
        import_options: ImportOptions | None = None,
        repeats: Sequence[Place] = (),
        rerun_baseline: Place | None = None,
        rerun_candidate: Place | None = None,
        rerun_target: float = DEFAULT_RERUN_TARGET,
        rejudged: Place | None = None,
        prereg: Path | None = None,
        allowed_signers: Path | None = None,
        ledger: str | None = None,
        change_id: str | None = None,
        look: int | None = None,
        allow_partial: bool = False,
    ) -> GateRequest:
        """The request for `runs` (a workspace, or the runs themselves) as `shape` allows, with
        every file not given taken from the workspace. A run or a file may be a URL: it is read
        from a local copy (`core.io.remote`). Bad input (no such workspace, a campaign where a
        pair is wanted, half a base or half the reruns, a URL that cannot be read) is an
        `InputError`."""
        baseline, candidate, candidates, workspace = _runs(runs, shape)
        gate, flaky, suite, rejudged = (_local(p) for p in (gate, flaky, suite, rejudged))
        repeat_runs = tuple(fetched(run) for run in repeats)
        reruns = _reruns(_local(rerun_baseline), _local(rerun_candidate))
        if workspace is not None:
            gate = gate or existing_file(workspace / GATE_SPEC)
            flaky = flaky or existing_file(workspace / FLAKY_LIST)
            suite = suite or existing_file(workspace / SUITE_MANIFEST)
            repeat_runs = repeat_runs or find_repeats(workspace)
            rejudged = rejudged or _folder(workspace / REJUDGED_FOLDER)
        if rejudged is not None and not rejudged.is_dir():
            raise InputError(rejudged, "no such folder (rejudged/ holds baseline/ and candidate/)")
        if reruns is not None and candidates:
            raise InputError(
                Path("--rerun-candidate"),
                "rerun results belong to one candidate: give the pair, BASELINE CANDIDATE",
            )
        if candidates and (prereg or ledger or change_id):
            raise InputError(
                Path("--prereg" if prereg else "--ledger" if ledger else "--change-id"),
                "holds one change to its rule and its attempts: give the pair, not a campaign",
            )
        if prereg is not None and not prereg.is_file():
            raise InputError(prereg, "no such registration file (`flipgate prereg` writes one)")
        if change_id is not None and not change_id.strip():
            raise InputError(Path("--change-id"), "an empty change id names no change")
        return cls(
            baseline=baseline,
            candidate=candidate,
            gate=gate,
            flaky=flaky,
            suite=suite,
            base=_base(base_ref, base_gate, base_flaky, base_suite, gate, flaky, workspace),
            declared_change=declared_components(change),
            import_options=import_options or ImportOptions(),
            repeats=repeat_runs,
            reruns=reruns,
            folder=_writable(workspace or _holder(candidate)),
            workspace=workspace,
            candidates=candidates,
            rerun_target=_target(rerun_target),
            rejudged=rejudged,
            prereg=prereg,
            allowed_signers=allowed_signers,
            ledger=ledger,
            change_id=change_id,
            look=look,
            allow_partial=allow_partial,
        )

    @property
    def is_campaign(self) -> bool:
        """Candidates to rank before one is gated (`candidates` empty: a pair)."""
        return bool(self.candidates)

    def with_candidate(self, name: str) -> GateRequest:
        """The pair of the incumbent and the candidate `name`: what its overview gates. What
        that overview writes still goes into the campaign's folder."""
        path = dict(self.candidates)[name]
        return replace(self, candidate=path, candidates=())

    @property
    def flaky_path(self) -> Path:
        """Where the flaky list is, or will be once a first entry is accepted."""
        return self.flaky or self.folder / FLAKY_LIST

    @property
    def decisions(self) -> Path:
        """The folder a signed decision is written to, unless the command names another."""
        return self.folder / DECISIONS_FOLDER

    @property
    def suite_workspace(self) -> Path | None:
        """The suite workspace whose manifest the gate reads, for the suite-health screen;
        None when the gate reads none, or one that is no workspace's `suite.yaml`."""
        suite = self.suite
        return suite.parent if suite is not None and suite.name == SUITE_MANIFEST else None

    @property
    def rerun_folder(self) -> Path:
        return self.folder / RERUNS_FOLDER

    def rerun_paths(self) -> tuple[Path, Path] | None:
        """The rerun results given on the command line, else the request's `reruns/` folder
        when it holds both arms (put there after the plan was exported, say), else a workspace
        read from a URL's."""
        copied = self.workspace if self.workspace and self.workspace != self.folder else None
        return self.reruns or _rerun_pair(self.folder) or (_rerun_pair(copied) if copied else None)


Place = Path | str  # a path, or a URL (`core.io.remote`): what a command line hands `of`

# A workspace's files, asked for by name when it is served over HTTP without a files.txt: its
# runs and the gate's files (baseline-repeats/, reruns/ and rejudged/ need the listing).
_OVER_HTTP = (
    GATE_SPEC,
    FLAKY_LIST,
    SUITE_MANIFEST,
    *(f"{arm}/{name}" for arm in ARMS for name in (RUN_FILE, *RESULTS_FILES)),
)


def _local(place: Place | None) -> Path | None:
    return None if place is None else fetched(place)


def _rerun_pair(folder: Path) -> tuple[Path, Path] | None:
    """FOLDER/reruns/baseline and FOLDER/reruns/candidate, when both are there."""
    pair = (folder / RERUNS_FOLDER / ARMS[0], folder / RERUNS_FOLDER / ARMS[1])
    return pair if all(path.exists() for path in pair) else None


def _writable(folder: Path) -> Path:
    """Where what the request writes goes: the folder of its runs, or for runs read from URLs
    (a copy that is removed on exit; a store is never written), the current folder."""
    return Path.cwd() if is_copy(folder) else folder


def _runs(
    given: Sequence[str | Path], shape: Shape
) -> tuple[Path, Path, tuple[tuple[str | None, Path], ...], Path | None]:
    """The baseline, the candidate, a ranking's candidates and the workspace, from the RUNs (a
    RUN given as a URL is read from a local copy)."""
    paths = [fetched(p, _OVER_HTTP) for p in given]
    if not paths:
        raise InputError(Path("RUN"), "give a workspace, or the runs")
    first = paths[0]
    if len(paths) == 1:
        if shape != "pair" and is_campaign(first):
            campaign = load_campaign(first)
            named = tuple((name, path) for name, path in campaign.candidates)
            return campaign.incumbent, named[0][1], named, first
        if shape == "ranking":
            if first.exists():
                raise InputError(
                    first,
                    "not a campaign workspace (baseline/ and candidates/NAME/): give one, or the "
                    "runs, INCUMBENT CANDIDATE [CANDIDATE ...]",
                )
            load_campaign(first)  # says there is no such workspace
        workspace = load_workspace(first)
        return workspace.baseline, workspace.candidate, (), first
    if is_workspace(first) or is_campaign(first):
        runs = "INCUMBENT CANDIDATE ..." if shape == "ranking" else "BASELINE CANDIDATE"
        raise InputError(first, f"a workspace stands alone: give a workspace, or {runs}")
    if shape == "ranking":
        return first, paths[1], tuple((None, path) for path in paths[1:]), None
    if len(paths) > 2:
        raise InputError(paths[2], "give a workspace, or exactly two runs: BASELINE CANDIDATE")
    return first, paths[1], (), None


def _target(target: float) -> float:
    if not 0 < target < 1:
        raise InputError(Path("--target"), f"a chance between 0 and 1, not {target!r}")
    return target


def _folder(path: Path) -> Path | None:
    return path if path.is_dir() else None


def existing_file(path: Path) -> Path | None:
    """`path` when it is a file: a workspace's gate spec, flaky list or suite manifest."""
    return path if path.is_file() else None


def _holder(run: Path) -> Path:
    """The folder that holds the run: a run folder's parent (the folder given, or the one its
    run.yaml is in), a log file's own folder."""
    if run.is_dir() or (run.is_file() and detect_format(run) is not None):
        return run.parent
    return run.parent.parent


def declared_components(change: Iterable[str]) -> tuple[str, ...]:
    """The components of every --change, given one at a time or separated by commas."""
    parts = (part.strip() for item in change for part in item.split(","))
    return tuple(part for part in parts if part)


def _reruns(baseline: Path | None, candidate: Path | None) -> tuple[Path, Path] | None:
    if (baseline is None) != (candidate is None):
        raise InputError(
            Path("--rerun-baseline"), "give both --rerun-baseline and --rerun-candidate, or neither"
        )
    if baseline is None or candidate is None:
        return None
    for path in (baseline, candidate):
        if not path.exists():
            raise InputError(path, "no such run (expected a run directory, its run.yaml, or a log)")
    return baseline, candidate


def _base(
    ref: str | None,
    gate: Path | None,
    flaky: Path | None,
    suite: Path | None,
    read_gate: Path | None,
    read_flaky: Path | None,
    workspace: Path | None,
) -> Base | None:
    """The base named on the command line. At a revision, the files to look up there are those
    this gate reads, or where the workspace would hold them: a file added in the change is
    checked against the defaults, and one deleted in it, as the defaults against the base."""
    if ref is None:
        given = any(path is not None for path in (gate, flaky, suite))
        return Base(None, gate, flaky, suite) if given else None
    if any(path is not None for path in (gate, flaky, suite)):
        raise InputError(
            Path("--base-ref"),
            "give --base-ref, or --base-gate/--base-flaky/--base-suite: not both",
        )
    return Base(
        ref,
        read_gate or (workspace / GATE_SPEC if workspace else None),
        read_flaky or (workspace / FLAKY_LIST if workspace else None),
        None,
    )
