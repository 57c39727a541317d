"""A gate recorded as an attempt on its change (issue 24 item 2): `flipgate gate` with a ledger.

`gate_and_record` gates what was read, judged with the change's earlier attempts, and appends
the attempt. When another gate of the same change was recorded between the reading and the
appending (two CI jobs of one change at once), the ledger refuses, and the gate is judged again
with that attempt among the earlier ones: neither attempt is lost, and neither is judged alone.
"""

from __future__ import annotations

from dataclasses import replace

from flipgate.core.attempts.entry import Attempt, attempt_of
from flipgate.core.attempts.ledger import LedgerConflict
from flipgate.core.decision.fields import now_utc
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison
from flipgate.core.runs.model import Progress
from flipgate.session.gating import gate
from flipgate.session.reading import GateInputs, silent

TRIES = 5  # judged again at most this often when other gates of the change keep arriving


def gate_and_record(
    inputs: GateInputs, progress: Progress = silent
) -> tuple[Comparison, Attempt | None]:
    """The gate on `inputs` and, with a ledger, the attempt it appended (None: no ledger)."""
    comparison = gate(inputs, progress)
    recorded = inputs.recorded
    if recorded is None:
        return comparison, None
    for _ in range(TRIES):
        earlier = recorded.earlier
        attempt = attempt_of(
            comparison,
            change_id=earlier.change_id,
            attempt=earlier.attempt,
            look=earlier.look,
            at=now_utc(),
        )
        progress(f"recording attempt {earlier.attempt} of {earlier.change_id}")
        try:
            return comparison, recorded.ledger.append(attempt, recorded.seen)
        except LedgerConflict:
            progress("another gate of this change was recorded meanwhile: judging again")
            recorded = replace(recorded, history=recorded.ledger.read())
            inputs = replace(inputs, recorded=recorded)
            comparison = gate(inputs, progress)
    raise InputError(
        recorded.ledger.where,
        f"other gates of {recorded.this.change_id!r} kept arriving: not recorded after {TRIES} "
        "tries",
    )
