"""The suite audit in words: one `Section` per diagnostic, its findings as lines, in the seed's
order. The text and Markdown reports (`suite_report.py`) and the app's suite-health screen show
these same lines. Names read from files are untrusted: each front end makes them safe.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from flipgate.core.plural import plural
from flipgate.core.suite.audit import FREE_PASS_SYSTEMS, SuiteAudit
from flipgate.core.suite.manifest import MONTH
from flipgate.core.suite.production import SIGNAL_MOVED, ProductionCheck, SignalTrend
from flipgate.core.suite.rebaseline import Summed
from flipgate.core.vocab import Reading
from flipgate.present.numbers import amount, percent_beside

NAMED = 20  # cases named per line in the text and Markdown reports; JSON names them all
# An old run re-scored against today's suite (`vocab.Reading`): its reading, and what it says.
READING_WORDS: dict[Reading, str] = {
    "bar_moved": "bar moved",
    "bar_stood_still": "bar stood still",
    "bar_got_easier": "bar got easier",
    "no_overlap": "no overlap",
}
READING_SAYS: dict[Reading, str] = {
    "bar_moved": "the bar moved with the product: the old system fails today's cases it used to pass",
    "bar_stood_still": "the bar stood still while the product changed: the old system still passes",
    "bar_got_easier": "today's cases are easier for the old system than the cases it was run on",
    "no_overlap": "it holds none of today's cases",
}


@dataclass(frozen=True)
class Line:
    """One finding: `flag` lines are the ones that need someone (GAP, a rule doing all the work)."""

    text: str
    flag: str | None = None  # GAP, STALE, FLAT...
    row: bool = False  # one row of a table the app draws: the app shows the table instead


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[Line, ...]
    key: str = ""  # its name in `SECTIONS`: the app draws each with its own picture


def _cases(cases: list[str]) -> str:
    shown = ", ".join(cases[:NAMED])
    return shown + (f" and {len(cases) - NAMED} more" if len(cases) > NAMED else "")


def findings(audit: SuiteAudit) -> tuple[Section, ...]:
    """The audit in words, section by section, in the seed's order."""
    return tuple(replace(section(audit), key=key) for key, section in SECTIONS.items())


def _coverage(audit: SuiteAudit) -> Section:
    cov = audit.coverage
    title = "coverage against traffic"
    if cov is None:
        return Section(title, (Line("not measured: the workspace has no traffic.yaml"),))
    traffic = audit.inputs.traffic
    assert traffic is not None
    lines = [
        Line(
            f"traffic {traffic.start} to {traffic.end}; an intent is covered by "
            f"{cov.min_cases} live cases or more"
        )
    ]
    for intent, share, cases in cov.gaps.select("intent", "share", "cases").iter_rows():
        lines.append(
            Line(f"{intent}: {percent_beside(share)} of traffic, {plural(cases, 'case')}", "GAP")
        )
    rest = (
        f" ({percent_beside(cov.unclassified)} of traffic has no intent)"
        if cov.unclassified
        else ""
    )
    lines.append(Line(f"covered: {percent_beside(cov.covered_share)} of traffic{rest}"))
    for intent, cases in cov.untrafficked.iter_rows():
        lines.append(Line(f"{intent}: {plural(cases, 'case')}, no traffic in the window"))
    return Section(title, tuple(lines))


def _age(audit: SuiteAudit) -> Section:
    age = audit.age
    if age is None:
        return Section("case age", (Line("not measured: the suite has no live case"),))
    quotas = age.quotas
    since = f"{age.months_since_last:.1f} months before {age.as_of}"
    lines = [
        Line(
            f"{age.first_weeks} of {age.live} live cases written in the suite's first six weeks "
            f"(from {age.started})"
        ),
        Line(
            f"median case age {age.median_months:.1f} months; last addition {age.last_added} ({since})"
        ),
        Line(
            f"last 6 months: {age.recent_added} added against a quota of "
            f"{quotas.additions_per_month * 6} ({quotas.sampled_per_month} sampled + "
            f"{quotas.escalations_per_month} from escalations a month), {age.recent_retired} "
            f"retired against {quotas.retirements_per_month * 6}",
            "QUOTA" if age.recent_added < quotas.additions_per_month * 6 else None,
        ),
    ]
    return Section("case age", tuple(lines))


