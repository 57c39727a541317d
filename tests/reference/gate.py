"""The gate's rules written the plain way, as the yardstick for `flipgate gate`'s speed and answers.

    python tests/reference/gate.py BASELINE_DIR CANDIDATE_DIR

reads two runs in the JSONL form (SPEC section 2) with `json.loads` per line and dict loops, no
polars and no numpy, applies the default gate.yaml (SPEC 3 and 4, `fail_on` = every disagreement)
and prints one JSON object shaped like `flipgate gate --format json` (SPEC 8). It is what a
competent engineer writes without a dataframe library, so it is both a speed baseline and an
independent check of the answers.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# The default gate.yaml of SPEC section 3, with its amendments of section 9: the first look at a
# change blocks at half of alpha (`looks: spend`), the false-negative limit against the baseline
# only beyond the noise; on labelled runs the two tests share that half (`family: holm`), here by
# the closed testing principle each rejection of Holm's procedure is (Marcus, Peritz & Gabriel
# 1976): a path blocks when every subset of the paths holding it has a p at or below the share
# divided by the subset's size.
ALPHA = 0.05
FIRST_LOOK = ALPHA / 2
SETS = {"smoke": {"margin": 1, "flip_cap": 4}, "full": {"margin": 2, "flip_cap": 10}}
INFRA_MAX_SHARE = 0.05
PRICES = {"false_negative": 400, "false_positive": 15, "inconclusive": 4}
FAIL_ON = {"false_negative", "false_positive", "mirror", "inconclusive"}
OUTCOMES = ("agreement", "false_negative", "false_positive", "inconclusive", "mirror")
DEFAULT_LABELS = {"negative": "approve", "positive": "reject", "abstain": "escalate"}


@dataclass
class ArmTally:
    """What one pass over an arm's results.jsonl leaves behind."""

    meta: dict[str, Any]
    reps: int = 0
    infra: int = 0
    # case -> [passing reps, gradable reps]
    cases: dict[str, list[int]] = field(default_factory=dict)
    safety: set[str] = field(default_factory=set)
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    # Mirrors are priced by direction: like a false negative when the system approved.
    mirror_negative: int = 0
    # case -> [(rep, false negatives)] of its gradable repetitions, for the limit's matching
    false_negatives: dict[str, list[tuple[int, int]]] = field(default_factory=dict)


def classify(expected: str, actual: str, labels: dict[str, str]) -> str:
    """SPEC 4: the outcome of one decision, checked in the table's order."""
    if expected == actual:
        return "agreement"
    if expected == labels["abstain"]:
        return "mirror"
    if actual == labels["abstain"]:
        return "inconclusive"
    if expected == labels["positive"]:
        return "false_negative"
    return "false_positive"


def as_mapping(value: Any) -> dict[str, Any]:
    """`expected`, `actual` and `passed` may be one value for a case with one decision."""
    return value if isinstance(value, dict) else {"": value}


def read_arm(run: Path) -> ArmTally:
    run_dir = run.parent if run.is_file() else run  # a run's run.yaml stands for the run
    meta = yaml.safe_load((run_dir / "run.yaml").read_text()) or {}
    labels = {**DEFAULT_LABELS, **(meta.get("labels") or {})}
    tally = ArmTally(meta)
    outcomes = tally.outcomes
    with (run_dir / "results.jsonl").open(encoding="utf-8") as results:
        for line in results:
            if not line.strip():
                continue
            row = json.loads(line)
            case = row["case"]
            tally.reps += 1
            if row.get("safety", False):
                tally.safety.add(case)
            counts = tally.cases.setdefault(case, [0, 0])
            if row.get("status", "ok") == "infra":
                tally.infra += 1
                continue
            passes = True
            expected = as_mapping(row.get("expected", {}))
            actual = as_mapping(row.get("actual", {}))
            missed = 0
            for rule, label in expected.items():
                outcome = classify(label, actual[rule], labels)
                outcomes[outcome] += 1
                missed += outcome == "false_negative"
                if outcome == "mirror" and actual[rule] == labels["negative"]:
                    tally.mirror_negative += 1
                if outcome in FAIL_ON:
                    passes = False
            if "passed" in row and not all(as_mapping(row["passed"]).values()):
                passes = False
            counts[1] += 1
            if passes:
                counts[0] += 1
            tally.false_negatives.setdefault(case, []).append((row.get("rep", 0), missed))
    return tally


def collapse(tally: ArmTally) -> dict[str, bool]:
    """SPEC 3.1: case -> pass, for the cases with a gradable repetition (the others are missing)."""
    verdicts = {}
    for case, (passing, gradable) in tally.cases.items():
        if gradable == 0:
            continue
        if case in tally.safety:
            verdicts[case] = passing == gradable
        else:
            verdicts[case] = 2 * passing > gradable  # strict majority: a tie fails
    return verdicts


def one_sided_p(b: int, c: int) -> float:
    """P(X >= b) for X ~ Binomial(b + c, 1/2), summed exactly in integers."""
    n = b + c
    if n == 0:
        return 1.0
    term = math.comb(n, b)
    total = 0
    for k in range(b, n + 1):
        total += term
        term = term * (n - k) // (k + 1)
    return total / (1 << n)  # int / int rounds correctly, however large


