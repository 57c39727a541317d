"""The gate result as a CI job prints it: JSON (SPEC §8), plain text for a log, Markdown for a PR.

Text is built as Rich renderables: Rich strips colour itself when stdout is not a terminal, and
every string that came from a file is wrapped in `Text`, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import orjson
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.compare import Comparison, GateResult
from flipgate.core.gate.outcomes import OUTCOME_WORDS
from flipgate.core.gate.rules import RULES, Evidence, Rule
from flipgate.core.gate.spec import describe
from flipgate.core.gate.stats import Effect
from flipgate.core.plural import plural
from flipgate.core.vocab import ARMS
from flipgate.present.outcomes import OutcomeRow, outcome_rows
from flipgate.present.text import literal, markdown_code
from flipgate.present.text import markdown as _md

EXIT_CODES = {"PASS": 0, "BLOCK": 1, "INCONCLUSIVE": 3, "INVALID": 4}
VERDICT_STYLE = {
    "PASS": "bold green",
    "BLOCK": "bold red",
    "INCONCLUSIVE": "bold yellow",
    "INVALID": "bold magenta",
}
# The heading of what a rule found, where it is not the rule's name.
FOUND_WORDS = {
    "safety": "safety failures",
    "outcome_limit": "outcome limit",
    "budget": "budget exceeded",
}
DIRECTION_WORDS = {"pass_to_fail": "pass -> fail", "fail_to_pass": "fail -> pass"}
# A list of cases in the text and Markdown reports (flipped, failed safety) names this many at
# most, the first by case id, and says how many more: 10,000 flips made a 175 KB log line, and a
# 320 KB Markdown report where a pull-request comment holds 65,536 characters. The JSON report
# (and for flips, the rerun plan) names them all.
CASES_NAMED = 50
EFFECT_METHOD = "Tango's score interval"
T = TypeVar("T")


def exit_code(result: GateResult) -> int:
    return EXIT_CODES[result.verdict]


# --------------------------------------------------------------------------- JSON


def to_json(comparison: Comparison) -> dict[str, Any]:
    """SPEC §8's object, plus what a reviewer or a dashboard needs beside it."""
    result = comparison.result
    data = _result_json(result)
    data["key"] = {arm: comparison.run(arm).key for arm in ARMS}
    if result.retired:  # given a suite manifest (suite.yaml) with an archive
        data["retired"] = [
            {"case": r.case, "retired": r.retired.isoformat(), "reason": r.reason}
            for r in result.retired
        ]
        data["retired_flipped"] = list(result.retired_flipped)
    data["runs"] = {
        arm: {
            "run_id": comparison.run(arm).run_id,
            "path": str(comparison.run(arm).path),
            "key": comparison.run(arm).key,
            "format": comparison.run(arm).source_format,
            "notes": list(comparison.run(arm).notes),
        }
        for arm in ARMS
    }
    if result.previous is not None:
        data["previous"] = _result_json(result.previous)
    return data


