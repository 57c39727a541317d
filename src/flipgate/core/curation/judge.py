"""Judge repeats proposed for the flaky list (issue 23 item 2): the cases whose verdict moved when
only the judge ran again (`core/gate/judge.py` measures them), through the curation's own
proposal, each entry's evidence the judge's."""

from __future__ import annotations

from flipgate.core.curation.flips import FlipRecord, Proposal, proposal_of, suite_cases
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import JudgeRepeats
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run


def propose_unstable(
    repeats: JudgeRepeats, run: Run, spec: GateSpec, flaky: FlakyList, owner: str | None
) -> Proposal:
    """The flaky-list proposal for the cases of `run` unstable under the judge alone: each
    entry's evidence how often its verdict moved when only the judge ran again, and each rule's
    flip rate beside it. Safety cases are findings, as in any proposal."""
    records = [
        FlipRecord(case.case, case.safety, tuple(zip(repeats.passes, case.verdicts, strict=True)))
        for case in repeats.unstable
    ]
    rates = "; ".join(
        f"{r.rule} {r.flipped}/{r.outputs} outputs flipped" for r in repeats.rules if r.flipped
    )
    return proposal_of(
        records,
        repeats.passes,
        dict(run.key),
        len(suite_cases([run])),
        spec,
        flaky,
        owner,
        evidence=lambda record: judge_evidence(record, rates),
        judge_alone=True,
    )


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
