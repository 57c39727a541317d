"""The case ledger (issue 22, SPEC §9): every case of either arm ends in exactly one state
(`vocab.CaseState`), and each arm's cases add up.

A case's state is the first of these that holds, each arm looked at in turn (baseline first):

    run_not_finished     its run stopped before it ran every repetition of it planned
    missing_repetitions  it lacks planned repetitions, in a run that finished or does not say
    excluded             repetitions of it were taken out after the run, by someone, for a reason
    new                  it is only in the candidate
    deleted              it is only in the baseline
    infra                it has no gradable repetition in an arm
    paired               otherwise: counted in the cells, unless flaky-listed or retired

What a run lacks it says itself (`Run.completeness`, from its tool's log or its run.yaml): the
cases it planned and never ran, the repetitions missing or excluded; a run that says nothing is
taken as whole. The pairing gives every case its state (`state_columns`), `ledger` counts them
per arm against the arm's own count of its cases, and a case left out is one payload with a code
(`Unpaired`, `RepsMissing`, `RepsExcluded`) that `present/reasons/` words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

import polars as pl

from flipgate.core.gate.collapse import PREFIX
from flipgate.core.runs.model import Run
from flipgate.core.vocab import ARMS, CASE_STATES, Arm, CaseState, UnpairedState

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Exclusion


# --------------------------------------------------------------------------- a case left out


@dataclass(frozen=True)
class Unpaired:
    """A case only in one arm (new, deleted) or with no gradable repetition in one (infra): the
    arm it is in for a new or deleted case, the arm with nothing gradable for an infra one."""

    case: str
    code: Literal["new", "deleted", "infra"]
    arm: Arm


@dataclass(frozen=True)
class RepsMissing:
    """A case that lacks repetitions its run planned: the run stopped (`run_not_finished`), or
    finished (or does not say) without them (`missing_repetitions`)."""

    case: str
    code: Literal["run_not_finished", "missing_repetitions"]
    arm: Arm
    planned: int
    ran: int  # repetitions with a line, the errored ones among them
    errored: int  # of those, infra
    missing: int


@dataclass(frozen=True)
class RepsExcluded:
    """A case with repetitions taken out of the measurement after the run, with who and why."""

    code: ClassVar[UnpairedState] = "excluded"
    case: str
    arm: Arm
    excluded: int
    planned: int
    exclusions: tuple[Exclusion, ...]


LeftOut = Unpaired | RepsMissing | RepsExcluded
# The states of a case not measured whole in an arm: what ran of it is no evidence of a rate.
NOT_WHOLE: frozenset[UnpairedState] = frozenset(
    {"run_not_finished", "missing_repetitions", "excluded"}
)
# Each state's payload class, in the order of `vocab.UnpairedState` (a test holds them together).
LEFT_OUT: dict[UnpairedState, type[LeftOut]] = {
    "new": Unpaired,
    "deleted": Unpaired,
    "infra": Unpaired,
    "excluded": RepsExcluded,
    "missing_repetitions": RepsMissing,
    "run_not_finished": RepsMissing,
}


# --------------------------------------------------------------------------- each case's state


def planned(run: Run, arm: Arm) -> pl.DataFrame | None:
    """The cases `run` states are not whole: case, repetitions planned, repetitions excluded;
    None when it states none."""
    stated = run.completeness
    if stated is None or not stated.cases:
        return None
    prefix = PREFIX[arm]
    return pl.DataFrame(
        {
            "case": list(stated.cases),
            f"{prefix}_planned": [t.expected for t in stated.cases.values()],
            f"{prefix}_excluded": [t.excluded for t in stated.cases.values()],
        },
        schema={"case": pl.String, f"{prefix}_planned": pl.Int64, f"{prefix}_excluded": pl.Int64},
    )


def missing(arm: Arm) -> pl.Expr:
    """The planned repetitions of a case with no line in `arm`, excluded ones aside: counted
    from its lines, whatever the run says it holds."""
    prefix = PREFIX[arm]
    planned, lines = pl.col(f"{prefix}_planned"), pl.col(f"{prefix}_reps").fill_null(0)
    return (planned - lines - pl.col(f"{prefix}_excluded")).clip(lower_bound=0).fill_null(0)


def state_columns(finished: Mapping[Arm, bool | None], stated: frozenset[Arm]) -> list[pl.Expr]:
    """`unpaired` (the state of a case left out, null for a paired one) and `unpaired_arm` (the
    arm it concerns), over the paired table joined with `planned` for the arms in `stated`."""
    found: list[tuple[pl.Expr, UnpairedState, Arm]] = []
    for arm in ARMS:
        if arm in stated and finished[arm] is False:
            found.append((missing(arm) > 0, "run_not_finished", arm))
    found += [(missing(arm) > 0, "missing_repetitions", arm) for arm in ARMS if arm in stated]
    found += [
        (pl.col(f"{PREFIX[arm]}_excluded").fill_null(0) > 0, "excluded", arm)
        for arm in ARMS
        if arm in stated
    ]
    found += [
        (pl.col("base_reps").is_null(), "new", "candidate"),
        (pl.col("cand_reps").is_null(), "deleted", "baseline"),
        (pl.col("base_passed").is_null(), "infra", "baseline"),
        (pl.col("cand_passed").is_null(), "infra", "candidate"),
    ]
    # the first that holds: each a value where it holds, else null, and the first value taken
    return [
        pl.coalesce([pl.when(holds).then(pl.lit(state)) for holds, state, _ in found]).alias(
            "unpaired"
        ),
        pl.coalesce([pl.when(holds).then(pl.lit(arm)) for holds, _, arm in found]).alias(
            "unpaired_arm"
        ),
    ]


def left_out(cases: pl.DataFrame, runs: Mapping[Arm, Run]) -> tuple[LeftOut, ...]:
    """Each case left out of the cells, as its payload, in the table's order."""
    rows = cases.filter(pl.col("unpaired").is_not_null())
    if rows.is_empty():
        return ()
    columns = ["case", "unpaired", "unpaired_arm"]
    counts = [f"{p}_{c}" for p in PREFIX.values() for c in ("reps", "infra", "planned", "excluded")]
    rows = rows.select(columns + [c for c in counts if c in rows.columns])
    excluded_by = _exclusions(runs)
    found: list[LeftOut] = []
    for row in rows.iter_rows(named=True):
        case, state, arm = row["case"], row["unpaired"], row["unpaired_arm"]
        prefix = PREFIX[arm]
        lines = row[f"{prefix}_reps"] or 0
        if state in ("run_not_finished", "missing_repetitions"):
            plan = row[f"{prefix}_planned"]
            gone = plan - lines - (row[f"{prefix}_excluded"] or 0)
            found.append(
                RepsMissing(case, state, arm, plan, lines, row[f"{prefix}_infra"] or 0, gone)
            )
        elif state == "excluded":
            exclusions = excluded_by.get(arm, {}).get(case, ())
            found.append(
                RepsExcluded(
                    case, arm, row[f"{prefix}_excluded"], row[f"{prefix}_planned"], exclusions
                )
            )
        else:
            found.append(Unpaired(case, state, arm))
    return tuple(found)