def json_text(data: dict[str, Any]) -> str:
    """Indented JSON. orjson writes a 100,000-case report in a few milliseconds; the standard
    library's indenting encoder is pure Python and takes fifty."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


# each half of the base: what its absence leaves unchecked, and the option that names its file
CHECKED_AGAINST_BASE = {
    "gate spec": ("loosened the gate", "--base-gate"),
    "flaky list": ("added flaky entries", "--base-flaky"),
    "suite manifest": ("retired cases", "--base-suite"),
}


def unchecked_note(result: GateResult) -> str | None:
    """Said once, when part of the base was not given: what could not be checked."""
    unchecked = result.base.unchecked
    if not unchecked:
        return None
    checks, options = zip(*(CHECKED_AGAINST_BASE[u] for u in unchecked), strict=True)
    return (
        f"no base {_series(unchecked, 'or')} given (--base-ref REF, or {_series(options, 'and')}): "
        f"whether this change {_series(checks, 'or')} was not checked"
    )


def _series(items: tuple[str, ...], last: str) -> str:
    """`a`, `a or b`, `a, b or c`."""
    return (
        f" {last} ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} {last} {items[-1]}"
    )


def _budget_json(check: BudgetCheck) -> dict[str, Any]:
    budget = check.budget
    return {
        "metric": budget.metric,
        "stat": budget.stat,
        "max": budget.max,
        "max_increase": budget.max_increase,
        "baseline": check.baseline,
        "candidate": check.candidate,
        "limit": check.limit,
        "exceeded": check.exceeded,
        "summary": check.summary,
    }


def _result_json(result: GateResult) -> dict[str, Any]:
    escalation = result.escalation
    return {
        "verdict": result.verdict,
        "rule": result.rule,
        "summary": result.summary,
        "cells": dict(result.cells),
        "b": result.b,
        "c": result.c,
        "p": result.p,
        "alpha": result.alpha,
        "suite": result.suite,
        "margin": result.margin,
        "flip_cap": result.flip_cap,
        "flipped": [{"case": case, "direction": d} for case, d in result.flipped],
        "unpaired": [case for case, _ in result.unpaired],
        "unpaired_reasons": {case: why for case, why in result.unpaired},
        "infra": {
            arm: {"count": s.count, "share": s.share, "reps": s.reps, "by_kind": s.by_kind}
            for arm, s in result.infra.items()
        },
        "outcomes": {
            arm: {
                **o.counts,
                "decisions": o.decisions,
                "cost": o.cost,
                "mirror_approved": o.mirror_approved,
                "mirror_rejected": o.mirror_rejected,
                "red_cases": o.reconciliation.red_cases,
                "wrong_decisions": o.reconciliation.wrong_decisions,
                "red_cases_by_wrong_decisions": {
                    str(k): n for k, n in sorted(o.reconciliation.red_by_wrong.items())
                },
            }
            for arm, o in result.outcomes.items()
        },
        "key_drift": list(result.key_drift),
        "key_moved": list(result.key_moved),
        "declared_change": list(result.declared_change),
        "safety_failures": list(result.safety_failures),
        "invalid_reasons": list(result.invalid_reasons),
        "limit_breaches": list(result.limit_breaches),
        "budgets": [_budget_json(check) for check in result.budgets],
        "changes": {
            "edited": {case: list(whats) for case, whats in result.changes.edited.items()},
            "deleted": list(result.changes.deleted),
            "new": list(result.changes.new),
            "cached": {
                arm: {case: {"cached": n, "reps": of} for case, (n, of) in found.items()}
                for arm, found in result.changes.cached.items()
            },
        },
        "base": {
            "where": result.base.where,
            "unchecked": list(result.base.unchecked),
            "loosened": list(result.base.loosened),
            "flaky_added": list(result.base.flaky_added),
        },
        "flaky": {
            "size": len(result.flaky_listed),
            "flipped": list(result.flaky_flipped),
            "unknown": list(result.flaky_unknown),
            "digest": result.flaky_digest,
        },
        "spec_digest": result.spec_digest,
        "effect": None if result.effect is None else _effect_json(result.effect),
        "power": result.power.to_json(),
        "clusters": _clusters_json(result),
        "escalation": None
        if escalation is None
        else {
            "action": escalation.action,
            "message": escalation.message,
            "cases": list(escalation.cases),
            "runs": escalation.runs,
        },
        "warnings": list(result.warnings),
    }


def _effect_json(effect: Effect) -> dict[str, Any]:
    return {
        "points": effect.points,
        "low": effect.low,
        "high": effect.high,
        "method": effect.method,
        "level": effect.level,
    }


def _clusters_json(result: GateResult) -> dict[str, Any]:
    clusters = result.clusters
    top = clusters.concentrated
    return {
        "by": result.p_by,
        "p_by_case": clusters.p_by_case,
        "p_by_template": clusters.p_by_template,
        "clusters_flipped": clusters.clusters,
        "templates": [
            {"template": t.template, "pass_to_fail": t.broke, "fail_to_pass": t.fixed}
            for t in clusters.templates
        ],
        "without_template": {"pass_to_fail": clusters.loose[0], "fail_to_pass": clusters.loose[1]},
        "concentrated": None if top is None else top.template,
    }


# --------------------------------------------------------------------------- text


def to_text(comparison: Comparison) -> RenderableType:
    result = comparison.result
    parts: list[RenderableType] = []
    if result.previous is not None:
        parts.append(Text.assemble(("first verdict  ", "dim"), literal(result.previous.summary)))
    parts.append(literal(result.summary, style=VERDICT_STYLE[result.verdict]))
    parts.append(
        Text(
            f"rule: {result.rule} · suite {result.suite}: margin {result.margin}, flip cap "
            f"{result.flip_cap}, alpha {result.alpha:g}",
            style="dim",
        )
    )
    parts.append(literal(describe(comparison.spec), style="dim"))  # rule names from gate.yaml
    parts.append(Text(effect_line(result)))
    parts.append(_matrix(result))
    parts.append(_power_table(result))
    if result.verdict == "PASS":
        parts.append(Text(f"what this PASS is worth: {result.power.plainly()}"))
    if result.clusters.templates:
        parts.append(_template_table(result))
    parts.extend(_notes(comparison))
    if any(o.decisions for o in result.outcomes.values()):
        parts.append(_outcome_table(comparison))
    if result.flipped:
        named, more = _first(result.flipped)
        listing = Text("flipped: ", style="bold")
        for i, (case, direction) in enumerate(named):
            listing.append(", " if i else "")
            listing.append(literal(case))
            listing.append(" ↓" if direction == "pass_to_fail" else " ↑", style="dim")
        if more:
            listing.append(f", {_more(more, 'flipped')}", style="dim")
        parts.append(listing)
    if result.escalation is not None:
        parts.append(Text.assemble(("next: ", "bold"), literal(result.escalation.message)))
    return Group(*parts)


def _first(cases: Sequence[T]) -> tuple[Sequence[T], int]:
    """The cases a text or Markdown list names, and how many it leaves out."""
    return cases[:CASES_NAMED], max(len(cases) - CASES_NAMED, 0)


def _more(more: int, which: str) -> str:
    """What ends a list that leaves `more` cases out."""
    return f"and {more:,} more (`flipgate gate --format json` lists every {which} case)"


def _matrix(result: GateResult) -> Table:
    cells = result.cells
    paired = result.paired or 1
    table = Table(title="flip matrix (paired cases)", title_justify="left", show_edge=True)
    table.add_column("baseline \\ candidate")
    table.add_column("✓ pass", justify="right")
    table.add_column("✗ fail", justify="right")

    def cell(name: str, label: str = "") -> Text:
        n = cells[name]
        text = Text(f"{label}{n:,}", style="bold" if label else "")
        text.append(f" ({n / paired:.1%})", style="dim")
        return text

    table.add_row("✓ pass", cell("both_pass"), cell("pass_to_fail", "b = "))
    table.add_row("✗ fail", cell("fail_to_pass", "c = "), cell("both_fail"))
    return table


def effect_line(result: GateResult) -> str:
    """`effect: -3.0 points (95% CI -7.1 to +0.5), Tango's score interval · p = 0.073`."""
    if result.effect is None:
        return f"effect: none (no case paired) · {result.p_words}"
    return f"effect: {result.effect.words()}, {EFFECT_METHOD} · {result.p_words}"


def power_rows(result: GateResult) -> list[list[str]]:
    """[regression, BLOCK, INCONCLUSIVE, PASS] in percent, one row per regression."""
    return [
        [f"-{c.points:g} points", *(f"{x:.0%}" for x in (c.block, c.inconclusive, c.passes))]
        for c in result.power.chances
    ]


def power_title(result: GateResult) -> str:
    power = result.power
    return f"what the gate can see: {power.cases:,} cases, {power.flip_share:.1%} flipping; " + (
        f"{power.power:.0%} BLOCK from -{power.smallest_blocked:g} points"
        if power.smallest_blocked is not None
        else f"no regression is blocked {power.power:.0%} of the time"
    )


def _power_table(result: GateResult) -> Table:
    table = Table(title=power_title(result), title_justify="left")
    table.add_column("true regression", no_wrap=True)
    for verdict in ("BLOCK", "INCONCLUSIVE", "PASS"):
        table.add_column(verdict, justify="right", no_wrap=True)
    for row in power_rows(result):
        table.add_row(*row)
    return table


def _template_table(result: GateResult) -> Table:
    clusters = result.clusters
    table = Table(title=f"flips per template: {clusters.words()}", title_justify="left")
    table.add_column("template")
    for column in ("broke", "fixed", "net"):
        table.add_column(column, justify="right", no_wrap=True)
    named, more = _first(clusters.templates)
    for t in named:
        table.add_row(literal(t.template), str(t.broke), str(t.fixed), f"{t.broke - t.fixed:+}")
    if more:
        table.add_row(Text(f"and {more:,} more templates", style="dim"), "", "", "")
    if any(clusters.loose):
        broke, fixed = clusters.loose
        table.add_row(
            Text("(no template)", style="dim"), str(broke), str(fixed), f"{broke - fixed:+}"
        )
    return table


def found(result: Evidence) -> Iterator[tuple[Rule, str, tuple[str, ...]]]:
    """What each rule found, in the table's order: the rule, its heading, the reasons or cases."""
    for rule in RULES:
        items = rule.found(result)
        if items:
            yield rule, FOUND_WORDS.get(rule.name, rule.name.replace("_", " ")), items


