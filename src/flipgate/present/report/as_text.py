"""The gate result as plain text for a CI log, built as Rich renderables: Rich strips colour
itself when stdout is not a terminal, and every string that came from a file is wrapped in `Text`,
never parsed as markup."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.compare import Comparison, GateResult
from flipgate.core.vocab import ARMS, FLIPS
from flipgate.present.judge import judge_lines
from flipgate.present.next_step import next_step
from flipgate.present.outcomes import outcome_tables
from flipgate.present.reasons import gate_words, sentence, summary
from flipgate.present.reasons.warnings import clusters_line
from flipgate.present.report import shared
from flipgate.present.rerun_price import price_lines
from flipgate.present.sources import noise_line, split_line, unknown_note
from flipgate.present.text import literal


def to_text(comparison: Comparison) -> RenderableType:
    result = comparison.result
    parts: list[RenderableType] = []
    if result.previous is not None:
        parts.append(Text.assemble(("first verdict  ", "dim"), literal(summary(result.previous))))
    parts.append(literal(summary(result), style=shared.VERDICT_STYLE[result.verdict]))
    parts.append(
        Text(
            f"rule: {result.rule} · suite {result.suite}: margin {result.margin}, flip cap "
            f"{result.flip_cap}, alpha {result.alpha:g}",
            style="dim",
        )
    )
    parts.append(literal(gate_words(comparison.spec), style="dim"))  # rule names from gate.yaml
    parts.append(Text(shared.looks_line(result, comparison.spec.looks), style="dim"))
    parts.append(literal(shared.registration_line(comparison), style="dim"))
    if attempt := shared.attempt_line(result):
        parts.append(literal(attempt, style="dim"))
    parts.append(Text(shared.effect_line(result)))
    parts.append(_matrix(result))
    parts.extend(_sources(result))
    parts.extend(_judge(comparison))
    parts.append(_power_table(result))
    if worth := shared.worth_line(result):
        parts.append(Text(f"what this PASS is worth: {worth}"))
    if result.clusters.templates:
        parts.append(_template_table(result))
    parts.extend(_notes(comparison))
    if any(o.decisions for o in result.outcomes.values()):
        parts.extend(
            outcome_tables(
                ARMS,
                [result.outcomes[arm] for arm in ARMS],
                comparison.candidate.labels,
                comparison.spec,
                shared.failing(comparison),
            )
        )
    if result.flipped:
        named, hidden = shared.first(result.flipped)
        listing = Text("flipped: ", style="bold")
        for i, (case, direction) in enumerate(named):
            listing.append(", " if i else "")
            listing.append(literal(case))
            listing.append(" ↓" if direction == "pass_to_fail" else " ↑", style="dim")
        if hidden:
            listing.append(f", {shared.more(hidden, 'flipped')}", style="dim")
        parts.append(listing)
    if result.escalation is not None:
        parts.append(Text.assemble(("next: ", "bold"), literal(next_step(result.escalation))))
    if comparison.rerun_price is not None:
        parts += [
            Text.assemble((f"  {label:<9} ", "dim"), value)
            for label, value in price_lines(comparison.rerun_price)
        ]
    return Group(*parts)


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


def _sources(result: GateResult) -> list[Text]:
    """Who flipped: b and c split into model and grader flips, the grader's own noise."""
    sources = result.sources
    if sources is None or not result.flipped:
        return []
    split = " · ".join(split_line(sources, direction) for direction in FLIPS)
    lines = [Text.assemble(("who flipped  ", "bold"), split)]
    notes = [unknown_note(sources)]
    notes += [noise_line(f"grader noise, {arm}", sources.noise[arm]) for arm in ARMS]
    lines += [Text(note, style="dim") for note in notes if note is not None]
    return lines


def _judge(comparison: Comparison) -> list[Text]:
    """The judge alone: each arm's outputs judged again (rejudged/), its flip rate per rule."""
    lines: list[Text] = []
    for repeats in comparison.judge_repeats:
        first, *rest = judge_lines(repeats)
        lines.append(Text.assemble(("the judge alone  ", "bold"), literal(first)))
        lines += [literal(line, style="dim") for line in rest]
    return lines


def _power_table(result: GateResult) -> Table:
    table = Table(title=shared.power_title(result), title_justify="left")
    table.add_column("true regression", no_wrap=True)
    for verdict in ("BLOCK", "INCONCLUSIVE", "PASS"):
        table.add_column(verdict, justify="right", no_wrap=True)
    for row in shared.power_rows(result):
        table.add_row(*row)
    return table


def _template_table(result: GateResult) -> Table:
    clusters = result.clusters
    table = Table(title=f"flips per template: {clusters_line(clusters)}", title_justify="left")
    table.add_column("template")
    for column in ("broke", "fixed", "net"):
        table.add_column(column, justify="right", no_wrap=True)
    named, hidden = shared.first(clusters.templates)
    for t in named:
        table.add_row(literal(t.template), str(t.broke), str(t.fixed), f"{t.broke - t.fixed:+}")
    if hidden:
        table.add_row(Text(f"and {hidden:,} more templates", style="dim"), "", "", "")
    if any(clusters.loose):
        broke, fixed = clusters.loose
        table.add_row(
            Text("(no template)", style="dim"), str(broke), str(fixed), f"{broke - fixed:+}"
        )
    return table


def _notes(comparison: Comparison) -> list[RenderableType]:
    result = comparison.result
    lines: list[RenderableType] = []
    for what in shared.found(result):
        style = shared.VERDICT_STYLE[what.rule.verdict]
        heading = f"{what.heading}: "
        lines.extend(Text.assemble((heading, style), literal(sentence(r))) for r in what.reasons)
        if what.cases:
            named, hidden = shared.first(what.cases)
            lines.append(
                Text.assemble(
                    (heading, style),
                    literal(", ".join(named)),
                    (f", {shared.more(hidden, what.which)}" if hidden else "", "dim"),
                )
            )
    met = (sentence(check) for check in result.budgets if not check.exceeded)
    lines.extend(Text.assemble(("budget met: ", "green"), literal(words)) for words in met)
    lines.extend(Text(f"tested: {words}") for words in shared.limit_lines(result))
    infra = " · ".join(f"{arm} {s.count:,} ({s.share:.1%})" for arm, s in result.infra.items())
    lines.append(Text(f"infra repetitions: {infra}"))
    moved = ", ".join(
        f"{k} ({'declared' if k in result.declared_change else 'NOT declared'})"
        for k in result.key_moved
    )
    lines.append(literal(f"key moved: {moved or 'nothing'}"))
    for line in (*shared.flaky_lines(result), *shared.retired_lines(result)):
        lines.append(literal(line))
    lines.extend(literal(line) for line in shared.ledger_lines(result))
    for warning in result.warnings:
        lines.append(Text.assemble(("warning: ", "bold yellow"), literal(sentence(warning))))
    if note := shared.unchecked_note(result):
        lines.append(Text(note, style="dim"))
    return lines
