"""The escalation's reruns (SPEC §3.6): the plan file, and the gate again with their results."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.edit import edit
from flipgate.core.io.files import writing
from flipgate.core.io.yamlio import dump_yaml
from flipgate.core.order import natural_sorted
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, RunNoteCode


def apply_reruns(arm: str, run: Run, rerun: Run, cases: tuple[str, ...]) -> Run:
    """`run` with the repetitions of `cases` replaced by those of `rerun` (SPEC §3.6)."""
    differs = moved_components(run.key, rerun.key)
    if differs:
        raise InputError(
            rerun.path,
            f"the {arm} rerun measured a different system: key "
            f"{', '.join(c.name for c in differs)} differs from the {arm} run",
            field="key",
        )
    rerun_cases = set(rerun.reps["case"].to_list())
    missing = natural_sorted(set(cases) - rerun_cases)
    if missing:
        raise InputError(
            rerun.path,
            f"the {arm} rerun lacks flipped cases of the plan: {', '.join(missing[:10])}",
            field="case",
        )
    extra = natural_sorted(rerun_cases - set(cases))
    if extra:
        raise InputError(
            rerun.path,
            f"the {arm} rerun holds cases outside the rerun plan: {', '.join(extra[:10])}",
            field="case",
        )
    keep = ~pl.col("case").is_in(list(cases))
    # `line` keys a repetition within a run; the rerun's lines follow the run's so they stay unique.
    last = int(run.reps["line"].max() or 0)  # type: ignore[arg-type]
    offset = pl.col("line") + last
    return replace(
        run,
        reps=pl.concat([run.reps.filter(keep), rerun.reps.with_columns(offset)]),
        decisions=pl.concat([run.decisions.filter(keep), rerun.decisions.with_columns(offset)]),
        checks=pl.concat([run.checks.filter(keep), rerun.checks.with_columns(offset)]),
        notes=(*run.notes, RerunReplaced(len(cases), rerun.run_id)),
        texts=run.texts.followed_by(rerun.texts, last),
    )


@dataclass(frozen=True)
class RerunReplaced:
    """A run note: the flipped cases replaced by the rerun's repetitions."""

    code: ClassVar[RunNoteCode] = "rerun_replaced"
    cases: int
    run_id: str  # the rerun's


def rerun_plan(comparison: Comparison, why: str) -> dict[str, object]:
    """The plan file written on a full run's INCONCLUSIVE: every flipped case, both arms; `why`
    is the verdict's summary line, in the words `present.reasons.summary` makes."""
    result = comparison.result
    if result.escalation is None or result.escalation.action != "rerun_flipped":
        raise ValueError("a rerun plan exists only for an INCONCLUSIVE full run")
    return {
        "flipgate_rerun_plan": 1,
        "why": why,
        "runs": result.escalation.runs,
        "arms": {
            arm: {"run_id": comparison.run(arm).run_id, "key": comparison.run(arm).key}
            for arm in ARMS
        },
        "cases": [{"case": case, "direction": direction} for case, direction in result.flipped],
        "then": "flipgate gate BASELINE CANDIDATE --rerun-baseline RERUN_B --rerun-candidate RERUN_C",
        # what the plan takes and buys (issue 23): absent where it was not priced
        **({"price": price.to_data()} if (price := comparison.rerun_price) is not None else {}),
    }


def write_rerun_plan(
    comparison: Comparison, target: Path, why: str, *, overwrite: bool = False
) -> None:
    """Write the rerun plan as YAML, atomically; without `overwrite` an existing file is kept
    (FileExistsError), with it the file is replaced under its lock. A write that fails is an
    InputError naming the file."""
    text = dump_yaml(rerun_plan(comparison, why), width=1000)
    if not overwrite:
        with writing(target):  # a full disk, a read-only folder: an InputError naming it
            write_atomic(target, text)
        return
    with edit(target) as file:
        file.replace(text)


def compare_with_reruns(
    first: Comparison,
    rerun_baseline: Run,
    rerun_candidate: Run,
    *,
    declared_change: tuple[str, ...] = (),
) -> Comparison:
    """Replace the flipped cases' repetitions in both arms and apply the rule once more."""
    result = first.result
    if result.escalation is None or result.escalation.action != "rerun_flipped":
        raise InputError(
            rerun_candidate.path,
            f"reruns apply to an INCONCLUSIVE full run; this gate says {result.verdict}",
        )
    cases = result.escalation.cases
    return compare(
        apply_reruns("baseline", first.baseline, rerun_baseline, cases),
        apply_reruns("candidate", first.candidate, rerun_candidate, cases),
        first.spec,
        first.flaky,
        declared_change=declared_change,
        previous=result,
        look=result.look + 1,
        retired=first.retired,
        base=first.base,
        registration=result.registration,
        earlier=result.earlier,
        allow_partial=result.allow_partial,
    )
