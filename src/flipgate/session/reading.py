"""A request read: every file it names read and checked once, before anything is drawn or written.

`read` is what `flipgate gate`, `open`, `decide` and the app's loading worker call; bad input
anywhere is an `InputError` naming the file, line and field, raised before any comparison.
Each step is said to `progress` (a worker's progress bar, a terminal's status line) as it begins.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from flipgate.core.attempts.entry import RunSeen, change_of_key
from flipgate.core.attempts.judging import Recorded, ThisAttempt
from flipgate.core.attempts.ledger import Place, open_ledger
from flipgate.core.curation.flips import identical_runs
from flipgate.core.decision.registration import read_registration
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import FlakyList, load_flaky
from flipgate.core.gate.loosening import GateBase, base_at_ref, base_from_files
from flipgate.core.gate.registered import Registration, check_baseline
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.io.files import unreadable
from flipgate.core.plural import plural
from flipgate.core.runs.model import Progress, Run
from flipgate.core.runs.reading import check_runs_fit, load_run
from flipgate.core.runs.workspace import find_rejudged
from flipgate.core.vocab import ARMS, Arm
from flipgate.session.request import GateRequest


def silent(_description: str) -> None:
    """Progress nobody watches."""


@dataclass(frozen=True)
class Terms:
    """What the runs are judged by: the gate spec, the flaky list, the cases the suite retired
    and the gate where the change is going (None: not checked)."""

    spec: GateSpec
    flaky: FlakyList
    retired: Retirements
    base: GateBase | None


@dataclass(frozen=True)
class GateInputs:
    """A pair's request, read and checked: what `gate` compares."""

    request: GateRequest
    terms: Terms
    baseline: Run
    candidate: Run
    repeats: tuple[Run, ...]  # identical baseline runs, checked to be the baseline's system
    reruns: tuple[Run, Run] | None  # the escalation's results, baseline and candidate
    rejudged: dict[Arm, tuple[Run, ...]] = field(default_factory=dict)  # judging passes
    registration: Registration | None = None  # the rule registered before the run, verified
    recorded: Recorded | None = None  # the ledger of attempts and this gate; None: no ledger


@dataclass(frozen=True)
class CampaignInputs:
    """A campaign's request, read and checked: the incumbent and every candidate, by name."""

    request: GateRequest
    terms: Terms
    incumbent: Run
    candidates: tuple[tuple[str, Run], ...]
    repeats: tuple[Run, ...]

    def pair(self, name: str) -> GateInputs:
        """The incumbent and the candidate `name`, as a pair's inputs (its overview's)."""
        candidate = dict(self.candidates)[name]
        request = self.request.with_candidate(name)
        return GateInputs(request, self.terms, self.incumbent, candidate, self.repeats, None)


def read(
    request: GateRequest,
    progress: Progress = silent,
    *,
    lean: bool = False,
    terms: Terms | None = None,
) -> GateInputs:
    """Read and check everything `request` names: the spec, the flaky list, the retired cases,
    the base, both runs, the identical baseline runs and the rerun results.

    `lean` is for the verdict alone (`flipgate gate`): only the columns the gate reads are kept,
    and the identical baseline runs, which only the triage and the curation read, are not read.
    `terms`: the request's, read already (`flipgate open` reads them before the app starts).
    """
    terms = _terms(request, progress, terms)
    check_runs_fit((request.baseline, request.candidate), lean=lean)  # both held at once
    baseline, candidate = (
        # One arm after the other: each read already uses every core, and the peak memory halves.
        _run(path, request, progress, lean=lean)
        for path in (request.baseline, request.candidate)
    )
    repeats = () if lean else _repeats(request, baseline, progress)
    reruns = _reruns(request.reruns, request, progress)
    rejudged = _rejudged(request, progress)
    registration = _registration(request, baseline, progress)
    recorded = _recorded(request, terms.spec, baseline, candidate, progress)
    return GateInputs(
        request, terms, baseline, candidate, repeats, reruns, rejudged, registration, recorded
    )


