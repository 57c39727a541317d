"""Calibrating the gate from identical baseline runs (seed 001: "run the baseline against itself a
few times before trusting any threshold ... set the flip cap above the largest one-direction count
you see").

Every ordered pair of the runs is gated as baseline and candidate with the current spec and flaky
list: nothing changed between them, so every flip is noise, every BLOCK a false alarm and every
INCONCLUSIVE a false escalation. The proposal puts the flip cap above both the largest one-way
count seen and what the measured noise reaches 99 times in 100, and the margin at the largest net
drop seen; it goes to a new file, never over `gate.yaml` (raising a threshold belongs in its own
reviewed change, never in the change under test).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import permutations
from pathlib import Path
from typing import Any

from flipgate.core.curation.flips import identical_runs
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.spec import DEFAULTS, GateSpec, SetRule
from flipgate.core.gate.stats import binom_quantile
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.files import writing
from flipgate.core.io.yamlio import dump_yaml, load_yaml
from flipgate.core.order import natural_sorted
from flipgate.core.runs.model import Run

NOISE_QUANTILE = 0.99  # the flip cap clears what the measured noise gives this often
PROPOSED_NAME = "gate.calibrated.yaml"


@dataclass(frozen=True)
class PairCount:
    """One ordered pair of identical runs gated as baseline -> candidate."""

    baseline: str
    candidate: str
    b: int
    c: int
    paired: int
    verdict: str
    rule: str
    flipped: tuple[str, ...]


@dataclass(frozen=True)
class Calibration:
    runs: tuple[str, ...]
    key: dict[str, str]
    suite: str
    current: SetRule
    alpha: float
    pairs: tuple[PairCount, ...]
    paths: tuple[Path, ...]  # the runs' files, oldest first, for `flaky propose`

    @property
    def proposed(self) -> SetRule:
        """The margin at the largest net drop seen; the flip cap above the largest one-way count
        and above the one-way count the measured noise reaches 99 times in 100."""
        cases = max(p.paired for p in self.pairs)
        noise = binom_quantile(cases, self.flip_share / 2, NOISE_QUANTILE)
        return SetRule(
            margin=max(self.largest_net, 0), flip_cap=max(self.largest_one_way + 1, noise)
        )

    @property
    def largest_one_way(self) -> int:
        return max(max(p.b, p.c) for p in self.pairs)

    @property
    def largest_net(self) -> int:
        return max(p.b - p.c for p in self.pairs)

    @property
    def flip_share(self) -> float:
        """The mean share of paired cases that flipped between two identical runs."""
        return sum((p.b + p.c) / p.paired for p in self.pairs if p.paired) / len(self.pairs)

    @property
    def verdicts(self) -> Counter[str]:
        return Counter(p.verdict for p in self.pairs)

    @property
    def flipped(self) -> tuple[str, ...]:
        """Every case that flipped in some pair: the candidates for `flaky propose`."""
        return tuple(natural_sorted({case for p in self.pairs for case in p.flipped}))

    def to_json(self) -> dict[str, Any]:
        verdicts = self.verdicts
        return {
            "runs": list(self.runs),
            "key": self.key,
            "suite": self.suite,
            "alpha": self.alpha,
            "pairs": [
                {
                    "baseline": p.baseline,
                    "candidate": p.candidate,
                    "b": p.b,
                    "c": p.c,
                    "paired": p.paired,
                    "verdict": p.verdict,
                    "rule": p.rule,
                }
                for p in self.pairs
            ],
            "largest_one_way": self.largest_one_way,
            "largest_net": self.largest_net,
            "flip_share": self.flip_share,
            "current": {"margin": self.current.margin, "flip_cap": self.current.flip_cap},
            "proposed": {"margin": self.proposed.margin, "flip_cap": self.proposed.flip_cap},
            "false_block": verdicts["BLOCK"],
            "false_inconclusive": verdicts["INCONCLUSIVE"],
            "comparisons": len(self.pairs),
            "flipped": list(self.flipped),
        }


def calibrate(runs: Sequence[Run], spec: GateSpec, flaky: FlakyList) -> Calibration:
    """Gate every ordered pair of identical runs; propose a margin and a flip cap from the noise."""
    ordered = identical_runs(runs, at_least=2)
    pairs = []
    for base, cand in permutations(ordered, 2):
        result = compare(base, cand, spec, flaky).result
        pairs.append(
            PairCount(
                base.run_id,
                cand.run_id,
                result.b,
                result.c,
                result.paired,
                result.verdict,
                result.rule,
                tuple(case for case, _ in result.flipped),
            )
        )
    suite = ordered[0].suite
    return Calibration(
        tuple(run.run_id for run in ordered),
        dict(ordered[0].key),
        suite,
        spec.set_rule(suite),
        spec.alpha,
        tuple(pairs),
        tuple(run.path for run in ordered),
    )


def proposed_spec(calibration: Calibration, gate: Path | None, today: date) -> str:
    """The current gate.yaml with the calibrated margin and flip cap, as YAML with its evidence."""
    data: dict[str, Any] = {}
    if gate is not None:
        loaded, _ = load_yaml(gate)
        data = dict(loaded or {})
    sets = {name: dict(rule) for name, rule in (data.get("sets") or {}).items()}
    chosen = sets.setdefault(calibration.suite, dict(DEFAULTS["sets"].get(calibration.suite, {})))
    chosen["margin"] = calibration.proposed.margin
    chosen["flip_cap"] = calibration.proposed.flip_cap
    data["sets"] = sets
    verdicts = calibration.verdicts
    header = [
        f"# Proposed by `flipgate calibrate` on {today.isoformat()} from "
        f"{len(calibration.runs)} identical baseline runs: {', '.join(calibration.runs)}.",
        f"# {len(calibration.pairs)} comparisons of runs that differ by nothing: largest one-way "
        f"count {calibration.largest_one_way}, largest net drop {calibration.largest_net}, "
        f"{calibration.flip_share:.1%} of cases flipping.",
        f"# The current spec ({gate or 'the defaults'}) said BLOCK {verdicts['BLOCK']} and "
        f"INCONCLUSIVE {verdicts['INCONCLUSIVE']} times on them.",
        f"# {calibration.suite}: margin {calibration.current.margin} -> "
        f"{calibration.proposed.margin}, flip cap {calibration.current.flip_cap} -> "
        f"{calibration.proposed.flip_cap} (above the largest one-way count and the noise's "
        f"{NOISE_QUANTILE:.0%} quantile).",
        "# Review it, then replace gate.yaml in a change of its own, never in the change under test.",
    ]
    return "\n".join(header) + "\n" + dump_yaml(data)


def free_name(folder: Path, name: str = PROPOSED_NAME) -> Path:
    """`name` in `folder`, or the first of name-2, name-3, ... not yet taken."""
    target = folder / name
    stem, suffix = target.stem, target.suffix
    n = 2
    while target.exists():
        target = folder / f"{stem}-{n}{suffix}"
        n += 1
    return target


def write_proposed(text: str, target: Path, gate: Path | None) -> None:
    """Write the proposal to a new file: never over gate.yaml, never over any file."""
    if gate is not None and target.resolve() == gate.resolve():
        raise InputError(
            target, "the proposal never replaces the gate spec itself: give --out another file"
        )
    try:
        with writing(target):  # a full disk, a read-only folder: said, exit 2
            write_atomic(target, text)
    except FileExistsError:
        raise InputError(target, "already exists: the proposal goes to a new file") from None