def _notes(comparison: Comparison) -> list[RenderableType]:
    result = comparison.result
    lines: list[RenderableType] = []
    for rule, heading, items in found(result):
        style = VERDICT_STYLE[rule.verdict]
        if rule.found_cases is None:
            lines.extend(Text.assemble((f"{heading}: ", style), literal(i)) for i in items)
            continue
        named, more = _first(items)
        lines.append(
            Text.assemble(
                (f"{heading}: ", style),
                literal(", ".join(named)),
                (f", {_more(more, rule.found_cases)}" if more else "", "dim"),
            )
        )
    met = (check.summary for check in result.budgets if not check.exceeded)
    lines.extend(Text.assemble(("budget met: ", "green"), literal(summary)) for summary in met)
    infra = " · ".join(f"{arm} {s.count:,} ({s.share:.1%})" for arm, s in result.infra.items())
    lines.append(Text(f"infra repetitions: {infra}"))
    moved = ", ".join(
        f"{k} ({'declared' if k in result.declared_change else 'NOT declared'})"
        for k in result.key_moved
    )
    lines.append(literal(f"key moved: {moved or 'nothing'}"))
    for line in (*flaky_lines(result), *retired_lines(result)):
        lines.append(literal(line))
    if result.unpaired:
        lines.append(Text(f"unpaired: {plural(len(result.unpaired), 'case')} (not counted)"))
    for warning in result.warnings:
        lines.append(Text.assemble(("warning: ", "bold yellow"), literal(warning)))
    if note := unchecked_note(result):
        lines.append(Text(note, style="dim"))
    return lines