def _free(audit: SuiteAudit) -> Section:
    free = audit.free
    title = "free passes"
    if free is None:
        return Section(title, (Line("not measured: history/ holds no run"),))
    runs = free.runs
    lines = [
        Line(
            f"{plural(len(free.cases), 'case')} held by runs of at least {FREE_PASS_SYSTEMS} "
            f"systems and passed in every run holding it ({runs.height} runs of "
            f"{free.systems} systems in history/)",
            "FREE" if free.cases else None,
        )
    ]
    if free.cases:
        low, high = free.points
        newest = runs.row(runs.height - 1, named=True)
        lines += [
            Line(_cases(list(free.cases))),
            Line(f"they raise a run's pass rate by {low:.1f} to {high:.1f} points"),
            Line(
                f"newest, {newest['run_id']}: {newest['pass_rate']:.3f} with them, "
                f"{newest['pass_rate_without']:.3f} without"
                + (
                    f"; weighted, {newest['weighted_pass_rate']:.3f} and "
                    f"{newest['weighted_pass_rate_without']:.3f}"
                    if audit.manifest.weighted
                    else ""
                )
            ),
        ]
    return Section(title, tuple(lines))


def _stale(audit: SuiteAudit) -> Section:
    stale = audit.stale
    title = "stale references"
    if stale is None:
        return Section(title, (Line("not measured: the workspace has no registry.yaml"),))
    n = stale.proposals.height
    lines = [
        Line(f"{plural(n, 'retirement proposal')}: cases that test what the registry no longer has")
    ]
    for kind, name, removed, cases in stale.references.iter_rows():
        when = f"removed on {removed}" if removed else "not in the registry"
        lines.append(
            Line(f"{kind} {name}, {when}: {plural(len(cases), 'case')}: {_cases(cases)}", "STALE")
        )
    if n:
        lines.append(Line("retire one with: flipgate suite retire CASE --reason TEXT -w WORKSPACE"))
    return Section(title, tuple(lines))


def _counterfactual(audit: SuiteAudit) -> Section:
    cf = audit.counterfactual
    title = "counterfactual re-run"
    if cf is None:
        return Section(title, (Line("not measured: no history, or no run of today's suite"),))
    if not cf.rescores:
        return Section(
            title, (Line(f"every run of history/ is on today's suite ({cf.today_version})"),)
        )
    lines = [
        Line(
            f"each system's oldest run, its stored decisions against today's suite "
            f"({cf.today_version}, run {cf.today_run})"
        )
    ]
    for r in cf.rescores:
        now = f"{r.score_now:.3f}" if r.score_now is not None else "-"
        lines.append(
            Line(
                f"{r.system} ({r.created}) {now} was {r.score_then:.3f} on {r.version}: "
                f"{r.overlap} of its {r.cases_then} cases, {READING_WORDS[r.reading]}",
                row=True,
            )
        )
    head = cf.rescores[0]
    ago = f", {(audit.as_of - head.created).days / MONTH:.0f} months ago" if head.created else ""
    lines.append(
        Line(
            f"{head.system}{ago}: {READING_SAYS[head.reading]}",
            "STILL" if head.reading == "bar_stood_still" else None,
        )
    )
    return Section(title, tuple(lines))


def _rejections(audit: SuiteAudit) -> Section:
    rej = audit.rejections
    title = "rejection reasons"
    if rej.decisions == 0:
        return Section(title, (Line("no signed decision in decisions/"),))

    def counts(frame: Any) -> str:
        return ", ".join(f"{name} {n}" for name, n in frame.iter_rows()) or "none"

    lines = [
        Line(f"{plural(rej.decisions, 'signed decision')}: {counts(rej.by_decision)}"),
        Line(f"rejections by triage class: {counts(rej.by_cause)}"),
        Line(f"rejections by the gate rule that fired: {counts(rej.by_rule)}"),
    ]
    if rej.one_rule:
        lines.append(
            Line(
                f"{rej.one_rule} fired in all {rej.rejected} rejections: one rule does all the "
                "work; audit it against today's product",
                "ONE RULE",
            )
        )
    return Section(title, tuple(lines))


