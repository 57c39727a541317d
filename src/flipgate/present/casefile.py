"""The case file: which cases to review, and everything the drill-down shows about one of them.

    to review  fails in the candidate, or flipped, or holds a wrong decision in either arm (a red
               case), or is unpaired (flagged, never counted); `every`: every case
    table      one row per case, display text precomputed, so that filtering, sorting and
               searching (`case_query`) are vectorised on 100,000 rows; ids in natural order
    detail     one case: its decisions and checks rule by rule across the repetitions of both
               arms, its stored outputs and trajectories, second metrics and extra fields
    diff       two stored outputs side by side or unified: `present/diff.py`

Pure functions over a `Comparison`: no terminal, no textual. The app only shows what these return.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.outcomes import SEVERITY, WRONG_WORST_FIRST, severity_name
from flipgate.core.runs.model import METRICS
from flipgate.core.vocab import ARMS, CASE_STATES, FLIPS
from flipgate.present.reasons import sentence
from flipgate.present.reasons.ledger import STATE_WORDS
from flipgate.present.text import safe_column
from flipgate.present.trajectory import Alignment, Ending, Wobble, align, parse_turns, wobble

# --------------------------------------------------------------------------- the red-case table

# Directions of a red case, in the order a reviewer reads them: what broke first.
DIRECTIONS: dict[str, str] = {
    "pass_to_fail": "↓ pass→fail",
    "unpaired": "unpaired",
    "both_fail": "both fail",
    "fail_to_pass": "↑ fail→pass",
    "both_pass": "both pass",  # red only through a wrong decision the majority outvoted
}
ARM_SHORT = {"baseline": "base", "candidate": "cand"}
# what an unpaired case's state reads as after its arm, shortly (`unpaired: cand all infra`)
STATE_SHORT = {
    "new": "only",
    "deleted": "only",
    "infra": "all infra",
    "excluded": "excluded",
    "missing_repetitions": "reps missing",
    "run_not_finished": "not finished",
}
OUTCOME_SHORT = {
    "false_negative": "false neg",
    "mirror": "mirror",
    "false_positive": "false pos",
    "inconclusive": "inconcl.",
    "agreement": "agreement",
}
CHECK_FAILED = "check failed"  # the worst thing in a case whose only failures are pass/fail checks
REP_SYMBOLS = {True: "✓", False: "✗", None: "·"}  # pass, fail, infra
ABSENT = "—"
MINUS = "\N{MINUS SIGN}"  # as wide as the plus sign, unlike a hyphen

# (label on screen, column of the table frame shown under it, sort key); what tells a case's story
# comes first, so that an 80-column terminal shows it without scrolling sideways
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("case", "case_shown", "case"),
    ("direction", "direction", "direction"),
    ("flipped by", "source_shown", "source"),
    ("baseline", "base_pattern", "baseline"),
    ("candidate", "cand_pattern", "candidate"),
    ("worst", "worst_shown", "worst"),
    ("safety", "safety_shown", "safety"),
    ("flaky", "flaky_shown", "flaky"),
    ("state", "state_shown", "state"),  # in the case ledger
    ("template", "template_shown", "template"),
    # wrong decisions in each arm: not the cells b and c, which count cases
    ("base wrong", "base_wrong", "wrong_baseline"),
    ("cand wrong", "cand_wrong", "wrong"),
    ("cost Δ", "cost_shown", "cost"),
)

# sort key -> (columns, descending per column); ties always end on the case id, in its natural
# order (`order`, the paired table's row)
SORTS: dict[str, tuple[tuple[str, ...], tuple[bool, ...]]] = {
    "direction": (("direction_rank", "safety", "worst_rank"), (False, True, False)),
    "case": ((), ()),
    "safety": (("safety", "direction_rank"), (True, False)),
    "flaky": (("listed", "direction_rank"), (True, False)),
    "template": (("template", "direction_rank"), (False, False)),
    "baseline": (("base_passes",), (False,)),
    "candidate": (("cand_passes",), (False,)),
    "wrong_baseline": (("base_wrong",), (True,)),
    "wrong": (("cand_wrong", "base_wrong"), (True, True)),
    "worst": (("worst_rank", "direction_rank"), (False, False)),
    "cost": (("cost_delta",), (True,)),
    "source": (("source", "direction_rank"), (False, False)),
    "state": (("state_rank", "direction_rank"), (False, False)),
}

KINDS = ("pass_to_fail", "fail_to_pass", "both_fail", "both_pass", "unpaired")


def _pattern_expr(prefix: str) -> pl.Expr:
    """A repetition pattern as `✓✗·`; an arm that lacks the case shows a dash."""
    symbol = (
        pl.when(pl.element().is_null())
        .then(pl.lit(REP_SYMBOLS[None]))
        .when(pl.element())
        .then(pl.lit(REP_SYMBOLS[True]))
        .otherwise(pl.lit(REP_SYMBOLS[False]))
    )
    return (
        pl.col(f"{prefix}_pattern")
        .list.eval(symbol)
        .list.join("")
        .fill_null(ABSENT)
        .alias(f"{prefix}_pattern")
    )


def _flip_sources(comparison: Comparison) -> pl.LazyFrame:
    """Per counted flip: who flipped it (the model, the grader, unknown)."""
    sources = comparison.result.sources
    if sources is None:
        return pl.LazyFrame(schema={"case": pl.String, "source": pl.String})
    return sources.cases.lazy().select("case", "source")


def _failures_by_case(comparison: Comparison) -> pl.LazyFrame:
    """Per case: the wrong outcomes it holds and the rules they (or failed checks) are on."""
    frames = []
    for arm in ARMS:
        wrong = comparison.decisions[arm].lazy().filter(pl.col("outcome") != "agreement")
        frames.append(wrong.select("case", "rule", pl.col("outcome").cast(pl.String)))
        gradable = comparison.reps[arm].lazy().filter(pl.col("status") == "ok")
        failed = comparison.run(arm).checks.lazy().filter(~pl.col("passed"))
        failed = failed.join(gradable.select("case", "rep"), on=["case", "rep"], how="semi")
        frames.append(failed.select("case", "rule", pl.lit(CHECK_FAILED).alias("outcome")))
    both = pl.concat(frames)

    def listed(column: str, name: str) -> pl.LazyFrame:
        # distinct and sorted before gathering: `list.unique().sort()` per group is ten times slower
        pairs = both.select("case", column).unique().sort("case", column)
        return pairs.group_by("case", maintain_order=True).agg(pl.col(column).alias(name))

    return listed("outcome", "outcomes").join(listed("rule", "rules"), on="case")


def failures_by_case(comparison: Comparison) -> pl.DataFrame:
    """Per case: the wrong outcomes it holds and the rules they are on, which `red_table` joins;
    two thirds of a second at a million cases, so the app finds them once for both its lists."""
    return _failures_by_case(comparison).collect()


def red_table(
    comparison: Comparison, *, every: bool = False, failures: pl.DataFrame | None = None
) -> pl.DataFrame:
    """One row per case to review (`every`: per case), raw columns for filters and sorts beside
    the text shown; `failures` is `failures_by_case`, when found already."""
    cases = comparison.cases
    red = pl.lit(every) | (
        ~pl.col("cand_passed")  # null (missing) stays null: unpaired, not failing
        | pl.col("cell").is_in(FLIPS)
        | (pl.col("base_wrong").fill_null(0) > 0)
        | (pl.col("cand_wrong").fill_null(0) > 0)
        | pl.col("unpaired").is_not_null()
    )
    rank = {name: i for i, name in enumerate(SEVERITY)}
    worst_rank = pl.min_horizontal(
        # cast first: the gate may hand outcomes over as strings or as an enum
        pl.col("base_worst")
        .cast(pl.String)
        .replace_strict(rank, default=None, return_dtype=pl.Int8),
        pl.col("cand_worst")
        .cast(pl.String)
        .replace_strict(rank, default=None, return_dtype=pl.Int8),
    ).fill_null(len(SEVERITY))
    kind = pl.when(pl.col("unpaired").is_not_null()).then(pl.lit("unpaired")).otherwise("cell")
    table = (
        cases.lazy()
        .with_row_index("order")  # the table's: case ids in their natural order
        .filter(red)
        .join(
            _failures_by_case(comparison) if failures is None else failures.lazy(),
            on="case",
            how="left",
        )
        .join(_flip_sources(comparison), on="case", how="left")
        .with_columns(
            kind=kind,
            outcomes=pl.col("outcomes").fill_null(pl.lit([], dtype=pl.List(pl.String))),
            rules=pl.col("rules").fill_null(pl.lit([], dtype=pl.List(pl.String))),
            worst_rank=worst_rank,
        )
        .with_columns(
            direction_rank=pl.col("kind").replace_strict(
                {k: i for i, k in enumerate(DIRECTIONS)}, return_dtype=pl.Int8
            ),
            direction=pl.when(pl.col("kind") == "unpaired")
            .then(_unpaired_short())
            .otherwise(pl.col("kind").replace_strict(DIRECTIONS, default=None)),
            worst=severity_name(pl.col("worst_rank")),
            state=pl.col("unpaired").fill_null("paired"),
        )
        .with_columns(
            safe_column("case").alias("case_shown"),
            safe_column("template").alias("template_shown"),
            source_shown=pl.col("source").fill_null(""),
            safety_shown=pl.when(pl.col("safety")).then(pl.lit("safety")).otherwise(pl.lit("")),
            flaky_shown=pl.when(pl.col("listed")).then(pl.lit("listed")).otherwise(pl.lit("")),
            state_shown=pl.col("state").replace_strict(STATE_WORDS),
            state_rank=pl.col("state").replace_strict(
                {s: i for i, s in enumerate(CASE_STATES)}, return_dtype=pl.Int8
            ),
            base_pattern=_pattern_expr("base"),
            cand_pattern=_pattern_expr("cand"),
            # the outcome the worst column shows (a failed check reads as a fail), and its words
            worst_code=pl.when(pl.col("worst").is_in(WRONG_WORST_FIRST))
            .then(pl.col("worst"))
            .when(pl.col("outcomes").list.contains(CHECK_FAILED))
            .then(pl.lit("fail")),
        )
        .with_columns(
            worst_shown=pl.col("worst_code")
            .replace_strict({**OUTCOME_SHORT, "fail": CHECK_FAILED}, default=None)
            .fill_null(ABSENT),
            cost_shown=_signed_cost_expr(),
            case_lower=pl.col("case").str.to_lowercase(),
        )
        .collect()
    )
    return sort_cases(table, "direction")


def _unpaired_short() -> pl.Expr:
    """`unpaired: base only`, `unpaired: cand all infra`: an unpaired case's state, shortly."""
    arm = pl.col("unpaired_arm").replace_strict(ARM_SHORT, default=None)
    state = pl.col("unpaired").replace_strict(STATE_SHORT, default=None)
    return pl.format("unpaired: {} {}", arm, state)


