"""What `flipgate prereg` registers (issue 24 item 1): the rule, read and checked, before any
candidate exists.

A registration is made on a workspace (a folder with `baseline/`: its `gate.yaml`, `flaky.yaml`
and `suite.yaml` by default; no candidate is needed) or on a baseline run with the files named.
Everything it names is read and checked as the gate would read it, so that a rule registered is
a rule the gate can apply.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from flipgate.core.decision.fields import now_utc
from flipgate.core.decision.record import Reviewer
from flipgate.core.decision.registration import registration_document
from flipgate.core.errors import InputError
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.spec import load_spec
from flipgate.core.io.digest import bytes_digest
from flipgate.core.runs.model import Progress
from flipgate.core.runs.reading import load_run
from flipgate.core.runs.workspace import FLAKY_LIST, GATE_SPEC, SUITE_MANIFEST
from flipgate.core.vocab import ARMS
from flipgate.session.reading import silent
from flipgate.session.request import declared_components, existing_file


@dataclass(frozen=True)
class RegistrationRequest:
    """The baseline and the files whose rule is registered, each resolved."""

    baseline: Path
    gate: Path | None
    flaky: Path | None
    suite: Path | None
    change: tuple[str, ...] | None  # None: left to the candidate's `change.keys`

    @classmethod
    def of(
        cls,
        run: Path,
        *,
        gate: Path | None = None,
        flaky: Path | None = None,
        suite: Path | None = None,
        change: Iterable[str] = (),
    ) -> RegistrationRequest:
        """`run` is a workspace (a folder holding `baseline/`, whose files are the defaults) or
        the baseline run itself."""
        if not run.exists():
            raise InputError(run, "no such workspace or baseline run")
        held = run / ARMS[0]
        if run.is_dir() and held.is_dir():
            gate = gate or existing_file(run / GATE_SPEC)
            flaky = flaky or existing_file(run / FLAKY_LIST)
            suite = suite or existing_file(run / SUITE_MANIFEST)
            run = held
        declared = declared_components(change)
        return cls(run, gate, flaky, suite, declared or None)


def registration_text(
    request: RegistrationRequest,
    signer: Reviewer,
    progress: Progress = silent,
    *,
    registered: datetime | None = None,
) -> str:
    """The registration of `request`'s rule by `signer`, unsigned: every file read and checked
    (bad input is an `InputError` naming it, before anything is signed)."""
    progress("reading the gate spec")
    spec = load_spec(request.gate)
    progress("reading the flaky list")
    flaky = load_flaky(request.flaky)
    suite = None
    if request.suite is not None:
        from flipgate.core.suite.manifest import load_manifest

        progress("reading the suite manifest")
        load_manifest(request.suite)  # checked as the gate checks it
        suite = (request.suite, bytes_digest(request.suite.read_bytes()))
    baseline = load_run(request.baseline, progress=progress, lean=True)
    return registration_document(
        spec=spec,
        flaky=flaky,
        suite=suite,
        baseline=baseline,
        change=request.change,
        signer=signer,
        registered=registered or now_utc(),
    )
