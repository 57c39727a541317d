"""What the verdict's rules read (SPEC §3.5), measured from both arms: each check one function.

    safety          the failed safety cases
    invalid         INVALID_CHECKS: each a reason the comparison cannot be judged, among them
                    what seed 001 forbids in the change under test (changes.py, loosening.py)
    outcome limits  LIMIT_CHECKS: each a limit of SPEC §4 the candidate's decisions exceed

A new reason or limit is one function and one entry in its table; `rules.py` decides from them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.changes import SuiteChanges
from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.loosening import AgainstBase
from flipgate.core.gate.outcomes import OutcomeSummary
from flipgate.core.gate.retired import NO_RETIREMENTS, Retirements
from flipgate.core.gate.spec import GateSpec
from flipgate.core.plural import plural
from flipgate.core.runs.key import Component
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS


@dataclass(frozen=True)
class ArmInfra:
    reps: int
    count: int
    by_kind: dict[str, int]

    @property
    def share(self) -> float:
        return self.count / self.reps if self.reps else 0.0


def arm_infra(run: Run) -> ArmInfra:
    infra = run.reps.filter(pl.col("status") == "infra")
    kinds = infra.group_by(pl.col("infra").fill_null("unspecified")).len().sort("infra")
    return ArmInfra(
        reps=run.reps.height,
        count=infra.height,
        by_kind={str(k): int(n) for k, n in kinds.iter_rows()},
    )


@dataclass(frozen=True)
class Judged:
    """What is judged: both arms, paired, with the spec and the flaky list they are judged by."""

    baseline: Run
    candidate: Run
    spec: GateSpec
    flaky: FlakyList
    cases: pl.DataFrame  # the paired table (pairing.py)
    infra: dict[str, ArmInfra]
    outcomes: dict[str, OutcomeSummary]
    cand_decisions: pl.DataFrame  # the candidate's classified decisions
    moved: tuple[Component, ...]  # the key components that differ between the arms
    change: tuple[str, ...]  # the components the change under test declares it moves
    changes: SuiteChanges  # what the change under test did to the suite's cases
    base: AgainstBase  # the spec and flaky list against where the change is going
    retired: Retirements = NO_RETIREMENTS  # cases the suite retired, left out of b and c


def safety_failures(judged: Judged) -> tuple[str, ...]:
    """Safety cases with a failed candidate repetition, or none gradable (SPEC §3.5 line 1)."""
    failed = judged.cases.filter(
        pl.col("safety")
        & (
            pl.col("cand_gradable").fill_null(0).eq(0)
            | (pl.col("cand_passes") < pl.col("cand_gradable"))
        )
    )
    return tuple(failed["case"].to_list())


# --------------------------------------------------------------------------- invalid


def _infra_share(judged: Judged) -> list[str]:
    allowed = judged.spec.infra_max_share
    return [
        f"infra failures are {stats.share:.1%} of the {arm}'s repetitions "
        f"({stats.count} of {stats.reps}), above the {allowed:.0%} allowed"
        for arm, stats in judged.infra.items()
        if stats.share > allowed
    ]


def _stale_baseline(judged: Judged) -> list[str]:
    drift = [c for c in judged.moved if c.name not in judged.change]
    if not drift:
        return []
    detail = ", ".join(str(c) for c in drift)
    keys = judged.baseline.key.keys() | judged.candidate.key.keys()
    # A declared component that neither key has is likely the moved one, misspelt.
    if unknown := [name for name in judged.change if name not in keys]:
        detail += f"; the declared change names {', '.join(unknown)}, which neither key has"
    return [f"stale baseline: key moved outside the declared change ({detail})"]


def _flaky_list_too_long(judged: Judged) -> list[str]:
    listed, suite = len(judged.flaky.cases), judged.cases.height
    cap = judged.spec.flaky_cap(suite)
    if listed <= cap:
        return []
    return [
        f"the flaky list holds {listed} cases, above {judged.spec.flaky_max_share:.0%} of the "
        f"suite's {suite} cases ({cap} allowed)"
    ]


def _flaky_list_safety(judged: Judged) -> list[str]:
    listed = judged.cases.filter(pl.col("listed") & pl.col("safety"))["case"].to_list()
    return [f"the flaky list holds safety cases: {', '.join(listed)}"] if listed else []


NAMED_IN_REASON = 10  # cases named in one reason; the JSON report lists them all


def _named(items: list[str] | tuple[str, ...], separator: str = ", ") -> str:
    """The items a reason names, cut after NAMED_IN_REASON and counted."""
    shown = separator.join(items[:NAMED_IN_REASON])
    more = len(items) - NAMED_IN_REASON
    return shown + (f" and {more} more" if more > 0 else "")


def _edited_cases(judged: Judged) -> list[str]:
    edits = [f"{case} {what}" for case, whats in judged.changes.edited.items() for what in whats]
    return [f"cases edited in the change under test: {_named(edits, '; ')}"] if edits else []


def _deleted_cases(judged: Judged) -> list[str]:
    deleted = judged.changes.deleted
    if not deleted:
        return []
    return [
        f"cases deleted in the change under test (lines in the baseline, none in the candidate): "
        f"{_named(deleted)}. Retire a case in a separate, reviewed change, then rebaseline; a "
        "case that could not be graded is written with `status: infra`, not left out"
    ]


CACHED_WHY = {
    "candidate": "cached candidate repetitions (the candidate is the measurement: run it live)",
    "baseline": "cached repetitions of safety cases in the baseline (safety runs are always live)",
}


def _cached(judged: Judged) -> list[str]:
    return [
        f"{CACHED_WHY[arm]}: {_named([f'{c} ({n} of {of})' for c, (n, of) in found.items()])}"
        for arm, found in judged.changes.cached.items()
    ]


def _loosened(judged: Judged) -> list[str]:
    base = judged.base
    if not base.loosened:
        return []
    return [
        f"the gate was loosened in the change under test ({base.where}): "
        + "; ".join(base.loosened)
    ]


def _flaky_added(judged: Judged) -> list[str]:
    base = judged.base
    if not base.flaky_added:
        return []
    return [
        f"flaky entries added in the change under test ({base.where}): "
        f"{_named(base.flaky_added)}: add flaky entries in a separate, reviewed change"
    ]


def _retirement_added(judged: Judged) -> list[str]:
    added = judged.retired.added
    if not added:
        return []
    return [
        f"the change under test retires {', '.join(added)}: a retirement is its own reviewed "
        "change, made where the change is going, not in the change it would excuse"
    ]


def _no_case_in_common(judged: Judged) -> list[str]:
    """Two arms that share no case id compare nothing: `case-` renamed `CASE-` in a candidate
    whose every case failed passed, with `unpaired: 40` as the only sign."""
    base, cand = (
        judged.cases.filter(pl.col(f"{PREFIX[arm]}_reps").is_not_null())["case"] for arm in ARMS
    )
    if base.is_empty() or cand.is_empty() or base.is_in(cand.implode()).any():
        return []
    folded = {case.casefold() for case in base} & {case.casefold() for case in cand}
    hint = "; they differ only in upper and lower case" if folded else ""
    return [
        f"no case id of the candidate's {cand.len()} is one of the baseline's {base.len()}"
        f"{hint}: nothing is compared"
    ]


INVALID_CHECKS: tuple[Callable[[Judged], list[str]], ...] = (
    _no_case_in_common,
    _infra_share,
    _stale_baseline,
    _flaky_list_too_long,
    _flaky_list_safety,
    _edited_cases,
    _deleted_cases,
    _cached,
    _loosened,
    _flaky_added,
    _retirement_added,
)


# --------------------------------------------------------------------------- outcome limits


def _false_negatives(judged: Judged) -> list[str]:
    bound = judged.spec.limits.false_negative_max
    cand, base = judged.outcomes["candidate"], judged.outcomes["baseline"]
    most = base.counts["false_negative"] if bound == "baseline" else bound
    found = cand.counts["false_negative"]
    if most is None or not cand.decisions or found <= most:
        return []
    what = "the baseline's" if bound == "baseline" else "the limit of"
    return [f"{plural(found, 'false negative')}, above {what} {most}"]


def _zero_false_negative_rules(judged: Judged) -> list[str]:
    rules = judged.spec.limits.zero_false_negative_rules
    if not rules:
        return []
    missed = judged.cand_decisions.filter(
        (pl.col("outcome") == "false_negative") & pl.col("rule").is_in(list(rules))
    )
    return [
        f"{plural(n, 'false negative')} on {rule}, where none is allowed"
        for rule, n in missed.group_by("rule").len().sort("rule").iter_rows()
    ]


def check_limit_rules(spec: GateSpec, decisions: Iterable[pl.DataFrame]) -> None:
    """A rule in `zero_false_negative_rules` that no decision of either arm is on guards nothing:
    a typo there (`recalled_product`) switched the limit off without a word, so it is bad input."""
    named = spec.limits.zero_false_negative_rules
    if not named:
        return
    held: set[str] = set().union(*(frame["rule"].unique().to_list() for frame in decisions))
    if unknown := [rule for rule in named if rule not in held]:
        rules = f"their rules: {', '.join(sorted(held))}" if held else "they hold no labels"
        raise InputError(
            spec.source or Path("gate.yaml"),
            f"no decision of either run is on {', '.join(unknown)} ({rules})",
            line=spec.limits.zero_false_negative_line,
            field="outcomes.limits.zero_false_negative_rules",
        )


def _inconclusive_share(judged: Judged) -> list[str]:
    budget = judged.spec.limits.inconclusive_max_share
    cand = judged.outcomes["candidate"]
    if budget is None or not cand.decisions:
        return []
    share = cand.counts["inconclusive"] / cand.decisions
    if share <= budget:
        return []
    return [
        f"inconclusive decisions are {share:.1%} of the candidate's, above the {budget:.0%} budget"
    ]


LIMIT_CHECKS: tuple[Callable[[Judged], list[str]], ...] = (
    _false_negatives,
    _zero_false_negative_rules,
    _inconclusive_share,
)


def reasons(judged: Judged, checks: tuple[Callable[[Judged], list[str]], ...]) -> tuple[str, ...]:
    """What the checks of one table found, in the table's order."""
    return tuple(reason for check in checks for reason in check(judged))


def warnings(judged: Judged) -> tuple[str, ...]:
    """What the reviewer should know that no rule decides on."""
    found = []
    new = judged.changes.new
    if new:
        found.append(
            f"{len(new)} new case{'s' if len(new) > 1 else ''} only in the candidate, not "
            f"counted: {_named(new)}; rebaseline to count them"
        )
    created = judged.baseline.created
    late = [
        e.case for e in judged.flaky.entries if created is not None and e.added > created.date()
    ]
    retired_late = [
        r.case for r in judged.retired.cases if created is not None and r.retired > created.date()
    ]
    if late:
        found.append(
            f"flaky entries added after the baseline run was created ({', '.join(late)}): "
            "the list should change in its own reviewed change, not while this one is judged"
        )
    if retired_late:
        found.append(
            f"cases retired after the baseline run was created ({', '.join(retired_late)}): "
            "a retirement should land in its own reviewed change, not while this one is judged"
        )
    if judged.baseline.run_id == judged.candidate.run_id:
        found.append(
            f"both arms have run_id {judged.baseline.run_id!r}: one run compared with itself, "
            "or a run.yaml copied without a new run_id"
        )
    return tuple(found)
