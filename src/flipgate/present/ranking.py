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
from flipgate.core.io.remote import where
from flipgate.core.plural import plural
from flipgate.core.rank.ranking import (
    Cells,
    Clearance,
    Disagreement,
    Ranking,
    ReleaseRule,
    Standing,
)
from flipgate.core.rank.separation import Lead
from flipgate.core.vocab import Aggregate, RankLabel
from flipgate.present.choosing import gaps_words
from flipgate.present.numbers import written_percent
from flipgate.present.reasons import summary
from flipgate.present.reasons.words import series
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


INELIGIBLE_MARK = "✗ incomplete"  # beside the labels: shown, never the winner


def marks(ranking: Ranking, name: str, between: str = " ", *, words: bool = True) -> str:
    """The labels a candidate holds, each as its mark and word: `▲ highest mean`; an incomplete
    candidate says so, whatever its key. `between` joins them (the text table: a line each).
    Without `words`, the marks alone (`★ ✓`), which `MARK_LEGEND` reads out."""
    held = [
        f"{LABEL_MARKS[label]} {LABEL_SHORT[label]}" if words else LABEL_MARKS[label]
        for label in ranking.labels(name)
    ]
    if not ranking.standing(name).eligible:
        held.append(INELIGIBLE_MARK if words else INELIGIBLE_MARK.split()[0])
    return between.join(held)


MARK_LEGEND = " ".join(
    [*(f"{LABEL_MARKS[label]} {LABEL_SHORT[label]}" for label in LABEL_MARKS), INELIGIBLE_MARK]
)


def _key_words(ranking: Ranking, standing: Standing) -> str:
    """A candidate's key as the release settings define it: `2 of 6 cases pass the release rule;
    mean 0.417`, or with `key: mean`, `mean 0.500, 6 of 12 cells; 1 of 6 cases resolved`."""
    cells = standing.cells
    resolved = f"{standing.release_key} of {plural(ranking.cases, 'case')}"
    if ranking.release.key == "mean":
        return (
            f"mean {cells.mean:.3f}, {cells.passing} of {cells.graded} cells; {resolved} resolved"
        )
    return f"{resolved} pass the release rule; mean {cells.mean:.3f}"


def release_rule_words(rule: ReleaseRule) -> str:
    """The release rule in words: when a case passes."""

    def when(aggregate: Aggregate) -> str:
        if aggregate == "all":
            return "every repetition passes"
        return "a strict majority of its repetitions pass (a tie fails)"

    ordinary = f"a case passes when {when(rule.ordinary)}"
    if rule.safety == rule.ordinary:
        return f"{ordinary}, safety cases too"
    return f"{ordinary}; a safety case when {when(rule.safety)}"


def disagreement_words(ranking: Ranking, disagreement: Disagreement) -> str:
    """Why the highest mean is not the winner, with both candidates' figures."""
    best, winner = ranking.standing(disagreement.best), ranking.standing(disagreement.winner)
    cells = best.cells
    mean = f"the highest mean ({cells.mean:.3f}, {cells.passing} of {cells.graded} cells)"
    if disagreement.code == "highest_mean_incomplete":
        return (
            f"{best.name} has {mean} but is incomplete ({gaps_words(best.gaps)}): judged on fewer "
            f"cells than the others, it cannot win; the release key picks {winner.name}"
        )
    return (
        f"the mean and the release key disagree: {best.name} has {mean} but passes "
        f"{best.release_key} of {ranking.cases} cases under the release rule; {winner.name} "
        f"passes {winner.release_key} with a mean of {winner.cells.mean:.3f}. The release key "
        f"decides: {winner.name}"
    )


def _winner_line(ranking: Ranking) -> str:
    if ranking.winner is None:
        return "none"
    return f"{ranking.winner} ({_key_words(ranking, ranking.standing(ranking.winner))})"


def passed_over_line(ranking: Ranking, name: str) -> str:
    """Why an incomplete candidate with a key above the winner's is not the winner."""
    s = ranking.standing(name)
    above = f"{ranking.winner}'s, the winner" if ranking.winner else "the tied candidates'"
    return (
        f"{name}'s key ({_key_words(ranking, s)}) is above {above}, but {name} is incomplete "
        f"({gaps_words(s.gaps)}): judged on fewer cells than the campaign asks, it cannot win"
    )


