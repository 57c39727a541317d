"""The suite audit as a scheduled job prints it: plain text, Markdown for a job summary, JSON.

Every figure is worded once, in `findings`: the text and Markdown reports and the app's
suite-health screen show the same lines. Names read from files (intents, cases, flags, run ids)
are untrusted text: `Text` in the text report, escaped in Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.core.plural import plural
from flipgate.core.suite.audit import MONTH, SuiteAudit
from flipgate.core.vocab import Reading
from flipgate.present.text import literal, markdown

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


def percent(share: float) -> str:
    return f"{share:.1%}"


def _cases(cases: list[str]) -> str:
    shown = ", ".join(cases[:NAMED])
    return shown + (f" and {len(cases) - NAMED} more" if len(cases) > NAMED else "")


def findings(audit: SuiteAudit) -> tuple[Section, ...]:
    """The audit in words, section by section, in the seed's order."""
    return (
        _coverage(audit),
        _age(audit),
        _free(audit),
        _stale(audit),
        _counterfactual(audit),
        _rejections(audit),
        _production(audit),
    )


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
        lines.append(Line(f"{intent}: {percent(share)} of traffic, {plural(cases, 'case')}", "GAP"))
    rest = f" ({percent(cov.unclassified)} of traffic has no intent)" if cov.unclassified else ""
    lines.append(Line(f"covered: {percent(cov.covered_share)} of traffic{rest}"))
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
            f"{plural(len(free.cases), 'case')} passed on every run of every system "
            f"({runs.height} runs of {free.systems} systems in history/)",
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
    flat = "flat" if prod.flat else "moving"
    lines = [
        Line(
            f"suite pass rate {prod.low:.2f} to {prod.high:.2f} over {periods.len()} periods "
            f"({periods[0]} to {periods[-1]}): {flat}"
        )
    ]
    for t in prod.trends:
        direction = "worse" if t.worse else "better"
        lines.append(Line(f"{t.name} {t.first:g} -> {t.last:g} ({t.change:+.1%}, {direction})"))
    for t in prod.broken:
        lines.append(
            Line(
                f"the suite stayed flat while {t.name} moved {t.change:+.1%}: it no longer "
                "predicts what it was built to",
                "FLAT",
            )
        )
    return Section(title, tuple(lines))


def headline(audit: SuiteAudit) -> str:
    m = audit.manifest
    version = f" {m.version}" if m.version else ""
    return (
        f"suite {m.suite}{version}: {m.live.height:,} live cases, {m.archive.height:,} archived; "
        f"as of {audit.as_of}"
    )


# --------------------------------------------------------------------------- text and Markdown


def to_text(audit: SuiteAudit) -> RenderableType:
    parts: list[RenderableType] = [literal(headline(audit), "bold")]
    for section in findings(audit):
        parts.append(Text(""))
        parts.append(Text(section.title, style="bold underline"))
        for line in section.lines:
            flag = Text(f"{line.flag} ", style="bold red") if line.flag else Text("")
            parts.append(Text.assemble(flag, literal(line.text)))
    return Group(*parts)


def to_markdown(audit: SuiteAudit) -> str:
    out = ["## flipgate suite audit", "", f"**{markdown(headline(audit))}**", ""]
    for section in findings(audit):
        out += [f"### {section.title}", ""]
        for line in section.lines:
            flag = f"**{line.flag}** " if line.flag else ""
            out.append(f"- {flag}{markdown(line.text)}")
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- JSON


def to_json(audit: SuiteAudit) -> dict[str, Any]:
    m = audit.manifest
    data: dict[str, Any] = {
        "suite": m.suite,
        "version": m.version,
        "as_of": audit.as_of.isoformat(),
        "live_cases": m.live.height,
        "archived_cases": m.archive.height,
    }
    cov = audit.coverage
    data["coverage"] = cov and {
        "min_cases": cov.min_cases,
        "covered_share": round(cov.covered_share, 6),
        "unclassified_share": round(cov.unclassified, 6),
        "intents": cov.intents.to_dicts(),
        "gaps": cov.gaps.select("intent", "share", "cases").to_dicts(),
        "without_traffic": cov.untrafficked.to_dicts(),
    }
    age = audit.age
    data["case_age"] = age and {
        "started": age.started.isoformat(),
        "median_months": round(age.median_months, 3),
        "first_six_weeks": age.first_weeks,
        "last_added": age.last_added.isoformat(),
        "months_since_last": round(age.months_since_last, 3),
        "recent_months": 6,
        "recent_added": age.recent_added,
        "recent_retired": age.recent_retired,
        "quotas": {
            "sampled_per_month": age.quotas.sampled_per_month,
            "escalations_per_month": age.quotas.escalations_per_month,
            "retirements_per_month": age.quotas.retirements_per_month,
        },
        "monthly": [
            {"month": month.isoformat()[:7], "added": added, "retired": retired}
            for month, added, retired in age.monthly.iter_rows()
        ],
        "histogram": [{"months": mo, "cases": n} for mo, n in age.histogram.iter_rows()],
    }
    free = audit.free
    data["free_passes"] = free and {
        "cases": list(free.cases),
        "systems": free.systems,
        "points": {"low": round(free.points[0], 3), "high": round(free.points[1], 3)},
        "runs": [
            {**row, "created": row["created"] and row["created"].isoformat()}
            for row in free.runs.to_dicts()
        ],
    }
    stale = audit.stale
    data["stale_references"] = stale and {
        "references": [
            {**row, "removed": row["removed"] and row["removed"].isoformat()}
            for row in stale.references.to_dicts()
        ],
        "proposals": stale.proposals.to_dicts(),
    }
    cf = audit.counterfactual
    data["counterfactual"] = cf and {
        "today_run": cf.today_run,
        "today_version": cf.today_version,
        "rescores": [
            {
                "run_id": r.run_id,
                "system": r.system,
                "created": r.created and r.created.isoformat(),
                "version": r.version,
                "cases_then": r.cases_then,
                "score_then": round(r.score_then, 6),
                "overlap": r.overlap,
                "score_now": None if r.score_now is None else round(r.score_now, 6),
                "reading": READING_WORDS[r.reading],
                "reading_code": r.reading,
            }
            for r in cf.rescores
        ],
    }
    rej = audit.rejections
    data["rejections"] = {
        "decisions": rej.decisions,
        "rejected": rej.rejected,
        "by_decision": dict(rej.by_decision.iter_rows()),
        "by_cause": dict(rej.by_cause.iter_rows()),
        "by_rule": dict(rej.by_rule.iter_rows()),
        "one_rule": rej.one_rule,
    }
    prod = audit.production
    data["production"] = prod and {
        "periods": prod.periods.to_dicts(),
        "pass_rate_low": prod.low,
        "pass_rate_high": prod.high,
        "flat": prod.flat,
        "signals": [
            {
                "name": t.name,
                "better": t.better,
                "first": t.first,
                "last": t.last,
                "change": round(t.change, 6),
                "worse": t.worse,
                "moved_while_flat": t in prod.broken,
            }
            for t in prod.trends
        ],
    }
    return data
