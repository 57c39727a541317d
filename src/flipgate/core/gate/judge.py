"""Judge repeats (issue 23 item 2): the same stored outputs judged several times, to measure the
judge alone. Rerunning whole cases mixes the model's variance with the judge's; judging one
stored output again and again isolates the judge (seed 001).

A workspace's `rejudged/baseline/` and `rejudged/candidate/` each hold judging passes of that
arm's run: every pass a run (our format, or an Inspect log written by `inspect score` over the
arm's log) holding the same (case, rep) with the same output, graded again. A pass's run.yaml
may say which it is (`judge_rep: 2`); else the passes count in name order. The arm's own run is
pass 0. A pass rescored by `inspect score` keeps its log's run id, so passes are named by their
file or folder name.

- each rule's **judge flip rate**: of the outputs judged at least twice on that rule, the share
  given more than one verdict, with its exact (Clopper-Pearson) interval: outputs are
  independent, so the count of outputs that flipped is binomial;
- the cases whose collapsed verdict differs between passes: **unstable under the judge alone**,
  proposed for the flaky list with that evidence (`core/curation/judge.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.binomial import clopper_pearson
from flipgate.core.gate.collapse import collapsed_verdicts, rep_results
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import Arm

JUDGE_REP = "judge_rep"  # the run.yaml field naming a judging pass
LEVEL = 0.95


@dataclass(frozen=True)
class RuleFlipRate:
    """One rule under the judge alone: outputs judged at least twice, and those given more
    than one verdict, with the exact interval of the share."""

    rule: str
    outputs: int
    flipped: int
    low: float
    high: float

    @property
    def rate(self) -> float | None:
        return self.flipped / self.outputs if self.outputs else None


@dataclass(frozen=True)
class UnstableCase:
    """A case whose collapsed verdict differs between judgings of the same outputs."""

    case: str
    safety: bool
    verdicts: tuple[bool | None, ...]  # per judging, the run's own first; None: not graded


@dataclass(frozen=True)
class JudgeRepeats:
    """One arm's outputs judged again: the passes, each rule's flip rate, the unstable cases."""

    arm: Arm
    passes: tuple[str, ...]  # the arm's run id, then each pass's file or folder name
    rules: tuple[RuleFlipRate, ...]
    unstable: tuple[UnstableCase, ...]  # cases whose collapsed verdict differs between passes

    @property
    def unstable_cases(self) -> tuple[str, ...]:
        return tuple(record.case for record in self.unstable)

    @property
    def judgings(self) -> int:
        return len(self.passes)


def ordered_passes(passes: Sequence[Run]) -> list[Run]:
    """The passes by their `judge_rep` where every one gives it (each once), else as given."""
    given = [run.extra_manifest.get(JUDGE_REP) for run in passes]
    if any(g is None for g in given):
        return list(passes)
    for run, rep in zip(passes, given, strict=True):
        if isinstance(rep, bool) or not isinstance(rep, int) or rep < 1:
            raise InputError(
                run.path, "a whole number from 1 (the run itself is 0)", field=JUDGE_REP
            )
    if len(set(given)) != len(given):
        twice = next(run for run, rep in zip(passes, given, strict=True) if given.count(rep) > 1)
        raise InputError(twice.path, f"judge_rep {twice.extra_manifest[JUDGE_REP]} is given twice")
    numbers = [int(rep) for rep in given if rep is not None]
    return [run for _, run in sorted(zip(numbers, passes, strict=True), key=lambda pair: pair[0])]


def check_pass(arm: Arm, run: Run, judged: Run) -> None:
    """A pass judges the arm's stored outputs again: the same system and judge (the same key)
    and the same output on every (case, rep) both hold. Else an InputError naming the pass."""
    moved = moved_components(run.key, judged.key)
    if moved:
        raise InputError(
            judged.path,
            f"a rejudging of the {arm} run has the same key: {moved[0].name} differs",
            field=f"key.{moved[0].name}",
        )
    outputs = [
        arm.texts.beside(arm.reps.select("case", "rep", "line"), ["output"])
        for arm in (run, judged)
    ]
    both = outputs[0].drop("line").join(outputs[1], on=["case", "rep"], suffix="_again")
    changed = both.filter(
        pl.col("output").is_not_null()
        & pl.col("output_again").is_not_null()
        & (pl.col("output") != pl.col("output_again"))
    )
    if changed.height:
        case, rep, line = changed.select("case", "rep", "line").row(0)
        raise InputError(
            judged.path,
            f"case {case} rep {rep}: not the {arm} run's output; a rejudging grades the stored "
            "outputs again",
            line=line,
            field="output",
        )


def _rule_verdicts(run: Run, spec: GateSpec, judging: int) -> pl.DataFrame:
    """case, rep, rule, ok: each gradable decision or check of one pass."""
    decisions, reps = rep_results(run, spec)
    graded = reps.filter(pl.col("status") == "ok").select("case", "rep")
    fail_on = sorted(spec.fail_on)
    labelled = decisions.select(
        "case",
        "rep",
        "rule",
        ok=~pl.col("outcome").cast(pl.String).is_in(fail_on),
    )
    checked = run.checks.join(graded, on=["case", "rep"], how="semi").select(
        "case", "rep", "rule", ok=pl.col("passed")
    )
    return pl.concat([labelled, checked]).with_columns(judging=pl.lit(judging))


def judge_repeats(arm: Arm, run: Run, passes: Sequence[Run], spec: GateSpec) -> JudgeRepeats:
    """The arm's outputs under every judging pass (the run itself first)."""
    ordered = ordered_passes(passes)
    for judged in ordered:
        check_pass(arm, run, judged)
    every = [run, *ordered]
    verdicts = pl.concat([_rule_verdicts(r, spec, i) for i, r in enumerate(every)])
    per_output = verdicts.group_by("rule", "case", "rep").agg(
        judgings=pl.len(), verdicts=pl.col("ok").n_unique()
    )
    rates = (
        per_output.filter(pl.col("judgings") >= 2)
        .group_by("rule")
        .agg(outputs=pl.len(), flipped=(pl.col("verdicts") > 1).sum())
        .sort("rule")
    )
    rules = tuple(
        RuleFlipRate(rule, n, k, *clopper_pearson(k, n, LEVEL))
        for rule, n, k in rates.select("rule", "outputs", "flipped").iter_rows()
    )
    collapsed = pl.concat(
        collapsed_verdicts(r, spec).with_columns(judging=pl.lit(i)) for i, r in enumerate(every)
    )
    per_case = (
        collapsed.sort("judging")
        .group_by("case")
        .agg(
            pl.col("passed"),
            pl.col("safety").any(),
            kinds=pl.col("passed").drop_nulls().n_unique(),
        )
        .filter(pl.col("kinds") > 1)
        .sort("case")
    )
    unstable = tuple(
        UnstableCase(case, bool(safety), tuple(verdicts))
        for case, safety, verdicts in per_case.select("case", "safety", "passed").iter_rows()
    )
    names = (run.run_id, *(judged.path.name for judged in ordered))
    return JudgeRepeats(arm, names, rules, unstable)