def _signed_cost_expr() -> pl.Expr:
    """Cost changes as `+400`, `0` or a minus sign and `4`: the sign matters more than the cents."""
    rounded = pl.col("cost_delta").round(2)
    sign = pl.when(rounded > 0).then(pl.lit("+")).when(rounded < 0).then(pl.lit(MINUS))
    return sign.otherwise(pl.lit("")) + rounded.abs().cast(pl.String).str.replace(r"\.0$", "")


def sort_cases(table: pl.DataFrame, key: str, *, descending: bool = False) -> pl.DataFrame:
    columns, order = SORTS[key]
    by = [*columns, "order"]
    desc = [d != descending for d in order] + [descending]
    return table.sort(by, descending=desc, nulls_last=True, maintain_order=True)


# --------------------------------------------------------------------------- one case


@dataclass(frozen=True)
class Verdict:
    """One decision or check of one repetition."""

    actual: str  # the label the system gave, or pass/fail for a check
    outcome: str  # one of the five outcomes; `pass`/`fail` for a check
    reason: str | None


@dataclass(frozen=True)
class RuleLine:
    """A rule of the case across every repetition of both arms."""

    rule: str
    kind: Literal["decision", "check"]
    expected: str  # the expected label; `pass` for a check
    verdicts: dict[str, tuple[Verdict | None, ...]]  # arm -> one per `CaseDetail.reps`

    def wrong(self, arm: str) -> int:
        return sum(1 for v in self.verdicts[arm] if v and v.outcome not in ("agreement", "pass"))


