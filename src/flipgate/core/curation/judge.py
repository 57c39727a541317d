"""Judge repeats proposed for the flaky list (issue 23 item 2): the cases whose verdict moved when
only the judge ran again (`core/gate/judge.py` measures them), through the curation's own
`Proposal`, each entry's evidence the judge's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from flipgate.core.curation.flips import FlipRecord, Proposal, propose
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import JudgeRepeats
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run


def propose_unstable(
    repeats: JudgeRepeats, runs: Sequence[Run], spec: GateSpec, flaky: FlakyList, owner: str | None
) -> Proposal:
    """The flaky-list proposal of the curation (`flips.propose`) for the judging passes `runs`
    (the arm's run first), each entry's evidence the judge's own: how often its verdict moved
    when only the judge ran again, and each rule's flip rate beside it."""
    proposal = propose(list(runs), spec, flaky, owner)
    rates = "; ".join(
        f"{r.rule} {r.flipped}/{r.outputs} outputs flipped" for r in repeats.rules if r.flipped
    )
    entries = tuple(
        replace(entry, evidence=judge_evidence(entry.record, rates)) for entry in proposal.entries
    )
    return replace(proposal, entries=entries)


def judge_evidence(record: FlipRecord, rates: str) -> str:
    """The evidence a flaky entry records for a case unstable under the judge alone."""
    shown = ", ".join(
        f"{'missing' if passed is None else 'pass' if passed else 'fail'}"
        for _, passed in record.verdicts
    )
    said = (
        f"verdict flipped in {record.flips} of {len(record.graded)} judgings of the same "
        f"stored outputs (judge alone): {shown}"
    )
    return f"{said} ({rates})" if rates else said