def flaky_lines(result: GateResult) -> list[str]:
    """The listed cases left out of b and c, and the entries for cases neither run has (a case
    renamed or gone: the entry leaves nothing out)."""
    lines = []
    if left_out := len(result.flaky_listed) - len(result.flaky_unknown):
        flipped = f", {len(result.flaky_flipped)} flipped here" if result.flaky_flipped else ""
        lines.append(f"flaky list: {plural(left_out, 'case')} left out of b and c{flipped}")
    if unknown := result.flaky_unknown:
        shown, more = _first(unknown)
        named = ", ".join(shown) + (f", {_more(more, 'unknown flaky')}" if more else "")
        entries = plural(len(unknown), "entry", "entries")
        lines.append(f"flaky list: {entries} for cases in neither run: {named}")
    return lines


def retired_lines(result: GateResult) -> list[str]:
    """The retired cases, as the flaky list is shown: left out of b and c, with date and reason."""
    if not result.retired:
        return []
    flipped = f", {len(result.retired_flipped)} flipped here" if result.retired_flipped else ""
    shown, more = _first(result.retired)
    return [
        f"retired: {plural(len(result.retired), 'case')} left out of b and c{flipped}",
        *(f"  {r.case} retired {r.retired}: {r.reason}" for r in shown),
        *([_more(more, "retired")] if more else []),
    ]