def _exclusions(runs: Mapping[Arm, Run]) -> dict[Arm, dict[str, tuple[Exclusion, ...]]]:
    by_case: dict[Arm, dict[str, tuple[Exclusion, ...]]] = {}
    for arm, run in runs.items():
        cases: dict[str, list[Exclusion]] = {}
        for exclusion in run.completeness.exclusions if run.completeness else ():
            cases.setdefault(exclusion.case, []).append(exclusion)
        by_case[arm] = {case: tuple(found) for case, found in cases.items()}
    return by_case


# --------------------------------------------------------------------------- the count


@dataclass(frozen=True)
class ArmLedger:
    """One arm's cases by state, and its run's repetitions: what it holds and what it lacks."""

    cases: int  # the arm's cases, counted from its run: those with lines, and those never run
    states: dict[CaseState, int]  # every state, in `vocab.CaseState`'s order
    left_out: dict[UnpairedState, tuple[str, ...]]  # the arm's cases in each state but paired
    finished: bool | None  # None: the run does not say
    status: str | None  # the tool's word for how the run ended; None: it states no completeness
    detail: str | None  # the tool's message on how it ended
    reps: int  # repetitions with a line
    errored: int  # of them, infra
    excluded: int  # repetitions taken out after the run
    missing: int  # planned repetitions with no line, excluded ones aside
    # of `states`, the cases left out for the other arm's sake (its run did not finish, all its
    # repetitions were infra ...): this arm has them whole
    for_other: dict[UnpairedState, int] = field(default_factory=dict)

    @property
    def planned(self) -> int:
        return self.reps + self.excluded + self.missing

    @property
    def balanced(self) -> bool:
        return sum(self.states.values()) == self.cases


