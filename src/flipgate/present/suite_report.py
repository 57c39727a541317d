"""The suite audit as a scheduled job prints it: plain text, Markdown for a job summary, JSON.

Every figure is worded once, in `suite_findings.findings`: the text and Markdown reports and the
app's suite-health screen show the same lines. Names read from files (intents, cases, flags, run ids)
are untrusted text: `Text` in the text report, escaped in Markdown.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from flipgate.core.suite.audit import SuiteAudit
from flipgate.present.suite_findings import READING_WORDS, findings
from flipgate.present.text import literal, markdown


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
                "passed_then": r.passed_then,
                "passed_now": r.passed_now,
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
        "typed_checked_against": "weighted_pass_rate" if prod.weighted else "pass_rate",
        "typed": [
            {
                "period": t.period,
                "typed": t.typed,
                "measured": [{"run_id": run, "pass_rate": rate} for run, rate in t.measured],
                "agrees_with": t.agrees_with,
                "checked": t.checked,
            }
            for t in prod.typed
        ],
    }
    data |= _more_json(audit)
    return data


def _more_json(audit: SuiteAudit) -> dict[str, Any]:
    """The diagnostics seed 002 adds beyond the first five: intake by intent, the anchor, the
    external calibration, the judge and the re-baseline's cost (null: not measured)."""
    intake, anchor, judge, cost = audit.intake, audit.anchor, audit.judge, audit.rebaseline
    return {
        "intake": intake
        and {
            "sampled_per_month": intake.per_month,
            "months": intake.months,
            "intents": intake.intents.to_dicts(),
            "short": intake.short["intent"].to_list(),
        },
        "anchor": anchor
        and {
            "system": anchor.system,
            "versions": [
                {
                    "version": v.version,
                    "run_id": v.run_id,
                    "passed": v.passed,
                    "cases": v.cases,
                    "score": v.score,
                    "first_run": v.first_run and v.first_run.isoformat(),
                }
                for v in anchor.versions
            ],
            "missing": list(anchor.missing),
        },
        "external": None
        if audit.external is None
        else [
            {
                "system": c.adoption.system,
                "read": c.adoption.read.isoformat(),
                "source": c.adoption.source,
                "explanation": c.adoption.explanation,
                "standing": c.standing,
                "rejected": list(c.rejected),
                "run_id": c.run_id,
                "score": c.score,
                "incumbent_run": c.incumbent_run,
                "incumbent_score": c.incumbent_score,
            }
            for c in audit.external
        ],
        "judge": judge
        and {
            "current": judge.current.version,
            "months": None if judge.months is None else round(judge.months, 3),
            "cases_after": judge.cases_after,
            "behind": judge.behind,
            "versions": [
                {
                    "version": v.version,
                    "first": v.first and v.first.isoformat(),
                    "last": v.last and v.last.isoformat(),
                    "runs": v.runs,
                    "suite_versions": list(v.suite_versions),
                }
                for v in judge.versions
            ],
        },
        "rebaseline": cost
        and {
            "run_id": cost.run_id,
            "repetitions": cost.reps,
            "cost_usd": cost.cost_usd and vars(cost.cost_usd),
            "latency_ms": cost.latency_ms and vars(cost.latency_ms),
        },
    }
