"""What to do next on INCONCLUSIVE, in words (the step and its facts: core/gate/escalation.py)."""

from __future__ import annotations

from flipgate.core.gate.escalation import Escalation


def next_step(escalation: Escalation) -> str:
    """`rerun every flipped case (12: the broken and the fixed) on both arms with 5 repetitions,
    then apply the rule again (that look blocks at p <= 0.0125 shared by Holm over 3 paths: the
    flips at p <= 0.00417 unless another path blocks)`."""
    if escalation.action == "finish_runs":
        return (
            f"finish the runs ({len(escalation.cases):,} cases lack repetitions) and gate the "
            "whole runs: a partial run is never PASS"
        )
    if escalation.action == "reviewer_decision":
        return (
            "still INCONCLUSIVE after the rerun: no automatic merge; a named reviewer reads the "
            "broken cases and records a signed decision (flipgate decide)"
        )
    again = f"apply the rule again ({next_look(escalation)})"
    if escalation.action == "run_full_set":
        return f"run the full set and {again}"
    return (
        f"rerun every flipped case ({len(escalation.cases):,}: the broken and the fixed) on both "
        f"arms with {escalation.runs} repetitions, then {again}"
    )


def next_look(escalation: Escalation) -> str:
    """`that look blocks at p <= 0.0125`; where paths share it by Holm, what the flips are sure
    to be held to: their share, raised only by another path that blocks (and so blocks the
    gate)."""
    assert escalation.boundary is not None and escalation.level is not None and escalation.paths
    if escalation.paths < 2:
        return f"that look blocks at p <= {escalation.boundary:.3g}"
    return (
        f"that look blocks at p <= {escalation.level:.3g} shared by Holm over "
        f"{escalation.paths} paths: the flips at p <= {escalation.boundary:.3g} unless another "
        "path blocks"
    )