def _outcome_table(comparison: Comparison) -> Table:
    result = comparison.result
    base, cand = (result.outcomes[arm] for arm in ARMS)
    table = Table(title="decision outcomes", title_justify="left")
    table.add_column("outcome", no_wrap=True)
    # The arms' columns may wrap, so that a long red-case histogram folds inside its cell, where
    # unwrapped it squeezed the other columns out of an 80-column CI log; they are never made
    # narrower than their widest figure (decisions or cost), which would cut it.
    widest = max(len(f"{n:,.0f}") for arm in (base, cand) for n in (arm.decisions, arm.cost))
    table.add_column("price", justify="right", no_wrap=True)
    for arm in ARMS:
        table.add_column(arm, justify="right", min_width=widest)
    table.add_column("change", justify="right", no_wrap=True)
    for row in outcome_rows(comparison):
        table.add_row(
            OUTCOME_WORDS[row.outcome],
            _price(row),
            f"{row.baseline:,}",
            f"{row.candidate:,}",
            f"{row.change:+,}",
        )
    table.add_row(
        "decisions",
        "",
        f"{base.decisions:,}",
        f"{cand.decisions:,}",
        f"{cand.decisions - base.decisions:+,}",
    )
    table.add_row(
        "cost",
        "",
        f"{base.cost:,.0f}",
        f"{cand.cost:,.0f}",
        f"{cand.cost - base.cost:+,.0f}",
        style="bold",
    )
    table.add_row(
        "mirrors approved/rejected",
        "FN / FP",
        f"{base.mirror_approved:,} / {base.mirror_rejected:,}",
        f"{cand.mirror_approved:,} / {cand.mirror_rejected:,}",
        "",
    )
    for label, attr in (("red cases", "red_cases"), ("wrong decisions", "wrong_decisions")):
        b_n = getattr(base.reconciliation, attr)
        c_n = getattr(cand.reconciliation, attr)
        table.add_row(label, "", f"{b_n:,}", f"{c_n:,}", f"{c_n - b_n:+,}")
    table.add_row(
        "red cases by misses",
        "",
        _histogram(base.reconciliation.red_by_wrong),
        _histogram(cand.reconciliation.red_by_wrong),
        "",
    )
    return table


def _price(row: OutcomeRow) -> str:
    return "by direction" if row.price is None else f"{row.price:g}"


def _histogram(red_by_wrong: dict[int, int]) -> str:
    return " ".join(f"{n:,}×{k}" for k, n in sorted(red_by_wrong.items())) or "none"


