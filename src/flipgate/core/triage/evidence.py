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
from flipgate.core.plural import plural
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


def _ids(cases: Sequence[str]) -> str:
    shown = ", ".join(cases[:LISTED_AT_MOST])
    more = len(cases) - LISTED_AT_MOST
    return f"{shown} and {more} more" if more > 0 else shown


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
    kinds_of = {arm: _infra_kinds(comparison, arm) for arm in ARMS}

    decisive: list[str] = []
    touched: list[str] = []
    for row in flips.iter_rows(named=True):
        lines = []
        hinges = False
        for arm in ARMS:
            prefix = PREFIX[arm]
            infra = row[f"{prefix}_infra"] or 0
            if not infra:
                continue
            passes, gradable = row[f"{prefix}_passes"], row[f"{prefix}_gradable"]
            rule = spec.aggregate_safety if row["safety"] else spec.aggregate_ordinary
            passed = row[f"{prefix}_passed"]
            counts = (
                f"{arm}: {passes} pass, {gradable - passes} fail, "
                f"{infra} infra ({kinds_of[arm].get(row['case'], 'unspecified')})"
            )
            if not passed and collapsed(rule, passes + infra, gradable + infra):
                hinges = True
                why = "a tie, so it fails" if 2 * passes == gradable else "it fails"
                lines.append(f"{counts} -> {why}; had the infra repetitions passed, it would pass")
            elif passed and not collapsed(rule, passes, gradable + infra):
                hinges = True
                lines.append(
                    f"{counts} -> it passes; had the infra repetitions failed, it would fail"
                )
            else:
                lines.append(f"{counts} -> the verdict stands whatever the infra repetitions did")
        if lines:
            (decisive if hinges else touched).append(row["case"])
            facts.append((row["case"], "; ".join(lines)))

    lost = comparison.cases.filter(
        pl.col("unpaired").str.starts_with("no gradable").fill_null(False)
    )
    for case, why in lost.select("case", "unpaired").iter_rows():
        facts.append((case, f"{why}: every repetition was infra, so it is left out of the count"))
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


def _infra_kinds(comparison: Comparison, arm: str) -> dict[str, str]:
    """case -> its infra kinds with counts, e.g. `timeout 2, crash 1`."""
    infra = comparison.reps[arm].filter(pl.col("status") == "infra")
    counts = (
        infra.group_by("case", pl.col("infra").fill_null("unspecified")).len().sort("case", "infra")
    )
    found: dict[str, list[str]] = {}
    for case, kind, n in counts.iter_rows():
        found.setdefault(case, []).append(f"{kind} {n}")
    return {case: ", ".join(parts) for case, parts in found.items()}


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


def _pattern(passes: int | None, gradable: int | None) -> str:
    return "missing" if not gradable else f"{passes} of {gradable} passed"