def _production(audit: SuiteAudit) -> Section:
    prod = audit.production
    title = "production signal"
    if prod is None:
        return Section(title, (Line("not measured: the workspace has no production.yaml"),))
    periods = prod.periods["period"]
    flat = "flat (within 5 points)" if prod.flat else "moving (more than 5 points apart)"
    lines = [
        Line(
            f"suite pass rate {amount(prod.low)} to {amount(prod.high)}, as typed in "
            f"production.yaml, over {periods.len()} periods ({periods[0]} to {periods[-1]}): {flat}"
        )
    ]
    for t in prod.trends:
        direction = "worse" if t.worse else "better"
        lines.append(
            Line(f"{t.name} {amount(t.first)} -> {amount(t.last)} ({_moved(t)}, {direction})")
        )
    for t in prod.broken:
        lines.append(
            Line(
                f"the suite stayed flat while {t.name} moved {_moved(t)}: it no longer "
                "predicts what it was built to",
                "FLAT",
            )
        )
    return Section(title, (*lines, *_typed(prod)))


def _moved(trend: SignalTrend) -> str:
    """The change, with as many digits as keep it on its side of the 5% that makes it moved."""
    change = trend.exact_change
    return ("-" if change < 0 else "+") + percent_beside(abs(change), SIGNAL_MOVED)


def _typed(prod: ProductionCheck) -> list[Line]:
    """The typed pass rates against the runs that measured them."""
    if not prod.typed:
        return [Line("typed pass rates not checked: history/ holds no run")]
    rate = "weighted pass rate" if prod.weighted else "pass rate"
    checked = [t for t in prod.typed if t.checked]
    agree = [t for t in checked if t.agrees_with is not None]
    lines = [
        Line(
            f"typed pass rates against the {rate} of history/'s runs of each period: "
            f"{len(agree)} of {len(prod.typed)} agree"
        )
    ]
    for t in prod.typed:
        if not t.checked:
            lines.append(
                Line(f"{t.period}: typed {amount(t.typed)}, no run of history/ in the period")
            )
        elif t.agrees_with is None:
            measured = ", ".join(f"{run} {value:.3f}" for run, value in t.measured)
            lines.append(
                Line(
                    f"{t.period}: typed {amount(t.typed)}, the period's runs measured {measured}",
                    "TYPED",
                )
            )
    if prod.mismatched:
        lines.append(
            Line(
                "the flat reading rests on typed figures that history/ does not bear out: "
                "read the period's run again before trusting it"
            )
        )
    return lines


# --------------------------------------------------------------------------- seed 002's others


def _intake(audit: SuiteAudit) -> Section:
    title = "intake by intent"
    if audit.inputs.traffic is None:
        return Section(title, (Line("not measured: the workspace has no traffic.yaml"),))
    found = audit.intake
    if found is None:
        return Section(
            title,
            (Line("not measured: suite.yaml sets no sampled intake (intake.sampled_per_month)"),),
        )
    lines = [
        Line(
            f"{plural(found.per_month, 'sampled case')} a month, drawn by traffic share; each "
            f"intent's quota of the last {found.months} months ({found.per_month * found.months} "
            "cases) against the cases added"
        )
    ]
    for intent, share, quota, added, draws, short in found.intents.iter_rows():
        lines.append(
            Line(
                f"{intent}: {percent_beside(share)} of traffic, quota {quota}, added {added}; "
                f"draw {draws} next month",
                "QUOTA" if short else None,
                row=True,
            )
        )
    draws = [(i, d) for i, d in found.intents.select("intent", "draws").iter_rows() if d]
    lines.append(Line("next month's draws: " + ", ".join(f"{i} {d}" for i, d in draws)))
    return Section(title, tuple(lines))


def _anchor(audit: SuiteAudit) -> Section:
    title = "frozen anchor"
    found = audit.anchor
    if found is None:
        return Section(
            title,
            (
                Line(
                    "not measured: suite.yaml names no anchor (a frozen system re-run on every suite version)"
                ),
            ),
        )
    held = [v for v in found.versions if v.run_id is not None]
    lines = [
        Line(
            f"{found.system} on {len(held)} of {plural(len(found.versions), 'suite version')} of the runs"
        )
    ]
    for v in found.versions:
        if v.score is not None:
            lines.append(
                Line(
                    f"{v.version}: {v.score:.3f} ({v.run_id}, {v.passed} of {v.cases} cases)",
                    row=True,
                )
            )
        else:
            since = f" (the version's first run: {v.first_run})" if v.first_run else ""
            lines.append(Line(f"{v.version}: no run of the anchor{since}", "ANCHOR", row=True))
    if found.missing:
        lines.append(
            Line(
                "a version without the anchor has no fixed low point to read its scores against, "
                "and it cannot be backfilled once the version is gone"
            )
        )
    return Section(title, tuple(lines))