@dataclass(frozen=True)
class RepDetail:
    rep: int
    status: str  # ok | infra
    infra: str | None
    passed: bool | None  # None for infra
    output: str | None
    messages: str | None  # the trajectory as the run stores it (JSON text), parsed when shown
    metrics: dict[str, float | None]
    extra: dict[str, Any]

    def ending(self) -> Ending | None:
        """How it ended where it did not end by itself: infra (its kind), or stopped by the
        limit an importer recorded on it (`limit: {type, limit}`, docs/importers.md)."""
        if self.status == "infra":
            return Ending(self.rep, errored=self.infra or "infra")
        limit = self.extra.get("limit")
        if isinstance(limit, dict):
            kind, value = limit.get("type"), limit.get("limit")
            if isinstance(kind, str) and isinstance(value, int | float):
                return Ending(self.rep, limit=(kind, float(value)))
        return None


@dataclass(frozen=True)
class CaseDetail:
    case: str
    safety: bool
    template: str | None
    listed: bool
    kind: str | None  # the direction's code: a cell (`pass_to_fail`...) or `unpaired`
    direction: str  # as in the table
    unpaired: str | None  # why it is unpaired, in words
    reps: tuple[int, ...]  # the repetition numbers of either arm, ascending
    arms: dict[str, tuple[RepDetail | None, ...]]  # arm -> one per `reps`; None: no such rep
    collapsed: dict[str, bool | None]  # arm -> the collapsed verdict; None = missing
    lines: tuple[RuleLine, ...]
    metrics: dict[str, dict[str, float | None]]  # arm -> metric -> mean over gradable reps

    def rep(self, arm: str, index: int) -> RepDetail | None:
        return self.arms[arm][index]

    @property
    def has_trajectories(self) -> bool:
        return any(r is not None and r.messages for reps in self.arms.values() for r in reps)

    def messages(self, index: int) -> tuple[str | None, str | None]:
        """Both arms' trajectories of repetition `index`, as the runs store them."""
        base, cand = (self.rep(arm, index) for arm in ARMS)
        return (base.messages if base else None, cand.messages if cand else None)

    def trajectory(self, index: int) -> Alignment:
        """Both arms' turns of repetition `index`, aligned, with how each ended where it errored,
        a limit stopped it, or it never ran."""
        base, cand = self.messages(index)
        return align(parse_turns(base), parse_turns(cand), self.endings(index))

    def endings(self, index: int) -> dict[str, Ending]:
        """How each arm's repetition `index` ended, where it did not end by itself."""
        return {
            arm: ending
            for arm in ARMS
            if (ending := _ending(self.rep(arm, index), self.reps[index])) is not None
        }

    def wobble(self) -> Wobble:
        """Where the arms part beside where each arm parts from itself, over every repetition."""
        turns = {
            arm: [parse_turns(r.messages) for r in reps if r is not None and r.messages]
            for arm, reps in self.arms.items()
        }
        return wobble(turns["baseline"], turns["candidate"])