# --------------------------------------------------------------------------- markdown


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def to_markdown(comparison: Comparison) -> str:
    result = comparison.result
    icon = {"PASS": "✅", "BLOCK": "⛔", "INCONCLUSIVE": "⚠️", "INVALID": "🚫"}[result.verdict]
    lines = [f"## {icon} flipgate: {result.verdict}", "", f"**{_md(result.summary)}**", ""]
    if result.previous is not None:
        lines += [f"First verdict, before the rerun: {_md(result.previous.summary)}", ""]
    lines += [
        f"Rule `{result.rule}` · suite `{result.suite}`: margin {result.margin}, flip cap "
        f"{result.flip_cap}, alpha {result.alpha:g}",  # p: on the effect's line, as in the text
        "",
        f"Gate: {_md(describe(comparison.spec))}",
        "",
        f"{_sentence(_md(effect_line(result)))}",
        "",
        "| baseline \\ candidate | ✓ pass | ✗ fail |",
        "|---|---:|---:|",
        f"| ✓ pass | {result.cells['both_pass']:,} | **b = {result.b:,}** |",
        f"| ✗ fail | **c = {result.c:,}** | {result.cells['both_fail']:,} |",
        "",
    ]
    lines += [
        f"**{_sentence(_md(power_title(result)))}**",
        "",
        "| true regression | BLOCK | INCONCLUSIVE | PASS |",
        "|---|---:|---:|---:|",
        *(f"| {' | '.join(row)} |" for row in power_rows(result)),
        "",
    ]
    if result.verdict == "PASS":
        lines += [f"What this PASS is worth: {_md(result.power.plainly())}.", ""]
    clusters = result.clusters
    if clusters.templates:
        templates, hidden = _first(clusters.templates)
        lines += [
            f"<details><summary>Flips per template: {_md(clusters.words())}</summary>",
            "",
            "| template | broke | fixed | net |",
            "|---|---:|---:|---:|",
            *(
                f"| {_md(t.template)} | {t.broke} | {t.fixed} | {t.broke - t.fixed:+} |"
                for t in templates
            ),
        ]
        if hidden:
            lines.append(f"| and {hidden:,} more templates | | | |")
        if any(clusters.loose):
            broke, fixed = clusters.loose
            lines.append(f"| (no template) | {broke} | {fixed} | {broke - fixed:+} |")
        lines += ["", "</details>", ""]
    runs = " → ".join(markdown_code(comparison.run(arm).run_id) for arm in ARMS)
    lines.append(f"Runs: {runs}")
    lines.append("")
    notes: list[str] = []
    for rule, heading, items in found(result):
        if rule.found_cases is None:
            notes.extend(f"**{heading}:** {_md(i)}" for i in items)
            continue
        named, unnamed = _first(items)
        notes.append(
            f"**{heading}:** "
            + ", ".join(_md(c) for c in named)
            + (f", {_more(unnamed, rule.found_cases)}" if unnamed else "")
        )
    notes.extend(f"budget met: {_md(c.summary)}" for c in result.budgets if not c.exceeded)
    notes.extend(f"**warning:** {_md(w)}" for w in result.warnings)
    notes.extend(_md(note) for note in filter(None, [unchecked_note(result)]))
    infra = ", ".join(f"{arm} {s.count:,} ({s.share:.1%})" for arm, s in result.infra.items())
    notes.append(f"infra repetitions: {infra}")
    moved = ", ".join(
        f"{_md(k)} ({'declared' if k in result.declared_change else '**not declared**'})"
        for k in result.key_moved
    )
    notes.append(f"key moved: {moved or 'nothing'}")
    notes += [_md(line) for line in (*flaky_lines(result), *retired_lines(result))]
    if result.unpaired:
        notes.append(f"unpaired: {plural(len(result.unpaired), 'case')}, not counted")
    lines += [f"- {n}" for n in notes]
    lines.append("")
    base, cand = (result.outcomes[arm] for arm in ARMS)
    if base.decisions or cand.decisions:
        lines += [
            "| outcome | price | baseline | candidate | change |",
            "|---|---:|---:|---:|---:|",
        ]
        for row in outcome_rows(comparison):
            lines.append(
                f"| {OUTCOME_WORDS[row.outcome]} | {_price(row)} | {row.baseline:,} "
                f"| {row.candidate:,} | {row.change:+,} |"
            )
        lines.append(
            f"| **cost** | | **{base.cost:,.0f}** | **{cand.cost:,.0f}** | **{cand.cost - base.cost:+,.0f}** |"
        )
        lines.append(
            f"| mirrors approved / rejected | FN / FP | {base.mirror_approved:,} / {base.mirror_rejected:,} "
            f"| {cand.mirror_approved:,} / {cand.mirror_rejected:,} | |"
        )
        lines.append(
            f"| red cases (by misses) | | {base.reconciliation.red_cases:,} ({_histogram(base.reconciliation.red_by_wrong)}) "
            f"| {cand.reconciliation.red_cases:,} ({_histogram(cand.reconciliation.red_by_wrong)}) | |"
        )
        lines.append("")
    if result.flipped:
        lines += [
            "<details><summary>Flipped cases</summary>",
            "",
            "| case | direction |",
            "|---|---|",
        ]
        flips, unnamed = _first(result.flipped)
        lines += [f"| {_md(case)} | {DIRECTION_WORDS[d]} |" for case, d in flips]
        if unnamed:
            lines += ["", f"… {_more(unnamed, 'flipped')}"]
        lines += ["", "</details>", ""]
    if result.escalation is not None:
        lines += [f"**Next:** {_md(result.escalation.message)}", ""]
    return "\n".join(lines)
