"""Calibrating the gate from identical baseline runs (seed 001: "run the baseline against itself a
few times before trusting any threshold ... set the flip cap above the largest one-direction count
you see").

Every ordered pair of the runs is gated as baseline and candidate with the current spec and flaky
list: nothing changed between them, so every flip is noise, every BLOCK a false alarm and every
INCONCLUSIVE a false escalation. The proposal reads the margin and the flip cap at a stated
quantile of the no-change distribution those flips measure (noise.py), beside each rule's
false-BLOCK rate and P(PASS) for a few regressions; the largest counts seen are shown as
evidence, never used as the proposal (the largest of more pairs is larger: the gate loosened as
runs were added). It goes to a new file, never over `gate.yaml` (raising a threshold belongs in
its own reviewed change, never in the change under test).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import permutations
from pathlib import Path
from typing import Any

from flipgate.core.curation.flips import identical_runs
from flipgate.core.curation.noise import Noise, Proposal, RuleChances, estimate_noise, propose
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.mcnemar import FlipTest
from flipgate.core.gate.spec import DEFAULTS, GateSpec, SetRule
from flipgate.core.io.atomic import write_atomic
from flipgate.core.io.files import writing
from flipgate.core.io.yamlio import dump_yaml, load_yaml, yaml_comment
from flipgate.core.order import natural_sorted
from flipgate.core.runs.model import Run

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
    design_effect: float  # the clustering of this pair's flips (1: none, or no template)


@dataclass(frozen=True)
class Calibration:
    runs: tuple[str, ...]
    key: dict[str, str]
    suite: str
    current: SetRule
    alpha: float
    pairs: tuple[PairCount, ...]
    paths: tuple[Path, ...]  # the runs' files, oldest first, for `flaky propose`
    boundary: float  # the first look's boundary p (looks.py)
    test: FlipTest

    @cached_property
    def noise(self) -> Noise:
        """The share of cases identical runs disagree on, with its upper bound (noise.py)."""
        return estimate_noise(
            [(p.b + p.c) / p.paired for p in self.pairs if p.paired],
            max(p.paired for p in self.pairs),
            len(self.runs),
            self.alpha,
            sum(p.design_effect for p in self.pairs) / len(self.pairs),
        )

    @cached_property
    def proposal(self) -> Proposal:
        """The margin and flip cap at the noise's stated quantile, beside the current ones."""
        return propose(
            self.noise, (self.current.margin, self.current.flip_cap), self.boundary, self.test
        )

    @property
    def proposed(self) -> SetRule:
        chosen = self.proposal.proposed
        return SetRule(margin=chosen.margin, flip_cap=chosen.flip_cap)

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
            "noise": {
                "flip_share": self.noise.flip_share,
                "upper": self.noise.upper,
                "level": self.noise.level,
                "design_effect": self.noise.design_effect,
                "runs": self.noise.runs,
                "cases": self.noise.cases,
            },
            "quantile": self.proposal.quantile,
            "current": _rule_json(self.proposal.current),
            "proposed": _rule_json(self.proposal.proposed),
            "false_block": verdicts["BLOCK"],
            "false_inconclusive": verdicts["INCONCLUSIVE"],
            "comparisons": len(self.pairs),
            "flipped": list(self.flipped),
        }


def _rule_json(rule: RuleChances) -> dict[str, Any]:
    return {
        "margin": rule.margin,
        "flip_cap": rule.flip_cap,
        "false_block": rule.false_block,
        "false_inconclusive": rule.false_inconclusive,
        "pass": [{"points": points, "pass": chance} for points, chance in rule.passes],
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
                result.clusters.design_effect if result.p_by == "template" else 1.0,
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
        spec.boundary(1),
        spec.test,
    )


def proposed_spec(calibration: Calibration, gate: Path | None, evidence: Sequence[str]) -> str:
    """The current gate.yaml with the calibrated margin and flip cap, as YAML under its
    `evidence` in words (`present/calibration.py`), a comment line each: run ids and paths are
    the team's, so whatever a line holds it stays one comment."""
    data: dict[str, Any] = {}
    if gate is not None:
        loaded, _ = load_yaml(gate)
        data = dict(loaded or {})
    sets = {name: dict(rule) for name, rule in (data.get("sets") or {}).items()}
    chosen = sets.setdefault(calibration.suite, dict(DEFAULTS["sets"].get(calibration.suite, {})))
    chosen["margin"] = calibration.proposed.margin
    chosen["flip_cap"] = calibration.proposed.flip_cap
    data["sets"] = sets
    return "\n".join(yaml_comment(line) for line in evidence) + "\n" + dump_yaml(data)


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