def read_campaign(
    request: GateRequest, progress: Progress = silent, *, terms: Terms | None = None
) -> CampaignInputs:
    """Read and check a campaign: the terms (unless given, as `read` takes them), the incumbent
    and every candidate, kept in memory (the app opens any of them), and the identical baseline
    runs."""
    terms = _terms(request, progress, terms)
    check_runs_fit((request.baseline, *(path for _, path in request.candidates)))  # all held
    incumbent = _run(request.baseline, request, progress)
    candidates = []
    for name, path in request.candidates:
        run = _run(path, request, progress)
        candidates.append((name or run.run_id, run))
    repeats = _repeats(request, incumbent, progress)
    return CampaignInputs(request, terms, incumbent, tuple(candidates), repeats)


def read_again(
    inputs: GateInputs, progress: Progress = silent, *, reruns: bool = False
) -> GateInputs:
    """`inputs` with what may have changed since it was read: the flaky list and the suite
    manifest, which the app edits; with `reruns`, the rerun results found now (the workspace's
    `reruns/`, filled after the plan was exported) unless some were read already."""
    request = inputs.request
    progress("reading the flaky list")
    listed = request.flaky_path
    terms = replace(
        inputs.terms,
        flaky=load_flaky(listed if listed.exists() else None),
        retired=_retirements(request, progress),
    )
    found = inputs.reruns
    if reruns and found is None:
        paths = request.rerun_paths()
        if paths is None:
            raise InputError(
                request.rerun_folder, "no rerun results: put them in baseline/ and candidate/"
            )
        found = _reruns(paths, request, progress)
    return replace(inputs, terms=terms, reruns=found)


def read_terms(request: GateRequest, progress: Progress = silent) -> Terms:
    progress("reading the gate spec")
    spec = load_spec(request.gate)
    progress("reading the flaky list")
    flaky = load_flaky(request.flaky)
    return Terms(spec, flaky, _retirements(request, progress), _base(request, progress))


def reading_steps(request: GateRequest, *, terms: bool = True) -> int:
    """How many steps `read` (or, for a campaign, `read_campaign`) says: a progress bar's length;
    without `terms` when they were read already. Each run is read, then checked; an imported log
    is one step."""
    # the spec, the lists, the retirements, the base
    steps = 2 + _reads_retirements(request) + _reads_base(request) if terms else 0
    steps += 2 * (1 + max(1, len(request.candidates)))  # the baseline, each candidate
    steps += bool(request.repeats) + 4 * (request.reruns is not None)
    steps += request.rejudged is not None
    steps += (request.prereg is not None) + (request.ledger is not None)
    return steps


# --------------------------------------------------------------------------- the parts


def _terms(request: GateRequest, progress: Progress, terms: Terms | None) -> Terms:
    return read_terms(request, progress) if terms is None else terms


def _run(
    path: Path,
    request: GateRequest,
    progress: Progress = silent,
    *,
    lean: bool = False,
) -> Run:
    """The run at `path`. A file of it that the system cannot read (a disk error, a permission,
    a file gone while read) is bad input naming that file, exit 2, as a malformed one is: only a
    bug in flipgate is an internal error (SPEC §8)."""
    try:
        return load_run(path, progress=progress, import_options=request.import_options, lean=lean)
    except OSError as error:
        raise unreadable(Path(error.filename) if error.filename else path, error) from None


def _repeats(request: GateRequest, baseline: Run, progress: Progress) -> tuple[Run, ...]:
    if not request.repeats:
        return ()
    progress(f"reading {plural(len(request.repeats), 'identical baseline run')}")
    repeats = tuple(_run(path, request) for path in request.repeats)
    identical_runs([baseline, *repeats], at_least=1)  # refused as `flaky propose` refuses them
    return repeats


