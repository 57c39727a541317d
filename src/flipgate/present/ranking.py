"""A ranking of candidates as `flipgate rank` prints it: JSON, plain text, Markdown.

The three labels (highest mean, winner, clears) each have a line of their own, never one merged
verdict; names and summaries come from files, so they go through `present.text`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.gate.mcnemar import format_p
from flipgate.core.plural import plural
from flipgate.core.rank.ranking import Cells, Ranking, Standing
from flipgate.core.vocab import RankLabel
from flipgate.present.reasons import summary
from flipgate.present.report import ALLOW_PARTIAL_NOTE, VERDICT_STYLE
from flipgate.present.text import literal, markdown

CLEARS, STAYS = 0, 1  # the exit codes: a winner clears the incumbent, or none may replace it
LABEL_MARKS: dict[RankLabel, str] = {"highest_mean": "▲", "winner": "★", "clears": "✓"}
LABEL_SHORT: dict[RankLabel, str] = {
    "highest_mean": "highest mean",
    "winner": "winner",
    "clears": "clears",
}
LABEL_WORDS: dict[RankLabel, str] = {
    "highest_mean": "highest mean",
    "winner": "winner by the release key",
    "clears": "clears the incumbent",
}


def exit_code(ranking: Ranking) -> int:
    return CLEARS if ranking.clears else STAYS


def marks(ranking: Ranking, name: str) -> str:
    """The labels a candidate holds, each as its mark and word: `▲ highest mean`."""
    return " ".join(f"{LABEL_MARKS[label]} {LABEL_SHORT[label]}" for label in ranking.labels(name))


def _winner_line(ranking: Ranking) -> str:
    if ranking.winner is None:
        return "none"
    winner = ranking.standing(ranking.winner)
    return (
        f"{winner.name} ({winner.release_key} of {plural(ranking.cases, 'case')} pass the release rule; "
        f"mean {winner.cells.mean:.3f})"
    )


def _highest_mean_line(ranking: Ranking) -> str:
    cells = ranking.standing(ranking.highest_mean[0]).cells
    tied = ", tied" if len(ranking.highest_mean) > 1 else ""
    names = " and ".join(ranking.highest_mean)
    return f"{names} ({cells.mean:.3f}, {cells.passing} of {cells.graded} cells{tied})"


def evidence_words(standing: Standing) -> str:
    """`yes, Holm p 0.004` or `none, Holm p 1.000`."""
    return (
        f"{'yes' if standing.evidence else 'none'}, Holm p {format_p(standing.improvement_p_holm)}"
    )


def _evidence(ranking: Ranking) -> str:
    assert ranking.winner is not None
    winner = ranking.standing(ranking.winner)
    return (
        f"{evidence_words(winner)} (one-sided p {format_p(winner.improvement_p)} before Holm's "
        f"adjustment; at or below {ranking.alpha:g} is evidence)"
    )


def why(ranking: Ranking) -> str:
    """Whether the winner clears the incumbent, and why, in words (one sentence per code)."""
    c = ranking.clearance
    if c.code == "no_complete_candidate":
        return "no candidate is complete, so none can win: the incumbent stays"
    if c.code == "tied":
        return (
            f"{' and '.join(c.tied)} tie on the release key ({c.release_key}) and on the mean "
            f"({c.mean:.3f}): no winner, the incumbent stays until a person chooses"
        )
    assert c.winner is not None and c.release_key is not None, "the other codes have a winner"
    gate = summary(ranking.standing(c.winner).gate)
    passes = f"{c.winner} passes {plural(c.release_key, 'case')}"
    if c.code == "safety_failed":
        return f"rejected: {gate}"
    if c.code == "invalid":
        return f"rejected: the comparison with the incumbent is {gate}"
    if c.code == "not_better":
        how = "ties" if c.release_key == c.incumbent_key else "falls short of"
        return (
            f"{passes} and {how} the incumbent's {c.incumbent_key}: "
            "not a strict improvement, the incumbent stays"
        )
    if c.code == "gate_not_pass":
        return f"the gate against the incumbent says {gate}"
    return f"{passes} to the incumbent's {c.incumbent_key} and the gate against the incumbent says PASS"


def summary_lines(ranking: Ranking) -> list[tuple[str, str]]:
    """The three labels and what qualifies them, as (heading, words), in reading order."""
    lines = [
        (LABEL_WORDS["highest_mean"], _highest_mean_line(ranking)),
        (LABEL_WORDS["winner"], _winner_line(ranking)),
        (LABEL_WORDS["clears"], f"{'yes' if ranking.clears else 'no'} ({why(ranking)})"),
    ]
    if ranking.winner is not None:
        # "clears" is permission by the release rule; the evidence is a test, said beside it
        lines.append(("evidence the winner beats the incumbent", _evidence(ranking)))
    if ranking.disagreement:
        lines.append(("mean against key", ranking.disagreement))
    if ranking.lead:
        lines.append(("the lead", ranking.lead.describe()))
    lines.append(("multiplicity", ranking.multiplicity))
    if _partial_allowed(ranking):
        heading, words = ALLOW_PARTIAL_NOTE.split(": ", 1)
        lines.append((heading, words))
    return lines


def _partial_allowed(ranking: Ranking) -> bool:
    """Whether the gate was told `--allow-partial` (every candidate's comparison is told alike)."""
    return any(s.gate.allow_partial for s in ranking.standings)


# --------------------------------------------------------------------------- JSON


def to_json(ranking: Ranking) -> dict[str, Any]:
    incumbent = ranking.incumbent
    return {
        "release_rule": ranking.rule,
        "cases": ranking.cases,
        "repetitions": ranking.repetitions,
        "alpha": ranking.alpha,
        "incumbent": {
            "run_id": incumbent.run_id,
            "path": str(incumbent.path),
            "mean": incumbent.cells.mean,
            "cells": {"graded": incumbent.cells.graded, "passing": incumbent.cells.passing},
            "release_key": incumbent.release_key,
        },
        "candidates": [_standing_json(ranking, s) for s in ranking.standings],
        "labels": {
            "highest_mean": list(ranking.highest_mean),
            "winner": ranking.winner,
            "clears": ranking.clears,
            "why": why(ranking),
            "clearance": {
                "code": ranking.clearance.code,
                "message": why(ranking),
                **asdict(ranking.clearance),
            },
        },
        "disagreement": ranking.disagreement,
        "lead": None
        if ranking.lead is None
        else {
            "winner": ranking.lead.winner,
            "runner_up": ranking.lead.runner_up,
            "paired": ranking.lead.paired,
            "winner_only": ranking.lead.winner_only,
            "runner_up_only": ranking.lead.runner_up_only,
            "p_winner_better": ranking.lead.p_winner_better,
            "p_runner_up_better": ranking.lead.p_runner_up_better,
            "p_two_sided": ranking.lead.p_two_sided,
            "within_noise": ranking.lead.within_noise,
        },
        "multiplicity": {
            "method": "holm",
            "family": len(ranking.standings),
            "note": ranking.multiplicity,
        },
        "allow_partial": _partial_allowed(ranking),
    }


def _standing_json(ranking: Ranking, s: Standing) -> dict[str, Any]:
    return {
        "name": s.name,
        "run_id": s.run_id,
        "path": str(s.path),
        "mean": s.cells.mean,
        "cells": {"graded": s.cells.graded, "passing": s.cells.passing},
        "release_key": s.release_key,
        "complete": s.gaps.complete,
        "gaps": {
            "missing_cases": s.gaps.missing_cases,
            "missing_reps": s.gaps.missing_reps,
            "infra_reps": s.gaps.infra_reps,
        },
        "eligible": s.eligible,
        "gate": {
            "verdict": s.gate.verdict,
            "rule": s.gate.rule,
            "summary": summary(s.gate),
            "b": s.gate.b,
            "c": s.gate.c,
            "p": s.gate.p,
        },
        "improvement": {
            "p": s.improvement_p,
            "p_holm": s.improvement_p_holm,
            "evidence": s.evidence,
        },
        "labels": list(ranking.labels(s.name)),
    }


# --------------------------------------------------------------------------- text

COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (
    ("candidate", "left"),
    ("labels", "left"),
    ("mean", "right"),
    ("key", "right"),
    ("complete", "left"),
    ("gate", "left"),
    ("evidence", "left"),
)


def _head(ranking: Ranking) -> str:
    return (
        f"{plural(len(ranking.standings), 'candidate')} against the incumbent "
        f"{ranking.incumbent.run_id} on {plural(ranking.cases, 'case')} "
        f"({plural(ranking.repetitions, 'repetition')}). Release rule: "
        f"{ranking.rule}. Key: the cases passing it, the mean breaking a tie. Evidence: whether "
        "the candidate beats the incumbent beyond noise, by the gate's one-sided test on its "
        f"flips, Holm-adjusted across the candidates, at alpha {ranking.alpha:g}."
    )


def _cells(cells: Cells) -> str:
    return f"{cells.mean:.3f} {cells.passing}/{cells.graded}"


def table_rows(ranking: Ranking) -> list[tuple[str, ...]]:
    """The table's rows as plain strings, one per candidate in rank order, the incumbent last."""
    rows: list[tuple[str, ...]] = [
        (
            s.name,
            marks(ranking, s.name),
            _cells(s.cells),
            f"{s.release_key}/{ranking.cases}",
            s.gaps.describe(),
            s.gate.verdict,
            evidence_words(s),
        )
        for s in ranking.standings
    ]
    incumbent = ranking.incumbent
    rows.append(
        (
            "incumbent",
            "",
            _cells(incumbent.cells),
            f"{incumbent.release_key}/{ranking.cases}",
            "",
            "",
            "",
        )
    )
    return rows


def to_text(ranking: Ranking) -> RenderableType:
    table = Table(show_edge=False, pad_edge=False)
    for column, justify in COLUMNS:
        table.add_column(column, justify=justify)
    rows = table_rows(ranking)
    for s, (name, labels, mean, key, complete, verdict, p) in zip(
        ranking.standings, rows, strict=False
    ):
        table.add_row(
            literal(name, style="bold" if s.name == ranking.winner else ""),
            labels,
            mean,
            key,
            Text(complete, style="" if s.eligible else "yellow"),
            Text(verdict, style=VERDICT_STYLE[s.gate.verdict]),
            p,
        )
    table.add_row(*rows[-1], style="dim")
    clears = "bold green" if ranking.clears else "bold red"
    lines = [
        Text.assemble(
            (f"{heading}: ", clears if heading == LABEL_WORDS["clears"] else "bold"),
            literal(words),
        )
        for heading, words in summary_lines(ranking)
    ]
    return Group(literal(_head(ranking), style="dim"), table, *lines)


# --------------------------------------------------------------------------- Markdown


def to_markdown(ranking: Ranking) -> str:
    icon = "✅" if ranking.clears else "⛔"
    outcome = (
        f"{markdown(ranking.winner)} clears the incumbent"
        if ranking.clears
        else "the incumbent stays"
    )
    header = "| " + " | ".join(name for name, _ in COLUMNS) + " |"
    align = "|" + "|".join("---:" if justify == "right" else "---" for _, justify in COLUMNS) + "|"
    lines = [f"## {icon} flipgate rank: {outcome}", "", markdown(_head(ranking)), "", header, align]
    for row in table_rows(ranking):
        name = f"**{markdown(row[0])}**" if row[0] == ranking.winner else markdown(row[0])
        lines.append("| " + " | ".join((name, *row[1:])) + " |")
    lines.append("")
    lines += [f"- **{heading}:** {markdown(words)}" for heading, words in summary_lines(ranking)]
    lines.append("")
    return "\n".join(lines)


__all__ = [
    "evidence_words",
    "exit_code",
    "marks",
    "summary_lines",
    "table_rows",
    "to_json",
    "to_markdown",
    "to_text",
]