def _flaky(comparison: Comparison, flips: pl.DataFrame, repeats: Sequence[Run]) -> TriageStep:
    flaky = comparison.flaky
    facts: list[Fact] = [
        (
            "flaky list",
            f"{plural(len(flaky.entries), 'entry', 'entries')}; "
            "listed cases are left out of b and c",
        )
    ]
    signs: dict[str, list[str]] = {}  # flipped case -> why it looks noisy, one phrase per sign
    listed = flips.filter(pl.col("listed"))["case"].to_list()
    for case in listed:
        entry = flaky.entry(case)
        assert entry is not None  # `listed` is computed from these entries
        signs.setdefault(case, []).append(
            f"listed since {entry.added.isoformat()} by {entry.owner}: {entry.reason}; "
            f"evidence: {entry.evidence}"
        )

    unsteady: list[str] = []
    if repeats:
        verdicts = _baseline_verdicts(comparison, repeats)
        runs = [comparison.baseline.run_id, *(r.run_id for r in repeats)]
        unsteady_all = sorted(c for c, seen in verdicts.items() if True in seen and False in seen)
        facts.append(
            (
                "identical baseline runs",
                f"{len(runs)} with the same key ({', '.join(runs)}); "
                f"{plural(len(unsteady_all), 'case')} flip between them"
                + (f": {_ids(unsteady_all)}" if unsteady_all else ""),
            )
        )
        flipped = set(flips["case"].to_list())
        for case in unsteady_all:
            if case in flipped:
                unsteady.append(case)
                marks = " ".join(
                    "missing" if v is None else "pass" if v else "fail" for v in verdicts[case]
                )
                signs.setdefault(case, []).append(f"across the baseline runs: {marks}")
    else:
        facts.append(("identical baseline runs", "none given (run the baseline again to measure)"))

    split: list[str] = []
    split_both: list[str] = []  # noisy on both sides: the flip is what noise alone would do
    for row in flips.iter_rows(named=True):
        arms_split = [
            arm
            for arm, prefix in PREFIX.items()
            if 0 < (row[f"{prefix}_passes"] or 0) < (row[f"{prefix}_gradable"] or 0)
        ]
        if not arms_split:
            continue
        split.append(row["case"])
        if len(arms_split) == 2:
            split_both.append(row["case"])
        where = "both arms" if len(arms_split) == 2 else f"the {arms_split[0]} only"
        signs.setdefault(row["case"], []).append(
            f"repetitions split in {where}: baseline "
            f"{_pattern(row['base_passes'], row['base_gradable'])}, candidate "
            f"{_pattern(row['cand_passes'], row['cand_gradable'])}"
        )

    explained = tuple(dict.fromkeys((*listed, *unsteady, *split_both)))
    named = tuple(dict.fromkeys((*explained, *split)))
    facts += [(case, "; ".join(signs[case])) for case in named]
    parts = [
        f"{n} {what}"
        for n, what in (
            (len(listed), "listed"),
            (len(unsteady), "flipping between baseline runs"),
            (len(split_both), "split in both arms"),
            (len(split) - len(split_both), "split in one arm only"),
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


def _baseline_verdicts(
    comparison: Comparison, repeats: Sequence[Run]
) -> dict[str, list[bool | None]]:
    """case -> its collapsed verdict in the baseline and then in each repeat (None: missing)."""
    verdicts: dict[str, list[bool | None]] = {
        case: [passed]
        for case, passed in comparison.cases.select("case", "base_passed").iter_rows()
        if passed is not None
    }
    for i, repeat in enumerate(repeats, start=1):
        # The gate's own collapse, applied to the baseline against its repeat.
        paired = compare(comparison.baseline, repeat, comparison.spec).cases
        for case, passed in paired.select("case", "cand_passed").iter_rows():
            seen = verdicts.setdefault(case, [None])
            seen.extend([None] * (i - len(seen)))
            seen.append(passed)
    width = len(repeats) + 1
    return {case: seen + [None] * (width - len(seen)) for case, seen in verdicts.items()}


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
    same: list[str] = []
    for row in pairs.unique("case", keep="first", maintain_order=True).iter_rows(named=True):
        same.append(row["case"])
        how = "identical" if row["exact"] else "identical after whitespace normalisation"
        grades = (
            f"baseline {'passed' if row['passed'] else 'failed'}, "
            f"candidate {'passed' if row['passed_cand'] else 'failed'}"
        )
        n = pairs.filter(pl.col("case") == row["case"]).height
        others = f" ({plural(n, 'such pair')} of repetitions)" if n > 1 else ""
        if row["same_rep"]:
            facts.append((row["case"], f"rep {row['rep']}: output {how}; {grades}{others}"))
        else:
            facts.append(
                (
                    row["case"],
                    f"candidate rep {row['rep_cand']} output {how} to baseline rep {row['rep']}'s; "
                    f"{grades}{others}",
                )
            )
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


def _edited(comparison: Comparison) -> dict[str, list[str]]:
    """case in both arms -> how it changed: what the gate counts as an edit (expected labels,
    safety flag, rules and checks), and a move to another template, which only shows here."""
    changes = {case: list(whats) for case, whats in comparison.result.changes.edited.items()}
    templates = [
        (comparison.run(arm).reps.group_by("case").agg(pl.col("template").drop_nulls().first()))
        for arm in ARMS
    ]
    moved = (
        templates[0]
        .join(templates[1], on="case", suffix="_cand")
        .filter(pl.col("template").ne_missing(pl.col("template_cand")))
        .sort("case")
    )
    for case, was, now in moved.iter_rows():
        changes.setdefault(case, []).append(f"template {now or '(none)'}, was {was or '(none)'}")
    return dict(sorted(changes.items()))


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
        where: membership.filter(pl.col("unpaired") == f"only in {where}")["case"].to_list()
        for where in ARMS
    }
    for arm in ARMS:
        if only[arm]:
            facts.append((f"only in the {arm}", f"{len(only[arm])}: {_ids(only[arm])}"))
    edited = _edited(comparison)
    for case, changes in edited.items():
        facts.append((case, "edited between the arms: " + "; ".join(changes)))

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
    if edited:
        parts.append(f"{plural(len(edited), 'case')} edited")
    summary = (
        "; ".join(parts) if parts else "same key outside the change, same cases, same revision"
    )
    named = (*only["baseline"], *only["candidate"], *edited)
    return TriageStep(
        "stale_baseline",
        TITLES["stale_baseline"],
        summary,
        tuple(facts),
        tuple(dict.fromkeys(named)),
        bool(drift or revision_moved or added or removed or edited),
        tuple(edited),
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
    for template, n, members in templates.iter_rows():
        facts.append((f"template {template}", f"{plural(n, 'broken case')}: {_ids(members)}"))
    if templates.height and templates.height < broken.height:
        facts.append(
            (
                "templates",
                f"{broken.height} broken cases come from {templates.height} templates: "
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
    )
    words: dict[str, list[str]] = {}
    for rule, outcome, n in kinds.iter_rows():
        words.setdefault(rule, []).append(f"{n} {outcome.replace('_', ' ')}")
    return [(rule, n, k, ", ".join(words[rule])) for rule, n, k in per_rule.iter_rows()]


__all__ = ["TITLES", "TriageStep", "evidence", "named_cases"]
