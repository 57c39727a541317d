"""A calibration (core/curation/calibrate.py) as Rich renderables, for `flipgate calibrate` and
the app's calibration screen alike."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.curation.calibrate import Calibration, proposed_spec
from flipgate.core.curation.noise import Proposal, RuleChances
from flipgate.present.text import literal

FLIPPED_WORDS = "flipped between identical runs"
PAIR_COLUMNS = ("baseline", "candidate", "b", "c", "verdict")


def pair_rows(calibration: Calibration) -> list[tuple[str, ...]]:
    """Each ordered pair of identical runs gated: its runs, b, c and verdict, as text."""
    return [
        (pair.baseline, pair.candidate, str(pair.b), str(pair.c), pair.verdict)
        for pair in calibration.pairs
    ]


def flip_counts(calibration: Calibration) -> dict[str, int]:
    """Each case that flipped, in `Calibration.flipped`'s order, and in how many pairs."""
    counts = dict.fromkeys(calibration.flipped, 0)
    for pair in calibration.pairs:
        for case in pair.flipped:
            counts[case] += 1
    return counts


def calibration_report(calibration: Calibration, *, list_flipped: bool = True) -> RenderableType:
    """Every pair's b and c and verdict, the largest counts, the proposal, the cases that flipped
    (left to the caller without `list_flipped`: the app lists them to open)."""
    table = Table(
        title=(
            f"{len(calibration.runs)} identical baseline runs, every ordered pair gated "
            f"(suite {calibration.suite})"
        ),
        title_justify="left",
    )
    for column in PAIR_COLUMNS:
        table.add_column(column, justify="right" if column in ("b", "c") else "left")
    for baseline, candidate, b, c, verdict in pair_rows(calibration):
        table.add_row(literal(baseline), literal(candidate), b, c, verdict)
    verdicts = calibration.verdicts
    current, proposed = calibration.current, calibration.proposed
    noise, proposal = calibration.noise, calibration.proposal
    false_alarms = verdicts["BLOCK"] + verdicts["INCONCLUSIVE"]
    lines: list[RenderableType] = [
        table,
        Text(
            f"largest one-way count {calibration.largest_one_way}, largest net drop "
            f"{calibration.largest_net} (seen, not proposed: the largest of more pairs is larger)"
        ),
        Text(
            f"the current gate said BLOCK {verdicts['BLOCK']} and INCONCLUSIVE "
            f"{verdicts['INCONCLUSIVE']} times of {len(calibration.pairs)} on runs that differ "
            "by nothing",
            style="bold yellow" if false_alarms else "",
        ),
        Text(
            f"noise: {noise.flip_share:.1%} of cases flip between identical runs, at most "
            f"{noise.upper:.1%} at {noise.level:.0%}"
            + (
                f" (design effect {noise.design_effect:.2f}: cloned cases flip together)"
                if noise.design_effect > 1
                else ""
            )
        ),
        Text.assemble(
            ("proposed: ", "bold"),
            f"{change_words('margin', current.margin, proposed.margin)}, "
            f"{change_words('flip cap', current.flip_cap, proposed.flip_cap)}: "
            "a change that did nothing stays within each "
            f"{proposal.quantile:.0%} of the time, at the noise's upper bound",
        ),
        _chances_table(proposal),
    ]
    flipped = calibration.flipped
    if flipped:
        if list_flipped:
            line = Text(f"{FLIPPED_WORDS} ({len(flipped)}): ")
            line.append_text(literal(", ".join(flipped)))
            lines.append(line)
        lines.append(
            Text.assemble(
                ("next: ", "bold"),
                literal("flipgate flaky propose " + " ".join(str(p) for p in calibration.paths)),
                " (each flip is noise: give it an owner, in a change of its own)",
            )
        )
    return Group(*lines)


def _chances_table(proposal: Proposal) -> Table:
    """Each rule's chances at the measured noise: with no change, and for a few regressions."""
    table = Table(
        title=f"what each rule does at {proposal.noise.flip_share:.1%} noise (exact, power model)",
        title_justify="left",
    )
    table.add_column("rule (margin, cap)", no_wrap=True)
    table.add_column("false BLOCK", justify="right")
    table.add_column("false INCONCL.", justify="right")
    for points, _ in proposal.current.passes:
        table.add_column(f"PASS -{points:g} pts", justify="right")
    for name, rule in (("current", proposal.current), ("proposed", proposal.proposed)):
        table.add_row(
            f"{name} ({rule.margin}, {rule.flip_cap})",
            f"{rule.false_block:.1%}",
            f"{rule.false_inconclusive:.1%}",
            *(f"{chance:.0%}" for _, chance in rule.passes),
        )
    return table


def change_words(name: str, current: int, proposed: int) -> str:
    """`margin 2 -> 4`, or `margin 2 (kept)` where the proposal is the current value."""
    return f"{name} {current} (kept)" if current == proposed else f"{name} {current} -> {proposed}"


def proposed_gate(calibration: Calibration, gate: Path | None, today: date) -> str:
    """The gate.yaml `flipgate calibrate` proposes (`core/curation/calibrate.py`'s
    `proposed_spec`), under the evidence for it in words."""
    return proposed_spec(calibration, gate, _evidence(calibration, gate, today))


def _evidence(calibration: Calibration, gate: Path | None, today: date) -> list[str]:
    verdicts = calibration.verdicts
    noise, proposal = calibration.noise, calibration.proposal
    return [
        f"Proposed by `flipgate calibrate` on {today.isoformat()} from "
        f"{len(calibration.runs)} identical baseline runs: {', '.join(calibration.runs)}.",
        f"{len(calibration.pairs)} comparisons of runs that differ by nothing: largest one-way "
        f"count {calibration.largest_one_way}, largest net drop {calibration.largest_net}.",
        f"The current spec ({gate or 'the defaults'}) said BLOCK {verdicts['BLOCK']} and "
        f"INCONCLUSIVE {verdicts['INCONCLUSIVE']} times on them.",
        f"Noise: {noise.flip_share:.1%} of cases flip between identical runs, at most "
        f"{noise.upper:.1%} at {noise.level:.0%} (design effect {noise.design_effect:.2f}).",
        f"{calibration.suite}: margin {calibration.current.margin} -> "
        f"{calibration.proposed.margin}, flip cap {calibration.current.flip_cap} -> "
        f"{calibration.proposed.flip_cap}: what a change that did nothing stays within "
        f"{proposal.quantile:.0%} of the time at that bound.",
        *(
            f"{name}: {_chances_words(rule)}"
            for name, rule in (("current", proposal.current), ("proposed", proposal.proposed))
        ),
        "Review it, then replace gate.yaml in a change of its own, never in the change under test.",
    ]


def _chances_words(rule: RuleChances) -> str:
    """`false BLOCK 2.1%, false INCONCLUSIVE 4.0%; PASS at -2 points 61%, -3 40%, -5 9%`."""
    passes = ", ".join(
        f"{'at ' if i == 0 else ''}-{points:g}{' points' if i == 0 else ''} {chance:.0%}"
        for i, (points, chance) in enumerate(rule.passes)
    )
    return (
        f"margin {rule.margin}, flip cap {rule.flip_cap}: with no change false BLOCK "
        f"{rule.false_block:.1%}, false INCONCLUSIVE {rule.false_inconclusive:.1%}; "
        f"PASS {passes}"
    )