def _highest_mean_line(ranking: Ranking) -> str:
    cells = ranking.standing(ranking.highest_mean[0]).cells
    tied = ", tied" if len(ranking.highest_mean) > 1 else ""
    names = " and ".join(ranking.highest_mean)
    return f"{names} ({cells.mean:.3f}, {cells.passing} of {cells.graded} cells{tied})"


def evidence_words(standing: Standing) -> str:
    """`yes, Holm p 0.004`, `none, Holm p 1.000`; outside Holm's family, why, and no p where
    the comparison is INVALID (nothing was tested)."""
    if standing.improvement_p is None:
        return "not tested: INVALID"
    if standing.improvement_p_holm is None:
        return f"not in the family: incomplete (p {format_p(standing.improvement_p)})"
    return (
        f"{'yes' if standing.evidence else 'none'}, Holm p {format_p(standing.improvement_p_holm)}"
    )


def evidence_short(standing: Standing) -> str:
    """`evidence_words` for a narrow column: `yes, Holm p 0.004`, or why there is no Holm p
    (`— incomplete`, `— INVALID`); the summary under the table says it in full."""
    if standing.improvement_p is None:
        return "— INVALID"
    if standing.improvement_p_holm is None:
        return "— incomplete"
    return evidence_words(standing)


def _evidence(ranking: Ranking) -> str:
    assert ranking.winner is not None
    winner = ranking.standing(ranking.winner)
    if winner.improvement_p is None:
        return evidence_words(winner)
    return (
        f"{evidence_words(winner)} (one-sided p {format_p(winner.improvement_p)} before Holm's "
        f"adjustment; at or below {ranking.alpha:g} is evidence)"
    )


def lead_words(lead: Lead) -> str:
    verdict = (
        "the lead is within noise"
        if lead.within_noise
        else f"the lead is beyond noise at alpha {lead.alpha:g}"
    )
    return (
        f"{lead.winner} against {lead.runner_up} on {plural(lead.paired, 'shared case')}: "
        f"{lead.winner_only} pass for {lead.winner} only, {lead.runner_up_only} for "
        f"{lead.runner_up} only; two-sided p = {format_p(lead.p_two_sided)} (the chance of "
        "a lead at least this large either way if the two were equally good; exact, "
        f"paired): {verdict}"
    )


def tie_group_words(ranking: Ranking) -> str | None:
    """The complete candidates in groups that cannot be told apart: `CLAUDE = MERGE` (one group),
    `A > B = C`. None with fewer than two complete candidates."""
    ranked = [s for s in ranking.standings if s.group is not None]
    if len(ranked) < 2:
        return None
    groups: dict[int, list[str]] = {}
    for s in ranked:
        groups.setdefault(s.group or 0, []).append(s.name)
    order = " > ".join(" = ".join(names) for names in groups.values())
    told = (
        "none can be told from the next"
        if len(groups) == 1
        else f"{plural(len(groups), 'group')}, each told from the next"
    )
    return (
        f"{order}: {told} at alpha {ranking.alpha:g} (two-sided, paired, adjacent ranks; "
        "a group holds candidates whose order is within noise)"
    )


def multiplicity_words(ranking: Ranking) -> str:
    family = ranking.family
    left_out = len(ranking.standings) - len(family)
    outside = (
        f"; {plural(left_out, 'candidate')} incomplete or INVALID, which cannot win, "
        f"{'is' if left_out == 1 else 'are'} left out of it"
        if left_out
        else ""
    )
    if len(family) <= 1:
        return f"{plural(len(family), 'improvement claim')}: nothing to correct for{outside}"
    return (
        f"Holm's correction across the {len(family)} candidates that could win ("
        f"{series(list(family), 'and')}) applies to the claims that a candidate improves on the "
        f"incumbent{outside}; each candidate's no-regression gate is applied as it stands, at "
        f"alpha {ranking.alpha:g}, so no regression is easier to miss"
    )


