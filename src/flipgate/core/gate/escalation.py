"""What to do next on INCONCLUSIVE (SPEC §3.6): the full set, a rerun of the flips, or a reviewer;
for a run not whole gated by `--allow-partial`, finishing it. The step is a code with its facts;
its words are `present.next_step`'s."""

from __future__ import annotations

from dataclasses import dataclass

from flipgate.core.gate.family import Family
from flipgate.core.gate.spec import GateSpec
from flipgate.core.vocab import EscalationAction


@dataclass(frozen=True)
class Escalation:
    action: EscalationAction
    cases: tuple[str, ...] = ()  # the cases to rerun, or those a partial run lacks
    runs: int | None = None  # repetitions per arm of the rerun
    # The next look, where there is one: its boundary (looks.py), shared by Holm over `paths`
    # paths to BLOCK, and the p at or below which its flips block (`boundary`): their Holm share,
    # level / paths, or more only when another path blocks (and so blocks the gate). One path, or
    # `per_path`: the flips are held to the whole level.
    boundary: float | None = None
    level: float | None = None
    paths: int | None = None


def next_look_share(family: Family | None, level: float) -> tuple[float, int]:
    """(the flips' boundary at a next look of boundary `level`, the paths sharing it): the same
    paths as this look's, sharing `level` by Holm. Whatever their p will be, the flips block at
    p <= level / m; only another path blocking first raises their boundary (family.py)."""
    if family is None or family.rule != "holm":
        return level, 1
    return level / len(family.paths), len(family.paths)


def escalate(
    suite: str,
    spec: GateSpec,
    flipped: tuple[tuple[str, str], ...],
    *,
    after_rerun: bool,
    next_boundary: float,
    family: Family | None = None,
    not_whole: tuple[str, ...] = (),
) -> Escalation:
    """The next step after an INCONCLUSIVE verdict on `suite`, with the flips it found; the next
    look is held to `next_boundary` (the looks share alpha), shared as this look's `family` shared
    its own; `not_whole`, the cases a partial run lacks, when it was gated by `--allow-partial`."""
    if not_whole:
        return Escalation("finish_runs", cases=not_whole)
    if after_rerun:
        return Escalation("reviewer_decision")
    flips_at, paths = next_look_share(family, next_boundary)
    if suite == "smoke":
        return Escalation("run_full_set", boundary=flips_at, level=next_boundary, paths=paths)
    return Escalation(
        "rerun_flipped",
        cases=tuple(case for case, _ in flipped),
        runs=spec.escalation_runs,
        boundary=flips_at,
        level=next_boundary,
        paths=paths,
    )
