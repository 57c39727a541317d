"""A calibration (core/curation/calibrate.py) as Rich renderables, for `flipgate calibrate` and
the app's calibration screen alike."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from flipgate.core.curation.calibrate import Calibration
from flipgate.present.text import literal


def calibration_report(calibration: Calibration) -> RenderableType:
    """Every pair's b and c and verdict, the largest counts, the proposal, the cases that flipped."""
    table = Table(
        title=(
            f"{len(calibration.runs)} identical baseline runs, every ordered pair gated "
            f"(suite {calibration.suite})"
        ),
        title_justify="left",
    )
    table.add_column("baseline")
    table.add_column("candidate")
    table.add_column("b", justify="right")
    table.add_column("c", justify="right")
    table.add_column("verdict")
    for pair in calibration.pairs:
        table.add_row(
            literal(pair.baseline), literal(pair.candidate), str(pair.b), str(pair.c), pair.verdict
        )
    verdicts = calibration.verdicts
    current, proposed = calibration.current, calibration.proposed
    false_alarms = verdicts["BLOCK"] + verdicts["INCONCLUSIVE"]
    lines: list[RenderableType] = [
        table,
        Text(
            f"largest one-way count {calibration.largest_one_way}, largest net drop "
            f"{calibration.largest_net}, {calibration.flip_share:.1%} of cases flipping"
        ),
        Text(
            f"the current gate said BLOCK {verdicts['BLOCK']} and INCONCLUSIVE "
            f"{verdicts['INCONCLUSIVE']} times of {len(calibration.pairs)} on runs that differ "
            "by nothing",
            style="bold yellow" if false_alarms else "",
        ),
        Text.assemble(
            ("proposed: ", "bold"),
            f"margin {current.margin} -> {proposed.margin}, flip cap {current.flip_cap} -> "
            f"{proposed.flip_cap} (above the largest one-way count and what this noise reaches "
            "99 times in 100)",
        ),
    ]
    flipped = calibration.flipped
    if flipped:
        line = Text(f"flipped between identical runs ({len(flipped)}): ")
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