def false_negatives_p(base: ArmTally, cand: ArmTally, paired: set[str]) -> float:
    """The limit `false_negative_max: baseline`: per paired case, the false negatives of the
    first min(n_b, n_c) gradable repetitions of each arm (by rep), candidate minus baseline; the
    total is referred to every flip of the cases' signs (a dict of totals -> ways, built one case
    at a time): its one-sided p."""
    differences = []
    for case in paired:
        b_reps, c_reps = sorted(base.false_negatives[case]), sorted(cand.false_negatives[case])
        keep = min(len(b_reps), len(c_reps))
        differences.append(sum(n for _, n in c_reps[:keep]) - sum(n for _, n in b_reps[:keep]))
    ways = {0: 1}
    for d in differences:
        if d:
            step: dict[int, int] = {}
            for total, n in ways.items():
                for signed in (d, -d):
                    step[total + signed] = step.get(total + signed, 0) + n
            ways = step
    observed = sum(differences)
    at_least = sum(n for total, n in ways.items() if total >= observed)
    return at_least / sum(ways.values())


def closed_test(ps: dict[str, float], level: float) -> set[str]:
    """The paths that block: those every subset holding them rejects by Bonferroni's test."""
    names = sorted(ps)
    subsets = [
        {name for bit, name in enumerate(names) if mask >> bit & 1}
        for mask in range(1, 1 << len(names))
    ]
    return {
        name
        for name in names
        if all(
            min(ps[other] for other in subset) <= level / len(subset)
            for subset in subsets
            if name in subset
        )
    }


def priced(tally: ArmTally) -> dict[str, Any]:
    counts = tally.outcomes
    mirror_positive = counts["mirror"] - tally.mirror_negative
    cost = (
        PRICES["false_negative"] * (counts["false_negative"] + tally.mirror_negative)
        + PRICES["false_positive"] * (counts["false_positive"] + mirror_positive)
        + PRICES["inconclusive"] * counts["inconclusive"]
    )
    return {**counts, "decisions": sum(counts.values()), "cost": cost}


def key_drift(baseline: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    base_key = baseline.get("key") or {}
    cand_key = candidate.get("key") or {}
    allowed = set((candidate.get("change") or {}).get("keys") or [])
    return sorted(
        k
        for k in set(base_key) | set(cand_key)
        if base_key.get(k) != cand_key.get(k) and k not in allowed
    )


def gate(baseline_dir: Path, candidate_dir: Path) -> dict[str, Any]:
    base = read_arm(baseline_dir)
    cand = read_arm(candidate_dir)
    base_pass = collapse(base)
    cand_pass = collapse(cand)

    # Safety runs before any counting: one failed candidate repetition, or none gradable, blocks.
    safety_failed = False
    for case in base.safety | cand.safety:
        passing, gradable = cand.cases.get(case, (0, 0))
        safety_failed = safety_failed or gradable == 0 or passing < gradable

    all_cases = set(base.cases) | set(cand.cases)
    paired = set(base_pass) & set(cand_pass)
    cells = {"both_pass": 0, "both_fail": 0, "pass_to_fail": 0, "fail_to_pass": 0}
    flipped = []
    for case in sorted(paired):
        before, after = base_pass[case], cand_pass[case]
        if before and after:
            cells["both_pass"] += 1
        elif not before and not after:
            cells["both_fail"] += 1
        else:
            direction = "pass_to_fail" if before else "fail_to_pass"
            cells[direction] += 1
            flipped.append({"case": case, "direction": direction})
    b, c = cells["pass_to_fail"], cells["fail_to_pass"]
    p = one_sided_p(b, c)

    infra = {
        name: {"count": arm.infra, "share": arm.infra / arm.reps if arm.reps else 0.0}
        for name, arm in (("baseline", base), ("candidate", cand))
    }
    drift = key_drift(base.meta, cand.meta)
    outcomes = {"baseline": priced(base), "candidate": priced(cand)}
    limits = SETS[cand.meta.get("suite", "full")]

    # The default limits hold only false_negative_max: baseline; the per-rule and the
    # inconclusive budget are off (empty list, null) in the default gate.yaml, and so is the
    # safety bound (`safety.max_rate: null`).
    paths = {"significance": p}
    if outcomes["candidate"]["decisions"]:  # labelled runs: the limit is a path of its own
        paths["outcome_limit"] = false_negatives_p(base, cand, paired)
    blocking = closed_test(paths, FIRST_LOOK)
    if safety_failed:
        verdict, rule = "BLOCK", "safety"
    elif (
        drift
        or any(arm["share"] > INFRA_MAX_SHARE for arm in infra.values())
        or set(base.cases) - set(cand.cases)  # a case deleted in the change under test
        or (base.cases and cand.cases and not set(base.cases) & set(cand.cases))  # no case shared
    ):
        verdict, rule = "INVALID", "invalid"
    elif "significance" in blocking:
        verdict, rule = "BLOCK", "significance"
    elif "outcome_limit" in blocking:
        verdict, rule = "BLOCK", "outcome_limit"
    elif b - c <= limits["margin"] and b <= limits["flip_cap"]:
        verdict, rule = "PASS", "within_margin"
    else:
        verdict, rule = "INCONCLUSIVE", "undecided"

    return {
        "verdict": verdict,
        "rule": rule,
        "cells": cells,
        "b": b,
        "c": c,
        "p": p,
        "flipped": flipped,
        "unpaired": sorted(all_cases - paired),
        "infra": infra,
        "outcomes": outcomes,
        "key_drift": drift,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tests/reference/gate.py BASELINE_DIR CANDIDATE_DIR", file=sys.stderr)
        return 2
    print(json.dumps(gate(Path(argv[0]), Path(argv[1])), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
