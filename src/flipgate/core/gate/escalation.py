"""What to do next on INCONCLUSIVE (SPEC §3.6): the full set, a rerun of the flips, or a reviewer;
for a run not whole gated by `--allow-partial`, finishing it."""

from __future__ import annotations

from dataclasses import dataclass

from flipgate.core.gate.spec import GateSpec
from flipgate.core.vocab import EscalationAction


@dataclass(frozen=True)
class Escalation:
    action: EscalationAction
    message: str
    cases: tuple[str, ...] = ()
    runs: int | None = None
    boundary: float | None = None  # the p at or below which the next look blocks (looks.py)


def escalate(
    suite: str,
    spec: GateSpec,
    flipped: tuple[tuple[str, str], ...],
    *,
    after_rerun: bool,
    next_boundary: float,
    not_whole: tuple[str, ...] = (),
) -> Escalation:
    """The next step after an INCONCLUSIVE verdict on `suite`, with the flips it found, and the
    boundary the next look is held to (the looks share alpha: `next_boundary`); `not_whole`, the
    cases a partial run lacks, when it was gated by `--allow-partial`."""
    if not_whole:
        return Escalation(
            "finish_runs",
            f"finish the runs ({len(not_whole):,} cases lack repetitions) and gate the whole "
            "runs: a partial run is never PASS",
            cases=not_whole,
        )
    if after_rerun:
        return Escalation(
            "reviewer_decision",
            "still INCONCLUSIVE after the rerun: no automatic merge; a named reviewer reads the "
            "broken cases and records a signed decision (flipgate decide)",
        )
    again = f"apply the rule again (that look blocks at p <= {next_boundary:.3g})"
    if suite == "smoke":
        return Escalation("run_full_set", f"run the full set and {again}", boundary=next_boundary)
    cases = tuple(case for case, _ in flipped)
    return Escalation(
        "rerun_flipped",
        f"rerun every flipped case ({len(cases):,}: the broken and the fixed) on both arms with "
        f"{spec.escalation_runs} repetitions, then {again}",
        cases=cases,
        runs=spec.escalation_runs,
        boundary=next_boundary,
    )
