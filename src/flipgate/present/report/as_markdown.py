"""The gate result as Markdown for a pull-request comment: the verdict, the flip matrix, what the
gate can see, what each rule found and the flipped cases, every string from a file escaped
(`present.text.markdown`)."""

from __future__ import annotations

from flipgate.core.gate.compare import Comparison
from flipgate.core.vocab import ARMS
from flipgate.present.judge import judge_lines
from flipgate.present.next_step import next_step
from flipgate.present.outcomes import outcome_markdown
from flipgate.present.reasons import gate_words, sentence, summary
from flipgate.present.reasons.warnings import clusters_line
from flipgate.present.report import shared
from flipgate.present.rerun_price import price_lines
from flipgate.present.text import markdown as _md
from flipgate.present.text import markdown_code


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def to_markdown(comparison: Comparison) -> str:
    result = comparison.result
    icon = {"PASS": "✅", "BLOCK": "⛔", "INCONCLUSIVE": "⚠️", "INVALID": "🚫"}[result.verdict]
    lines = [f"## {icon} flipgate: {result.verdict}", "", f"**{_md(summary(result))}**", ""]
    if result.previous is not None:
        lines += [f"First verdict, before the rerun: {_md(summary(result.previous))}", ""]
    lines += [
        f"Rule `{result.rule}` · suite `{result.suite}`: margin {result.margin}, flip cap "
        f"{result.flip_cap}, alpha {result.alpha:g}",  # p: on the effect's line, as in the text
        "",
        f"Gate: {_md(gate_words(comparison.spec))}",
        "",
        _capital(_md(shared.looks_line(result, comparison.spec.looks))),
        "",
        f"{_capital(_md(shared.registration_line(comparison)))}",
        "",
        *([f"{_capital(_md(attempt))}", ""] if (attempt := shared.attempt_line(result)) else []),
        f"{_capital(_md(shared.effect_line(result)))}",
        "",
        "| baseline \\ candidate | ✓ pass | ✗ fail |",
        "|---|---:|---:|",
        f"| ✓ pass | {result.cells['both_pass']:,} | **b = {result.b:,}** |",
        f"| ✗ fail | **c = {result.c:,}** | {result.cells['both_fail']:,} |",
        "",
    ]
    lines += [
        f"**{_capital(_md(shared.power_title(result)))}**",
        "",
        "| true regression | BLOCK | INCONCLUSIVE | PASS |",
        "|---|---:|---:|---:|",
        *(f"| {' | '.join(row)} |" for row in shared.power_rows(result)),
        "",
    ]
    if worth := shared.worth_line(result):
        lines += [f"What this PASS is worth: {_md(worth)}.", ""]
    clusters = result.clusters
    if clusters.templates:
        templates, hidden = shared.first(clusters.templates)
        lines += [
            f"<details><summary>Flips per template: {_md(clusters_line(clusters))}</summary>",
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
    for what in shared.found(result):
        notes.extend(f"**{what.heading}:** {_md(sentence(r))}" for r in what.reasons)
        if what.cases:
            named, unnamed = shared.first(what.cases)
            notes.append(
                f"**{what.heading}:** "
                + ", ".join(_md(c) for c in named)
                + (f", {shared.more(unnamed, what.which)}" if unnamed else "")
            )
    notes.extend(f"budget met: {_md(sentence(c))}" for c in result.budgets if not c.exceeded)
    notes.extend(f"tested: {_md(words)}" for words in shared.limit_lines(result))
    notes.extend(f"**warning:** {_md(sentence(w))}" for w in result.warnings)
    notes.extend(_md(note) for note in filter(None, [shared.unchecked_note(result)]))
    infra = ", ".join(f"{arm} {s.count:,} ({s.share:.1%})" for arm, s in result.infra.items())
    notes.append(f"infra repetitions: {infra}")
    moved = ", ".join(
        f"{_md(k)} ({'declared' if k in result.declared_change else '**not declared**'})"
        for k in result.key_moved
    )
    notes.append(f"key moved: {moved or 'nothing'}")
    notes += [_md(line) for line in (*shared.flaky_lines(result), *shared.retired_lines(result))]
    notes += [_md(line.strip()) for line in shared.ledger_lines(result)]
    lines += [f"- {n}" for n in notes]
    lines.append("")
    if any(o.decisions for o in result.outcomes.values()):
        lines += outcome_markdown(
            ARMS,
            [result.outcomes[arm] for arm in ARMS],
            comparison.candidate.labels,
            comparison.spec,
            shared.failing(comparison),
        )
    if result.flipped:
        lines += [
            "<details><summary>Flipped cases</summary>",
            "",
            "| case | direction |",
            "|---|---|",
        ]
        flips, unnamed = shared.first(result.flipped)
        lines += [f"| {_md(case)} | {shared.DIRECTION_WORDS[d]} |" for case, d in flips]
        if unnamed:
            lines += ["", f"… {shared.more(unnamed, 'flipped')}"]
        lines += ["", "</details>", ""]
    for repeats in comparison.judge_repeats:
        first, *rest = judge_lines(repeats)
        lines += [f"**The judge alone:** {_md(first)}", ""]
        lines += [f"- {_md(line.strip())}" for line in rest] + [""]
    if result.escalation is not None:
        lines += [f"**Next:** {_md(next_step(result.escalation))}", ""]
    if comparison.rerun_price is not None:
        lines += [
            f"- {label}: {_md(value)}" for label, value in price_lines(comparison.rerun_price)
        ]
        lines.append("")
    return "\n".join(lines)
