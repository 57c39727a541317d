"""Triage evidence (SPEC §5): what the runs show about each of the five classes, in walk order.

    1. infra           timeouts, crashes, rate limits: repetitions that decided a case's verdict
    2. flaky           listed cases, repetitions that split within an arm, flips between
                       identical baseline runs
    3. grader          a moved judge; the same output graded differently in the two arms
    4. stale_baseline  key drift, a case added, removed or edited, another eval-set revision
    5. regression      what is left: the flips no earlier class names, and where they concentrate

`evidence` computes every step from a `Comparison` alone (plus optional repeats of the baseline).

Rerunning until green is never offered: a case that passes half the time goes green at least once
in three tries 87.5% of the time, which turns a gate on reliability into a gate on luck.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.gate.collapse import PREFIX, collapsed
from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.plural import plural, plural_column
from flipgate.core.runs.key import moved_components
from flipgate.core.runs.model import Run
from flipgate.core.vocab import (
    ARMS,
    FLIPS,
    OUTCOMES,
    TriageClass,
)

Fact = tuple[str, str]

TITLES: dict[str, str] = {
    "infra": "Infra failures",
    "flaky": "Flaky cases",
    "grader": "Grader",
    "stale_baseline": "Stale baseline",
    "regression": "Regression",
}
NO_TEMPLATE = "(no template)"
LISTED_AT_MOST = 8  # case ids written out in one fact line; the step's case list holds them all


@dataclass(frozen=True)
class TriageStep:
    """The evidence for one class: what the tool found, in words and figures, and the cases."""

    klass: TriageClass
    title: str
    summary: str  # one line in words
    facts: tuple[Fact, ...]  # (label, value) lines
    cases: tuple[str, ...]  # the cases this step names, most telling first
    suggests_cause: bool
    # The flipped cases among `cases` this class accounts for on its own (an infra repetition
    # decided it, the same output got another grade...). A case that is merely noisy in one arm
    # is named but not explained; the regression step holds the flips no step explains.
    explains: tuple[str, ...] = ()


def evidence(comparison: Comparison, baseline_repeats: Sequence[Run] = ()) -> list[TriageStep]:
    """The five steps in walk order. A repeat whose key differs from the baseline is refused."""
    _check_repeats(comparison.baseline, baseline_repeats)
    flips = comparison.cases.filter(pl.col("cell").is_in(FLIPS))
    steps = [
        _infra(comparison, flips),
        _flaky(comparison, flips, baseline_repeats),
        _grader(comparison, flips),
        _stale_baseline(comparison),
    ]
    steps.append(_regression(comparison, flips, steps))
    return steps


def named_cases(steps: Iterable[TriageStep]) -> dict[str, tuple[TriageClass, ...]]:
    """Every case the steps name, once, in walk order (the cases a reviewer looked at), with the
    classes whose step named it."""
    named: dict[str, tuple[TriageClass, ...]] = {}
    for step in steps:
        for case in step.cases:
            named[case] = (*named.get(case, ()), step.klass)
    return named


def _listed(cases: pl.Expr) -> pl.Expr:
    """A list column of case ids as one line: the first few, and how many more."""
    more = cases.list.len().cast(pl.Int64) - LISTED_AT_MOST
    shown = cases.list.head(LISTED_AT_MOST).list.join(", ")
    return pl.when(more > 0).then(pl.format("{} and {} more", shown, more)).otherwise(shown)


def _ids(cases: pl.Series) -> str:
    return str(pl.select(_listed(pl.lit(cases).implode())).item())


# 1. infra -------------------------------------------------------------------------------


def _infra(comparison: Comparison, flips: pl.DataFrame) -> TriageStep:
    result, spec = comparison.result, comparison.spec
    facts: list[Fact] = []
    for arm in ARMS:
        stats = result.infra[arm]
        kinds = ", ".join(f"{kind} {n}" for kind, n in stats.by_kind.items())
        facts.append(
            (
                f"{arm} infra repetitions",
                f"{stats.count} of {stats.reps} ({stats.share:.1%}, at most "
                f"{spec.infra_max_share:.0%} allowed)" + (f": {kinds}" if kinds else ""),
            )
        )
    with_infra = _with_infra(comparison, flips)
    facts += with_infra.select("case", "line").rows()
    decisive = with_infra.filter("hinges")["case"].to_list()
    touched = with_infra.filter(~pl.col("hinges"))["case"].to_list()

    lost = comparison.cases.filter(
        pl.col("unpaired").str.starts_with("no gradable").fill_null(False)
    )
    facts += lost.select(
        "case",
        pl.format("{}: every repetition was infra, so it is left out of the count", "unpaired"),
    ).rows()
    over = [arm for arm in ARMS if result.infra[arm].share > spec.infra_max_share]
    parts = []
    if over:
        parts.append(f"infra failures exceed the allowed share in the {' and '.join(over)} run")
    if decisive:
        verb = "hinges" if len(decisive) == 1 else "hinge"
        parts.append(f"{plural(len(decisive), 'flipped case')} {verb} on infra repetitions")
    if touched:
        parts.append(f"{plural(len(touched), 'flipped case')} had infra, not decided by it")
    if lost.height:
        parts.append(f"{plural(lost.height, 'case')} lost every repetition to infra")
    return TriageStep(
        "infra",
        TITLES["infra"],
        "; ".join(parts) or "no flipped case has an infra repetition",
        tuple(facts),
        (*decisive, *touched, *lost["case"].to_list()),
        bool(over or decisive or lost.height),
        explains=tuple(decisive),
    )


def _with_infra(comparison: Comparison, flips: pl.DataFrame) -> pl.DataFrame:
    """The flipped cases with an infra repetition, in order: case, `line` (per arm, its counts
    and whether the verdict hinges on the infra repetitions), `hinges` (in either arm)."""
    spec = comparison.spec

    def verdict(passing: pl.Expr, graded: pl.Expr) -> pl.Expr:
        return (
            pl.when(pl.col("safety"))
            .then(collapsed(spec.aggregate_safety, passing, graded))
            .otherwise(collapsed(spec.aggregate_ordinary, passing, graded))
        )

    lines, hinges, touched = [], [], []
    for arm, prefix in PREFIX.items():
        kinds = _infra_kinds(comparison, arm).rename({"kinds": f"{prefix}_kinds"})
        flips = flips.join(kinds, on="case", how="left", maintain_order="left")
        infra, passes, gradable, passed = (
            pl.col(f"{prefix}_{name}") for name in ("infra", "passes", "gradable", "passed")
        )
        infra = infra.fill_null(0)
        would_pass = ~passed & verdict(passes + infra, gradable + infra)
        would_fail = passed & ~verdict(passes, gradable + infra)
        counts = pl.format(
            "{}: {} pass, {} fail, {} infra ({}) -> ",
            pl.lit(arm),
            passes,
            gradable - passes,
            infra,
            pl.col(f"{prefix}_kinds").fill_null("unspecified"),
        )
        fails = pl.when(2 * passes == gradable).then(pl.lit("a tie, so it fails"))
        lines.append(
            pl.when(infra == 0)
            .then(None)
            .when(would_pass)
            .then(
                counts
                + fails.otherwise(pl.lit("it fails"))
                + "; had the infra repetitions passed, it would pass"
            )
            .when(would_fail)
            .then(counts + "it passes; had the infra repetitions failed, it would fail")
            .otherwise(counts + "the verdict stands whatever the infra repetitions did")
        )
        hinges.append((infra > 0) & (would_pass | would_fail))
        touched.append(infra > 0)
    return flips.select(
        "case",
        line=pl.concat_str(lines, separator="; ", ignore_nulls=True),
        hinges=pl.any_horizontal(hinges),
        touched=pl.any_horizontal(touched),
    ).filter("touched")


def _infra_kinds(comparison: Comparison, arm: str) -> pl.DataFrame:
    """case, `kinds`: its infra kinds with counts, e.g. `timeout 2, crash 1`."""
    infra = comparison.reps[arm].filter(pl.col("status") == "infra")
    return (
        infra.group_by("case", pl.col("infra").fill_null("unspecified"))
        .len()
        .sort("case", "infra")
        .group_by("case", maintain_order=True)
        .agg(kinds=pl.format("{} {}", "infra", "len").str.join(", "))
    )


# 2. flaky -------------------------------------------------------------------------------


def _check_repeats(baseline: Run, repeats: Sequence[Run]) -> None:
    for repeat in repeats:
        differs = moved_components(baseline.key, repeat.key)
        if differs:
            detail = ", ".join(
                f"{c.name} is {c.shown_after} here, {c.shown_before} in the baseline"
                for c in differs
            )
            raise InputError(
                repeat.path,
                f"baseline repeat {repeat.run_id} is not a repeat of {baseline.run_id}: "
                f"its key differs ({detail})",
                field=f"key.{differs[0].name}",
            )


def _pattern(prefix: str) -> pl.Expr:
    passes, gradable = pl.col(f"{prefix}_passes"), pl.col(f"{prefix}_gradable")
    return (
        pl.when(gradable.fill_null(0) == 0)
        .then(pl.lit("missing"))
        .otherwise(pl.format("{} of {} passed", passes, gradable))
    )


def _flaky(comparison: Comparison, flips: pl.DataFrame, repeats: Sequence[Run]) -> TriageStep:
    flaky = comparison.flaky
    facts: list[Fact] = [
        (
            "flaky list",
            f"{plural(len(flaky.entries), 'entry', 'entries')}; "
            "listed cases are left out of b and c",
        )
    ]
    # Each sign that a flipped case is noisy, as a phrase: listed, unsteady across the baseline
    # runs, its repetitions split.
    entries = pl.DataFrame(
        [(e.case, e.added.isoformat(), e.owner, e.reason, e.evidence) for e in flaky.entries],
        schema=dict.fromkeys(("case", "added", "owner", "reason", "evidence"), pl.String),
        orient="row",
    ).unique("case", keep="first")
    listed_sign = pl.format(
        "listed since {} by {}: {}; evidence: {}", "added", "owner", "reason", "evidence"
    )
    signs = flips.with_row_index("row").join(
        entries.select("case", listed_sign=listed_sign), on="case", how="left"
    )
    unsteady_sign = pl.lit(None, pl.String)
    if repeats:
        runs = [comparison.baseline.run_id, *(r.run_id for r in repeats)]
        unsteady = _unsteady(comparison, repeats)
        n = unsteady.height
        facts.append(
            (
                "identical baseline runs",
                f"{len(runs)} with the same key ({', '.join(runs)}); "
                f"{plural(n, 'case')} flip between them"
                + (f": {_ids(unsteady['case'])}" if n else ""),
            )
        )
        signs = signs.join(unsteady, on="case", how="left")
        unsteady_sign = pl.format("across the baseline runs: {}", "marks")
    else:
        facts.append(("identical baseline runs", "none given (run the baseline again to measure)"))

    split = {
        arm: pl.col(f"{prefix}_passes")
        .fill_null(0)
        .is_between(1, pl.col(f"{prefix}_gradable").fill_null(0) - 1)
        for arm, prefix in PREFIX.items()
    }
    where = (
        pl.when(split["baseline"] & split["candidate"])
        .then(pl.lit("both arms"))
        .when(split["baseline"])
        .then(pl.lit("the baseline only"))
        .when(split["candidate"])
        .then(pl.lit("the candidate only"))
    )
    split_sign = pl.format(
        "repetitions split in {}: baseline {}, candidate {}",
        where,
        _pattern("base"),
        _pattern("cand"),
    )
    # Named in this order: listed, unsteady (by case id), split in both arms (noise alone would
    # flip them: these three explain the flip), then split in one arm only.
    rank = (
        pl.when(pl.col("listed"))
        .then(0)
        .when(unsteady_sign.is_not_null())
        .then(1)
        .when(where == "both arms")
        .then(2)
        .when(where.is_not_null())
        .then(3)
    )
    noisy = (
        signs.with_columns(
            rank=rank,
            sign=pl.concat_str(
                [pl.when(pl.col("listed")).then("listed_sign"), unsteady_sign, split_sign],
                separator="; ",
                ignore_nulls=True,
            ),
            split_in=where,
        )
        .filter(pl.col("rank").is_not_null())
        .sort("rank", pl.when(pl.col("rank") == 1).then("case"), "row")
    )
    facts += noisy.select("case", "sign").rows()
    named = tuple(noisy["case"])
    explained = tuple(noisy.filter(pl.col("rank") < 3)["case"])
    listed, unsteady_n, split_both, split_any = noisy.select(
        listed=pl.col("listed").sum(),
        unsteady=unsteady_sign.is_not_null().sum(),
        split_both=(pl.col("split_in") == "both arms").sum(),
        split=pl.col("split_in").is_not_null().sum(),
    ).row(0)
    parts = [
        f"{n} {what}"
        for n, what in (
            (listed, "listed"),
            (unsteady_n, "flipping between baseline runs"),
            (split_both, "split in both arms"),
            (split_any - split_both, "split in one arm only"),
        )
        if n
    ]
    summary = (
        f"flipped cases that look noisy: {', '.join(parts)}"
        if named
        else "no flipped case is listed, split or unsteady across baseline runs"
    )
    return TriageStep(
        "flaky", TITLES["flaky"], summary, tuple(facts), named, bool(explained), explained
    )


def _unsteady(comparison: Comparison, repeats: Sequence[Run]) -> pl.DataFrame:
    """The cases whose collapsed verdict differs between the baseline and its repeats, by case
    id, with `marks`: pass, fail or missing in each run in turn."""
    runs = [f"run{i}" for i in range(len(repeats) + 1)]
    verdicts = comparison.cases.select("case", pl.col("base_passed").alias(runs[0])).filter(
        pl.col(runs[0]).is_not_null()
    )
    for run, repeat in zip(runs[1:], repeats, strict=True):
        # The gate's own collapse, applied to the baseline against its repeat.
        paired = compare(comparison.baseline, repeat, comparison.spec).cases
        verdicts = verdicts.join(
            paired.select("case", pl.col("cand_passed").alias(run)),
            on="case",
            how="full",
            coalesce=True,
        )
    mark = (
        pl.when(pl.col(run).is_null())
        .then(pl.lit("missing"))
        .when(pl.col(run))
        .then(pl.lit("pass"))
        .otherwise(pl.lit("fail"))
        for run in runs
    )
    passes = pl.any_horizontal(pl.col(run).fill_null(False) for run in runs)
    fails = pl.any_horizontal((~pl.col(run)).fill_null(False) for run in runs)
    return (
        verdicts.filter(passes & fails)
        .select("case", marks=pl.concat_str(mark, separator=" "))
        .sort("case")
    )


# 3. grader ------------------------------------------------------------------------------


def _graded_outputs(comparison: Comparison, arm: str, cases: list[str]) -> pl.DataFrame:
    run = comparison.run(arm)
    outputs = run.reps.filter(
        pl.col("case").is_in(cases) & (pl.col("status") == "ok") & pl.col("output").is_not_null()
    ).select("case", "rep", "output")
    graded = comparison.reps[arm].select("case", "rep", "passed")
    return outputs.join(graded, on=["case", "rep"]).with_columns(
        norm=pl.col("output").str.replace_all(r"\s+", " ").str.strip_chars()
    )


def _grader(comparison: Comparison, flips: pl.DataFrame) -> TriageStep:
    base_key, cand_key = comparison.baseline.key, comparison.candidate.key
    judges = (base_key.get("judge"), cand_key.get("judge"))
    facts: list[Fact] = []
    judge_moved = judges[0] != judges[1]
    if judge_moved:
        declared = "judge" in comparison.result.declared_change
        facts.append(
            (
                "judge",
                f"{judges[0] or '(absent)'} -> {judges[1] or '(absent)'} "
                + ("(the declared change)" if declared else "(outside the declared change)"),
            )
        )
    else:
        facts.append(("judge", f"{judges[0]} in both arms" if judges[0] else "not in either key"))

    cases = flips["case"].to_list()
    pairs = (
        _graded_outputs(comparison, "baseline", cases)
        .join(_graded_outputs(comparison, "candidate", cases), on="case", suffix="_cand")
        .filter(
            (pl.col("passed") != pl.col("passed_cand")) & (pl.col("norm") == pl.col("norm_cand"))
        )
        .with_columns(
            same_rep=pl.col("rep") == pl.col("rep_cand"),
            exact=pl.col("output") == pl.col("output_cand"),
        )
        .sort(
            "case",
            "same_rep",
            "exact",
            "rep",
            "rep_cand",
            descending=[False, True, True, False, False],
        )
    )
    grade = {
        arm: pl.when(pl.col(c)).then(pl.lit("passed")).otherwise(pl.lit("failed"))
        for arm, c in (("baseline", "passed"), ("candidate", "passed_cand"))
    }
    how = (
        pl.when("exact")
        .then(pl.lit("identical"))
        .otherwise(pl.lit("identical after whitespace normalisation"))
    )
    grades = pl.format("baseline {}, candidate {}", grade["baseline"], grade["candidate"])
    others = (
        pl.when(pl.col("n") > 1)
        .then(pl.format(" ({} of repetitions)", plural_column(pl.col("n"), "such pair")))
        .otherwise(pl.lit(""))
    )
    same_output = (
        pairs.with_columns(n=pl.len().over("case"))
        .unique("case", keep="first", maintain_order=True)
        .select(
            "case",
            pl.when("same_rep")
            .then(pl.format("rep {}: output {}; {}{}", "rep", how, grades, others))
            .otherwise(
                pl.format(
                    "candidate rep {} output {} to baseline rep {}'s; {}{}",
                    "rep_cand",
                    how,
                    "rep",
                    grades,
                    others,
                )
            ),
        )
    )
    facts += same_output.rows()
    same = same_output["case"].to_list()
    if not cases:
        facts.append(("outputs", "no flipped case to compare"))
    elif not same:
        facts.append(
            (
                "outputs",
                f"no flipped case has the same output graded differently ({len(cases)} compared)",
            )
        )

    parts = []
    if judge_moved:
        parts.append("the judge moved")
    if same:
        parts.append(
            f"{plural(len(same), 'flipped case')} kept the same output under another grade"
        )
    summary = "; ".join(parts) if parts else "the judge held and no output is graded two ways"
    return TriageStep(
        "grader",
        TITLES["grader"],
        summary,
        tuple(facts),
        tuple(same),
        bool(judge_moved or same),
        tuple(same),
    )


# 4. stale baseline ----------------------------------------------------------------------


def _edited(comparison: Comparison) -> pl.DataFrame:
    """The cases in both arms that changed, by case id, with `how`: what the gate counts as an
    edit (expected labels, safety flag, rules and checks), and a move to another template, which
    only shows here."""
    edited = comparison.result.changes.edited
    by_gate = pl.DataFrame(
        {"case": list(edited), "whats": list(edited.values())},
        schema={"case": pl.String, "whats": pl.List(pl.String)},
    )
    templates = [
        comparison.run(arm).reps.group_by("case").agg(pl.col("template").drop_nulls().first())
        for arm in ARMS
    ]
    shown = {
        side: pl.when(pl.col(side).is_null() | (pl.col(side) == ""))
        .then(pl.lit("(none)"))
        .otherwise(pl.col(side))
        for side in ("template", "template_cand")
    }
    moved = (
        templates[0]
        .join(templates[1], on="case", suffix="_cand")
        .filter(pl.col("template").ne_missing(pl.col("template_cand")))
        .select(
            "case", move=pl.format("template {}, was {}", shown["template_cand"], shown["template"])
        )
    )
    return (
        by_gate.join(moved, on="case", how="full", coalesce=True)
        .select(
            "case",
            how=pl.concat_str(
                [pl.col("whats").list.join("; "), "move"], separator="; ", ignore_nulls=True
            ),
        )
        .sort("case")
    )


def _age(baseline: datetime | None, candidate: datetime | None) -> str:
    if baseline is None or candidate is None:
        return "unknown: a run has no `created` time"
    gap = candidate - baseline
    if gap.total_seconds() < 0:
        return "the baseline was created after the candidate"
    days, hours = gap.days, gap.seconds // 3600
    if not days and not hours:
        return "made within the hour of the candidate"
    return f"{plural(days, 'day')} {plural(hours, 'hour')} older than the candidate"


def _stale_baseline(comparison: Comparison) -> TriageStep:
    result = comparison.result
    baseline, candidate = comparison.baseline, comparison.candidate
    facts: list[Fact] = []
    for moved in moved_components(baseline.key, candidate.key):
        where = (
            "declared" if moved.name in result.declared_change else "outside the declared change"
        )
        facts.append(
            (f"key {moved.name}", f"{moved.shown_before} -> {moved.shown_after} ({where})")
        )
    if not result.key_moved:
        facts.append(("key", "no component moved between the arms"))
    revisions = (baseline.key.get("eval_set"), candidate.key.get("eval_set"))
    facts.append(
        (
            "eval-set revision",
            f"{revisions[0]} in both arms"
            if revisions[0] == revisions[1] and revisions[0]
            else "not in either key"
            if revisions == (None, None)
            else f"baseline {revisions[0] or '(not recorded)'}, "
            f"candidate {revisions[1] or '(not recorded)'}",
        )
    )
    for arm, run in (("baseline", baseline), ("candidate", candidate)):
        facts.append((f"{arm} created", _time(run.created)))
    facts.append(("baseline age", _age(baseline.created, candidate.created)))

    membership = comparison.cases.filter(
        pl.col("unpaired").str.starts_with("only in").fill_null(False)
    )
    only = {
        where: membership.filter(pl.col("unpaired") == f"only in {where}")["case"] for where in ARMS
    }
    for arm in ARMS:
        if only[arm].len():
            facts.append((f"only in the {arm}", f"{only[arm].len()}: {_ids(only[arm])}"))
    edited = _edited(comparison)
    facts += edited.select("case", pl.format("edited between the arms: {}", "how")).rows()

    late = []
    if baseline.created is not None:
        made = baseline.created.date()
        late = [e for e in comparison.flaky.entries if e.added > made]
    if late:
        facts.append(
            (
                "flaky entries after the baseline",
                ", ".join(f"{e.case} (added {e.added.isoformat()})" for e in late),
            )
        )

    drift = result.key_drift
    revision_moved = revisions[0] != revisions[1]
    parts = []
    if drift:
        parts.append(f"key moved outside the declared change: {', '.join(drift)}")
    elif revision_moved:
        parts.append("the eval-set revision differs")
    added, removed = len(only["candidate"]), len(only["baseline"])
    if added or removed:
        parts.append(f"{added} cases added, {removed} removed")
    if edited.height:
        parts.append(f"{plural(edited.height, 'case')} edited")
    summary = (
        "; ".join(parts) if parts else "same key outside the change, same cases, same revision"
    )
    named = (*only["baseline"], *only["candidate"], *edited["case"])
    return TriageStep(
        "stale_baseline",
        TITLES["stale_baseline"],
        summary,
        tuple(facts),
        tuple(dict.fromkeys(named)),
        bool(drift or revision_moved or added or removed or edited.height),
        tuple(edited["case"]),
    )


def _time(moment: datetime | None) -> str:
    return (
        "(not recorded)"
        if moment is None
        else moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    )


# 5. regression --------------------------------------------------------------------------


def _regression(
    comparison: Comparison, flips: pl.DataFrame, earlier: Sequence[TriageStep]
) -> TriageStep:
    result = comparison.result
    explained = {case for step in earlier for case in step.explains}
    remaining = flips.filter(~pl.col("case").is_in(sorted(explained)))
    broken = remaining.filter(pl.col("cell") == "pass_to_fail")
    fixed = remaining.filter(pl.col("cell") == "fail_to_pass")
    facts: list[Fact] = [
        (
            "flipped cases",
            f"{flips.height}, listed ones included (counted: b = {result.b}, c = {result.c})",
        ),
        (
            "explained earlier",
            ", ".join(f"{step.klass} {len(step.explains)}" for step in earlier)
            + f"; {remaining.height} remain: {broken.height} broke, {fixed.height} fixed",
        ),
    ]
    passing = [
        int(comparison.cases[f"{prefix}_passed"].fill_null(False).sum())
        for prefix in PREFIX.values()
    ]
    facts.append(("cases passing", f"{passing[0]} -> {passing[1]} ({passing[1] - passing[0]:+d})"))
    counts = [result.outcomes[arm].counts for arm in ARMS]
    if any(result.outcomes[arm].decisions for arm in ARMS):
        for outcome in OUTCOMES:
            was, now = counts[0][outcome], counts[1][outcome]
            facts.append((outcome.replace("_", " "), f"{was} -> {now} ({now - was:+d})"))

    cases = broken["case"].to_list()
    by_rule = _wrong_by_rule(comparison, cases)
    for rule, wrong, in_cases, kinds in by_rule:
        facts.append(
            (
                f"rule {rule}",
                f"{plural(wrong, 'wrong candidate call')} in {plural(in_cases, 'case')} ({kinds})",
            )
        )
    templates = (
        broken.group_by(pl.col("template").fill_null(NO_TEMPLATE))
        .agg(pl.len().alias("n"), pl.col("case").sort())
        .sort("n", "template", descending=[True, False])
    )
    facts += templates.select(
        pl.format("template {}", "template"),
        pl.format("{}: {}", plural_column(pl.col("n"), "broken case"), _listed(pl.col("case"))),
    ).rows()
    if templates.height and templates.height < broken.height:
        facts.append(
            (
                "templates",
                f"{plural(broken.height, 'broken case')} come from "
                f"{plural(templates.height, 'template')}: "
                "cloned cases flip together, count a template once",
            )
        )

    if broken.height:
        where = []
        if by_rule:
            where.append(f"rule {by_rule[0][0]}")
        top = templates.row(0) if templates.height else (NO_TEMPLATE, 0, [])
        if top[0] != NO_TEMPLATE and top[1] > 1:  # one case per template is no cluster
            where.append(f"template {top[0]}")
        summary = f"{plural(broken.height, 'broken case')} no earlier step explains" + (
            f", most in {' and '.join(where)}" if where else ""
        )
    elif flips.height:
        summary = "an earlier step explains every broken case"
    else:
        summary = "no case flipped"
    order = pl.col("cell") == "fail_to_pass"  # broken first, then fixed
    return TriageStep(
        "regression",
        TITLES["regression"],
        summary,
        tuple(facts),
        tuple(remaining.sort(order, "case")["case"].to_list()),
        bool(broken.height),
        tuple(broken["case"].to_list()),
    )


def _wrong_by_rule(comparison: Comparison, cases: list[str]) -> list[tuple[str, int, int, str]]:
    """(rule, wrong calls, cases, outcomes in words) of the candidate on `cases`, most first."""
    wrong_decisions = (
        comparison.decisions["candidate"]
        .filter(pl.col("case").is_in(cases) & (pl.col("outcome") != "agreement"))
        .select("case", "rule", pl.col("outcome").cast(pl.String))
    )
    gradable = comparison.candidate.reps.filter(pl.col("status") == "ok").select("case", "rep")
    failed_checks = (
        comparison.candidate.checks.filter(pl.col("case").is_in(cases) & ~pl.col("passed"))
        .join(gradable, on=["case", "rep"], how="semi")
        .select("case", "rule", outcome=pl.lit("failed check"))
    )
    wrong = pl.concat([wrong_decisions, failed_checks])
    if wrong.height == 0:
        return []
    per_rule = (
        wrong.group_by("rule")
        .agg(pl.len().alias("wrong"), pl.col("case").n_unique().alias("cases"))
        .sort("wrong", "rule", descending=[True, False])
    )
    kinds = (
        wrong.group_by("rule", "outcome")
        .len()
        .sort("rule", "len", "outcome", descending=[False, True, False])
        .group_by("rule", maintain_order=True)
        .agg(
            kinds=pl.format("{} {}", "len", pl.col("outcome").str.replace_all("_", " ")).str.join(
                ", "
            )
        )
    )
    return per_rule.join(kinds, on="rule", maintain_order="left").rows()


__all__ = ["TITLES", "TriageStep", "evidence", "named_cases"]
