"""`flipgate replay`'s request: a signed decision verified, and the runs it was made on.

A decision replays only when it verifies (form, signature, signer, both runs unchanged) and holds
a review log; its runs are compared again with its workspace's gate spec, flaky list and suite
manifest (`WORKSPACE/decisions/FILE`: the folder above), so the drill-down shows them as then.
"""

from __future__ import annotations

from pathlib import Path

from flipgate.core.decision.file import Unverified, decision_workspace, verify_decision
from flipgate.core.decision.record import DecisionRecord
from flipgate.core.errors import InputError
from flipgate.core.runs.workspace import FLAKY_LIST, GATE_SPEC, SUITE_MANIFEST
from flipgate.session.request import GateRequest, existing_file


def replay_request(
    path: Path, allowed_signers: Path | None = None
) -> tuple[GateRequest, DecisionRecord]:
    """The request for the runs of the decision at `path`, and its record. A decision that does
    not verify, or has no review log, is an `InputError` naming the check or the field."""
    if not path.is_file():
        raise InputError(path, "no such decision file")
    verified = verify_decision(path, allowed_signers)
    if verified.record is None or not verified.ok:
        said = "{} (a decision replays only when it verifies)"
        raise Unverified(path, verified.failures[0], said, named=True)
    record = verified.record
    if record.review_log is None:
        raise InputError(
            path,
            "no review log: this decision was written without the app (flipgate decide), or "
            "before the app recorded one",
            field="review_log",
        )
    workspace = decision_workspace(path)
    runs = [workspace / ref.path for ref in (record.baseline, record.candidate)]
    request = GateRequest.of(
        runs,
        gate=existing_file(workspace / GATE_SPEC),
        flaky=existing_file(workspace / FLAKY_LIST),
        suite=existing_file(workspace / SUITE_MANIFEST),
    )
    return request, record