@dataclass(frozen=True)
class Ledger:
    """Both arms' ledgers, and how the paired cases reach the cells."""

    arms: dict[Arm, ArmLedger]
    counted: int  # paired cases in the cells (b, c and the rest)
    flaky: int  # paired cases on the flaky list, left out of b and c
    retired: int  # paired cases retired from the suite (and not listed), left out of b and c

    @property
    def balanced(self) -> bool:
        """Each arm's states add up to its cases; the arms pair the same cases, and each of them
        is counted or left out for a reason."""
        paired = {ledger.states["paired"] for ledger in self.arms.values()}
        return all(a.balanced for a in self.arms.values()) and paired == {
            self.counted + self.flaky + self.retired
        }

    @property
    def whole(self) -> bool:
        """Nothing left out for a run's sake: no case is missing repetitions, and both runs
        finished or do not say."""
        return all(
            a.finished is not False and not a.missing and not a.states["missing_repetitions"]
            for a in self.arms.values()
        )


def ledger(
    cases: pl.DataFrame,
    runs: Mapping[Arm, Run],
    held: Mapping[Arm, int],
    infra: Mapping[Arm, int],
    counted: int,
) -> Ledger:
    """Count the paired table's states per arm. `held` is each arm's count of the cases it has
    lines for (its collapsed table's), `infra` its infra repetitions, `counted` the cases in the
    cells: counted apart from the states, so that the ledger balances only if none went astray."""
    arms: dict[Arm, ArmLedger] = {}
    for arm in ARMS:
        prefix = PREFIX[arm]
        lines = pl.col(f"{prefix}_reps")
        stated = f"{prefix}_planned" in cases.columns
        never_run = lines.is_null() & pl.col(f"{prefix}_planned").is_not_null() if stated else None
        member = lines.is_not_null() if never_run is None else lines.is_not_null() | never_run
        states = dict.fromkeys(CASE_STATES, 0)
        for state, n in cases.filter(member).group_by("unpaired").len().iter_rows():
            states[state or "paired"] = n
        out = cases.filter(member & pl.col("unpaired").is_not_null())
        others = cases.filter(member & (pl.col("unpaired_arm") != arm)).group_by("unpaired").len()
        by_state = out.group_by("unpaired", maintain_order=True).agg("case").iter_rows()
        lacking = (
            cases.select(never_run.sum(), missing(arm).sum()).row(0)
            if never_run is not None
            else (0, 0)
        )
        completeness = runs[arm].completeness
        arms[arm] = ArmLedger(
            cases=held[arm] + lacking[0],
            states=states,
            left_out={state: tuple(found) for state, found in by_state},
            finished=completeness.finished if completeness else None,
            status=completeness.status if completeness else None,
            detail=completeness.detail if completeness else None,
            reps=runs[arm].reps.height,
            errored=infra[arm],
            excluded=completeness.totals.excluded if completeness else 0,
            missing=lacking[1],
            for_other=dict(others.iter_rows()),
        )
    paired = cases.filter(pl.col("unpaired").is_null())
    listed = int(paired["listed"].sum())
    retired = int((paired["retired"] & ~paired["listed"]).sum())
    return Ledger(arms, counted, listed, retired)
