"""Who flipped, in words: b and c split into model and grader flips (issue 23 item 1), and the
grader's own noise within one arm. The core counts (`core/gate/sources.py`); this says it."""

from __future__ import annotations

from typing import Any

from flipgate.core.gate.sources import FlipSources, GraderNoise, SourceCounts
from flipgate.core.plural import plural
from flipgate.core.vocab import FLIP_SOURCES, Direction

CELL_LETTER: dict[Direction, str] = {"pass_to_fail": "b", "fail_to_pass": "c"}


def split_terms(counts: SourceCounts) -> str:
    """`11 model + 4 grader`, `+ 2 unknown` when any; `0` for an empty cell."""
    terms = [f"{counts.model:,} model", f"{counts.grader:,} grader"]
    if counts.unknown:
        terms.append(f"{counts.unknown:,} unknown")
    return " + ".join(terms) if counts.total else "0"


def split_line(sources: FlipSources, direction: Direction) -> str:
    """`b 15 = 11 model + 4 grader`: a cell and who flipped its cases."""
    return cell_split(CELL_LETTER[direction], sources.counts[direction])


def cell_split(letter: str, counts: SourceCounts) -> str:
    return f"{letter} {counts.total:,} = {split_terms(counts)}"


def noise_line(arm: str, noise: GraderNoise) -> str | None:
    """The grader against itself in one arm, or None when no output repeated in a split case."""
    if noise.rate is None:
        return None
    pairs = plural(noise.same_output_pairs, "pair")
    return (
        f"{arm}: {noise.graded_apart:,} of {pairs} of repetitions with the same output got "
        f"different verdicts ({noise.rate:.0%}; {plural(len(noise.cases), 'case')})"
    )


def unknown_note(sources: FlipSources) -> str | None:
    """Why some flips have no source: said once, never guessed."""
    unknown = sum(c.unknown for c in sources.counts.values())
    if not unknown:
        return None
    return (
        f"{plural(unknown, 'flipped case')} without stored outputs in both arms to compare: "
        "who flipped them is unknown"
    )


def sources_json(sources: FlipSources | None) -> dict[str, Any] | None:
    """The split as docs/json.md gives it: counts per cell by source code, the normaliser, the
    grader's noise per arm."""
    if sources is None:
        return None
    return {
        "pass_to_fail": _counts_json(sources.counts["pass_to_fail"]),
        "fail_to_pass": _counts_json(sources.counts["fail_to_pass"]),
        "volatile": list(sources.volatile),
        "grader_noise": {
            arm: {
                "same_output_pairs": noise.same_output_pairs,
                "graded_apart": noise.graded_apart,
                "rate": noise.rate,
                "cases": list(noise.cases),
            }
            for arm, noise in sources.noise.items()
        },
    }


def _counts_json(counts: SourceCounts) -> dict[str, int]:
    return {source: counts.of(source) for source in FLIP_SOURCES}