def why(ranking: Ranking, clearance: Clearance | None = None) -> str:
    """Whether the winner clears the incumbent, and why, in words (one sentence per code); or,
    given a candidate's own `clearance` (`rank.own_clearance`), whether that one would."""
    c = clearance or ranking.clearance
    if c.code == "no_complete_candidate":
        return "no candidate is complete, so none can win: the incumbent stays"
    if c.code == "tied":
        return (
            f"{' and '.join(c.tied)} tie on the release key ({c.release_key}) and on the mean "
            f"({c.mean:.3f}): no winner, the incumbent stays until a person chooses"
        )
    assert c.winner is not None and c.release_key is not None, "the other codes have a winner"
    gate = summary(ranking.standing(c.winner).gate)
    if c.code == "safety_failed":
        return f"rejected: {gate}"
    if c.code == "invalid":
        return f"rejected: the comparison with the incumbent is {gate}"
    if c.by == "mean":
        return _why_by_mean(c, gate)
    passes = f"{c.winner} passes {plural(c.release_key, 'case')}"
    if c.code == "not_better":
        how = "ties" if c.release_key == c.incumbent_key else "falls short of"
        return (
            f"{passes} and {how} the incumbent's {c.incumbent_key}: "
            "not a strict improvement, the incumbent stays"
        )
    if c.code == "below_minimum":
        return f"{passes}, below the release rule's least of {c.min_key:g}: the incumbent stays"
    if c.code == "gate_not_pass":
        return f"the gate against the incumbent says {gate}"
    least = f", at least the {c.min_key:g} asked," if c.min_key is not None else ""
    return (
        f"{passes}{least} to the incumbent's {c.incumbent_key} and the gate against the "
        "incumbent says PASS"
    )


def _why_by_mean(c: Clearance, gate: str) -> str:
    """`why` where the key is the mean (`release.key: mean`), for a winner not rejected outright
    (`gate`: its verdict against the incumbent in words)."""
    assert c.winner is not None and c.mean is not None
    mean = f"{c.winner}'s mean {c.mean:.3f}"
    if c.code == "not_better":
        how = "ties" if c.mean == c.incumbent_mean else "falls short of"
        return (
            f"{mean} {how} the incumbent's {c.incumbent_mean:.3f}: not a strict improvement, "
            "the incumbent stays"
        )
    least = "" if c.min_key is None else written_percent(c.min_key)
    if c.code == "below_minimum":
        return f"{mean} is below the release rule's least of {least}: the incumbent stays"
    if c.code == "gate_not_pass":
        return f"the gate against the incumbent says {gate}"
    asked = f", at least the {least} asked," if least else ""
    return (
        f"{mean}{asked} is above the incumbent's {c.incumbent_mean:.3f} and the gate against the "
        "incumbent says PASS"
    )


def own_clearance_line(ranking: Ranking, clearance: Clearance) -> str:
    """A chosen candidate's own clearance: `MERGE on its own: does not clear the incumbent
    (...)`, said beside the signed choice of it."""
    clears = "clears" if clearance.code == "clears" else "does not clear"
    return f"{clearance.winner} on its own: {clears} the incumbent ({why(ranking, clearance)})"


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
        lines.append(("mean against key", disagreement_words(ranking, ranking.disagreement)))
    lines += [("passed over", passed_over_line(ranking, name)) for name in ranking.passed_over]
    if ranking.lead:
        lines.append(("the lead", lead_words(ranking.lead)))
    if groups := tie_group_words(ranking):
        lines.append(("tie groups", groups))
    lines.append(("multiplicity", multiplicity_words(ranking)))
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
        "release_rule": {
            "ordinary": ranking.rule.ordinary,
            "safety": ranking.rule.safety,
            "message": release_rule_words(ranking.rule),
        },
        "cases": ranking.cases,
        "repetitions": ranking.repetitions,
        "alpha": ranking.alpha,
        "release": {
            "key": ranking.release.key,
            "repetitions": ranking.release.repetitions,
            "min_key": ranking.release.min_key,
        },
        "incumbent": {
            "run_id": incumbent.run_id,
            "path": where(incumbent.path),
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
        "disagreement": None
        if ranking.disagreement is None
        else {
            "code": ranking.disagreement.code,
            "message": disagreement_words(ranking, ranking.disagreement),
            "highest_mean": ranking.disagreement.best,
            "winner": ranking.disagreement.winner,
        },
        "passed_over": [
            {"name": name, "message": passed_over_line(ranking, name)}
            for name in ranking.passed_over
        ],
        "lead": None if ranking.lead is None else _lead_json(ranking.lead),
        "adjacent": [_lead_json(lead) for lead in ranking.leads],
        "tie_groups": [list(group) for group in ranking.tie_groups],
        "multiplicity": {
            "method": "holm",
            "family": len(ranking.family),
            "members": list(ranking.family),
            "note": multiplicity_words(ranking),
        },
        "allow_partial": _partial_allowed(ranking),
    }