def _ending(rep: RepDetail | None, number: int) -> Ending | None:
    """How an arm's repetition `number` ended, where it did not end by itself."""
    return Ending(number, never_ran=True) if rep is None else rep.ending()


def _parse_extra(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"extra": text}
    if not isinstance(value, dict):
        return {"extra": value}
    # a field other rows of the run have is stored as null on this one: not a field of this row
    return {k: v for k, v in value.items() if v is not None}


def case_detail(comparison: Comparison, case: str) -> CaseDetail:
    """Everything the drill-down shows about one case."""
    row = comparison.cases.filter(pl.col("case") == case)
    if row.height == 0:
        raise KeyError(case)
    info = row.row(0, named=True)
    rep_rows = {
        arm: run.texts.beside(run.reps.filter(pl.col("case") == case).sort("rep"))
        for arm in ARMS
        for run in (comparison.run(arm),)
    }
    passed = {
        arm: dict(
            comparison.reps[arm].filter(pl.col("case") == case).select("rep", "passed").iter_rows()
        )
        for arm in ARMS
    }
    reps = tuple(sorted({r for frame in rep_rows.values() for r in frame["rep"].to_list()}))
    position = {rep: i for i, rep in enumerate(reps)}

    arms: dict[str, tuple[RepDetail | None, ...]] = {}
    means: dict[str, dict[str, float | None]] = {}
    for arm, frame in rep_rows.items():
        slots: list[RepDetail | None] = [None] * len(reps)
        for r in frame.iter_rows(named=True):
            slots[position[r["rep"]]] = RepDetail(
                rep=r["rep"],
                status=r["status"],
                infra=r["infra"],
                passed=passed[arm].get(r["rep"]),
                output=r["output"],
                messages=r["messages"],
                metrics={m: r[m] for m in METRICS},
                extra=_parse_extra(r["extra"]),
            )
        arms[arm] = tuple(slots)
        gradable = frame.filter(pl.col("status") == "ok")
        means[arm] = {
            m: (float(v) if (v := gradable[m].mean()) is not None else None)  # type: ignore[arg-type]
            for m in METRICS
        }

    lines = _decision_lines(comparison, case, position) + _check_lines(comparison, case, position)
    state = info["unpaired"]
    kind = info["cell"] if state is None else "unpaired"
    left_out = comparison.result.unpaired_by_case.get(case)
    return CaseDetail(
        case=case,
        safety=bool(info["safety"]),
        template=info["template"],
        listed=bool(info["listed"]),
        kind=kind,
        direction=DIRECTIONS.get(kind or "", ABSENT),
        unpaired=None if left_out is None else sentence(left_out),
        reps=reps,
        arms=arms,
        collapsed={arm: info[f"{PREFIX[arm]}_passed"] for arm in ARMS},
        lines=lines,
        metrics=means,
    )