CALIBRATION_SAYS = {
    "agrees": "our suite agrees",
    "explained": "our suite says worse, explained",
    "unexplained": "our suite says worse, with no explanation recorded: go and look",
    "not_run": "no run of it in history/",
}


def _external(audit: SuiteAudit) -> Section:
    title = "external calibration"
    found = audit.external
    if found is None:
        return Section(
            title,
            (
                Line(
                    "not measured: the workspace has no external.yaml (what comparable teams adopted, and when it was read)"
                ),
            ),
        )
    if not found:
        return Section(title, (Line(f"no record read by {audit.as_of}"),))
    lines = []
    for c in found:
        a = c.adoption
        ours = []
        if c.rejected:
            ours.append(f"rejected in {', '.join(c.rejected)}")
        if c.score is not None and c.incumbent_score is not None:
            ours.append(
                f"{c.score:.3f} against the incumbent's {c.incumbent_score:.3f} ({c.incumbent_run})"
            )
        elif c.score is not None:
            ours.append(f"{c.score:.3f} ({c.run_id})")
        view = f" ({'; '.join(ours)})" if ours else ""
        lines.append(
            Line(
                f"{a.system}, read {a.read}: {a.source}; {CALIBRATION_SAYS[c.standing]}{view}",
                "DIVERGE" if c.standing == "unexplained" else None,
            )
        )
        if c.standing == "explained":
            lines.append(Line(f"  why: {a.explanation}"))
    return Section(title, tuple(lines))


def _judge(audit: SuiteAudit) -> Section:
    title = "the judge"
    found = audit.judge
    if found is None:
        return Section(
            title, (Line("not measured: today's run names no judge in its key (key.judge)"),)
        )
    lines = []
    for v in found.versions:
        span = f"{v.first} to {v.last}" if v.first else "undated"
        suites = ", ".join(v.suite_versions) or "no suite version"
        lines.append(Line(f"{v.version}: {plural(v.runs, 'run')}, {span}, on {suites}", row=True))
    current = found.current
    age = f", {found.months:.1f} months before {found.as_of}" if found.months is not None else ""
    lines.append(
        Line(
            f"today's judge {current.version}, first run {current.first or 'undated'}{age}; "
            f"{found.cases_after} of {found.live} live cases were written after it and inherit it"
        )
    )
    if found.behind:
        lines.append(
            Line(
                f"{current.version} judged {len(current.suite_versions)} suite versions "
                f"({current.suite_versions[0]} to {current.suite_versions[-1]}) and was never "
                "re-baselined with the cases: re-baseline the judge on the cases' schedule",
                "JUDGE",
            )
        )
    return Section(title, tuple(lines))


def _rebaseline(audit: SuiteAudit) -> Section:
    title = "re-baseline cost"
    found = audit.rebaseline
    if found is None:
        return Section(title, (Line("not measured: no run of today's suite"),))

    def part(summed: Summed | None, field: str, words: str) -> str:
        if summed is None:
            return f"{field} not recorded"
        partly = (
            f" ({summed.recorded} of {found.reps} repetitions record it)"
            if summed.recorded < found.reps
            else ""
        )
        return words + partly

    cost = found.cost_usd
    time = found.latency_ms
    said = [
        part(cost, "cost_usd", f"${cost.total:,.2f}" if cost else ""),
        part(
            time,
            "latency_ms",
            f"{time.total / 60_000:,.1f} minutes run one at a time" if time else "",
        ),
    ]
    return Section(
        title,
        (
            Line(
                f"one re-baseline run of the incumbent, today's suite again as {found.run_id} "
                f"ran it ({plural(found.reps, 'repetition')}): {' and '.join(said)}"
            ),
            Line("the price of adding cases; an instrument that stops adding them goes blind"),
        ),
    )


SECTIONS = {
    "coverage": _coverage,
    "intake": _intake,
    "case_age": _age,
    "free_passes": _free,
    "stale_references": _stale,
    "counterfactual": _counterfactual,
    "anchor": _anchor,
    "rejections": _rejections,
    "external": _external,
    "production": _production,
    "judge": _judge,
    "rebaseline": _rebaseline,
}