def _lead_json(lead: Lead) -> dict[str, Any]:
    return {**asdict(lead), "p_two_sided": lead.p_two_sided, "within_noise": lead.within_noise}


def _standing_json(ranking: Ranking, s: Standing) -> dict[str, Any]:
    return {
        "name": s.name,
        "run_id": s.run_id,
        "path": where(s.path),
        "mean": s.cells.mean,
        "cells": {"graded": s.cells.graded, "passing": s.cells.passing},
        "release_key": s.release_key,
        "complete": s.gaps.complete,
        "gaps": {
            "missing_cases": s.gaps.missing_cases,
            "missing_reps": s.gaps.missing_reps,
            "infra_reps": s.gaps.infra_reps,
            "extra_reps": s.gaps.extra_reps,
        },
        "eligible": s.eligible,
        "tie_group": s.group,
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
    ("group", "right"),
    ("complete", "left"),
    ("gate", "left"),
    ("evidence", "left"),
)


def grid_words(ranking: Ranking) -> str:
    """`6 cases (12 repetitions asked of each candidate)`: the coverage a candidate needs, every
    case as often as the incumbent or any candidate ran it and as `release.repetitions` asks."""
    least = ranking.release.repetitions
    at_least = f", at least {least} a case" if least else ""
    return (
        f"{plural(ranking.cases, 'case')} ({plural(ranking.repetitions, 'repetition')} asked of "
        f"each candidate{at_least})"
    )


def key_words(ranking: Ranking) -> str:
    """What the key is, and the least that may replace the incumbent."""
    least = ranking.release.min_key
    if ranking.release.key == "mean":
        words = "the mean of the cells, the cases passing the release rule breaking a tie"
        floor = f"; a winner needs a mean of at least {written_percent(least)}" if least else ""
    else:
        words = "the cases passing the release rule, the mean breaking a tie"
        floor = f"; a winner needs at least {plural(int(least), 'case')}" if least else ""
    return words + floor


def _head(ranking: Ranking) -> str:
    return (
        f"{plural(len(ranking.standings), 'candidate')} against the incumbent "
        f"{ranking.incumbent.run_id} on {grid_words(ranking)}. Release rule: "
        f"{release_rule_words(ranking.rule)}. Key: {key_words(ranking)}. Evidence: whether "
        "the candidate beats the incumbent beyond noise, by the gate's one-sided test on its "
        f"flips, Holm-adjusted across the candidates that could win, at alpha {ranking.alpha:g}."
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
            "" if s.group is None else str(s.group),
            gaps_words(s.gaps),
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
            "",
        )
    )
    return rows


# In the text table a label, a key and a verdict keep their lines whole; the mean and its cells
# take a line each, and the rest wraps, so that the table fits 80 columns.
_UNWRAPPED = frozenset({"labels", "key", "gate"})
_MEAN_WIDTH = len("0.417")


def to_text(ranking: Ranking) -> RenderableType:
    table = Table(show_edge=False, pad_edge=False)
    for column, justify in COLUMNS:
        table.add_column(
            column,
            justify=justify,
            no_wrap=column in _UNWRAPPED,
            max_width=_MEAN_WIDTH if column == "mean" else None,
            overflow="fold",
        )
    rows = table_rows(ranking)
    for s, (name, _, mean, key, group, complete, verdict, p) in zip(
        ranking.standings, rows, strict=False
    ):
        table.add_row(
            literal(name, style="bold" if s.name == ranking.winner else ""),
            marks(ranking, s.name, between="\n"),
            mean,
            key,
            group,
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