def _decision_lines(
    comparison: Comparison, case: str, position: dict[int, int]
) -> tuple[RuleLine, ...]:
    per_arm = {arm: comparison.decisions[arm].filter(pl.col("case") == case) for arm in ARMS}
    rules = sorted({r for frame in per_arm.values() for r in frame["rule"].to_list()})
    lines = []
    for rule in rules:
        verdicts: dict[str, tuple[Verdict | None, ...]] = {}
        expected: list[str] = []
        for arm, frame in per_arm.items():
            slots: list[Verdict | None] = [None] * len(position)
            for d in frame.filter(pl.col("rule") == rule).iter_rows(named=True):
                slots[position[d["rep"]]] = Verdict(d["actual"], d["outcome"], d["reason"])
                if d["expected"] not in expected:
                    expected.append(d["expected"])
            verdicts[arm] = tuple(slots)
        lines.append(RuleLine(rule, "decision", " / ".join(expected), verdicts))
    return tuple(lines)


def _check_lines(
    comparison: Comparison, case: str, position: dict[int, int]
) -> tuple[RuleLine, ...]:
    per_arm = {}
    for arm in ARMS:
        gradable = comparison.reps[arm].filter(
            (pl.col("case") == case) & (pl.col("status") == "ok")
        )
        checks = comparison.run(arm).checks.filter(pl.col("case") == case)
        per_arm[arm] = checks.join(gradable.select("case", "rep"), on=["case", "rep"], how="semi")
    rules = sorted({r for frame in per_arm.values() for r in frame["rule"].to_list()})
    lines = []
    for rule in rules:
        verdicts: dict[str, tuple[Verdict | None, ...]] = {}
        for arm, frame in per_arm.items():
            slots: list[Verdict | None] = [None] * len(position)
            for c in frame.filter(pl.col("rule") == rule).iter_rows(named=True):
                word = "pass" if c["passed"] else "fail"
                slots[position[c["rep"]]] = Verdict(word, word, c["reason"])
            verdicts[arm] = tuple(slots)
        lines.append(RuleLine(rule, "check", "pass", verdicts))
    return tuple(lines)


__all__ = [
    "COLUMNS",
    "DIRECTIONS",
    "KINDS",
    "OUTCOME_SHORT",
    "CaseDetail",
    "RepDetail",
    "RuleLine",
    "Verdict",
    "case_detail",
    "failures_by_case",
    "red_table",
    "sort_cases",
]