def _rejudged(request: GateRequest, progress: Progress) -> dict[Arm, tuple[Run, ...]]:
    """The judging passes of each arm's stored outputs (`rejudged/ARM/`), read whole: checked
    against their arm when the comparison is made (`core/gate/judge.py`)."""
    if request.rejudged is None:
        return {}
    found = find_rejudged(request.rejudged)
    progress(f"reading {plural(sum(map(len, found.values())), 'judging pass', 'judging passes')}")
    return {arm: tuple(_run(path, request) for path in found[arm]) for arm in ARMS if arm in found}


def _reruns(
    paths: tuple[Path, Path] | None, request: GateRequest, progress: Progress
) -> tuple[Run, Run] | None:
    if paths is None:
        return None
    baseline, candidate = (_run(path, request, progress) for path in paths)
    return baseline, candidate


def _reads_retirements(request: GateRequest) -> bool:
    base = request.base
    return request.suite is not None or (base is not None and base.suite is not None)


def _retirements(request: GateRequest, progress: Progress) -> Retirements:
    """The suite manifest's retired cases, and those retired where the change is going. Its
    reader imports pyarrow, which the gate on Parquet otherwise never loads (a tenth of a second
    of start-up): only when a manifest is named."""
    if not _reads_retirements(request):
        return NO_RETIREMENTS
    from flipgate.core.suite.manifest import load_retirements

    base = request.base
    progress("reading the suite manifest")
    return load_retirements(
        request.suite,
        base.suite if base is not None else None,
        base_ref=base.ref if base is not None else None,
    )


def _reads_base(request: GateRequest) -> bool:
    """A base spec or flaky list to read: at a revision, or named (a base suite manifest alone
    is read with the retirements)."""
    base = request.base
    return base is not None and (base.ref, base.gate, base.flaky) != (None, None, None)


def _base(request: GateRequest, progress: Progress) -> GateBase | None:
    """The gate spec and flaky list where the change is going (SPEC §8 `--base-*`)."""
    base = request.base
    if base is None or not _reads_base(request):
        return None
    if base.ref is None:
        progress("reading the base's gate spec and flaky list")
        return base_from_files(base.gate, base.flaky)
    progress(f"reading the gate spec and flaky list at {base.ref}")
    return base_at_ref(base.ref, base.gate, base.flaky)


def _registration(request: GateRequest, baseline: Run, progress: Progress) -> Registration | None:
    """The registration named, its signature and signer checked and its baseline this one's
    (bad input otherwise: nothing is judged under a rule nobody can vouch for)."""
    if request.prereg is None:
        return None
    progress("checking the pre-registration's signature")
    registration = read_registration(request.prereg, request.allowed_signers)
    check_baseline(registration, baseline)
    return registration


def _recorded(
    request: GateRequest, spec: GateSpec, baseline: Run, candidate: Run, progress: Progress
) -> Recorded | None:
    """The ledger of attempts named (`--ledger`, else the gate spec's `ledger:`), read and its
    chains checked, with this gate as the ledger will record it."""
    if request.ledger is not None:
        place = Place.parse(request.ledger, Path(), git=request.folder)
    elif spec.ledger is not None and spec.source is not None:
        place = Place.parse(spec.ledger, spec.source.parent, git=request.folder)
    elif request.change_id is not None:
        raise InputError(
            Path("--change-id"), "names a change in a ledger: give --ledger PATH|git as well"
        )
    else:
        return None
    ledger = open_ledger(place)
    progress(f"reading the ledger of attempts ({ledger.where})")
    change_id = request.change_id or change_of_key(candidate.key)
    this = ThisAttempt(
        change_id=change_id,
        suite=candidate.suite,
        baseline=RunSeen(baseline.run_id, dict(baseline.key)),
        candidate=RunSeen(candidate.run_id, dict(candidate.key)),
        declared_change=tuple(dict.fromkeys((*candidate.change_keys, *request.declared_change))),
        reruns=request.reruns is not None,
    )
    recorded = Recorded(ledger, ledger.read(), this)
    look = recorded.earlier.look
    if request.look is not None and request.look != look:
        raise InputError(
            Path("--look"),
            f"{request.look}, but the ledger makes this look {look} at {change_id!r}: with a "
            "ledger, leave the looks to it",
        )
    return recorded
