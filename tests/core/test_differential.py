"""`compare()` against tests/reference/gate.py, the gate's rules written the plain way, on generated
pairs of runs: the same verdict, rule, cells, p, flipped and unpaired cases and outcome counts."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate.compare import GateResult, compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.core.vocab import ARMS, GATE_RULES, OUTCOMES
from tests.conftest import write_run
from tests.reference import gate as reference

LABELS = ("approve", "reject", "escalate")
RULES = ("prohibited", "recalled")

Pair = tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]


@st.composite
def pairs(draw: st.DrawFn) -> Pair:
    """Both arms' rows and the candidate's manifest. A case keeps its definition (safety flag,
    rules, expected labels) in both arms; either arm may lack it, or lose repetitions to infra.
    Each arm draws how well it decides, so that each rule but `budget` gets its turn."""
    # How often each arm's repetitions agree with the expected labels, and how often they are
    # infra, in 24ths: an arm above 5% infra makes the comparison INVALID.
    skill = {arm: draw(st.sampled_from([6, 12, 20, 22, 24]), label=f"{arm} skill") for arm in ARMS}
    infra = draw(st.sampled_from([0, 0, 0, 0, 1, 3]), label="infra")
    safety_share = draw(st.sampled_from([0, 0, 2]), label="safety cases in 16ths")
    most_rules = draw(st.sampled_from([0, 2, 2]), label="rules")  # 0: pass/fail checks only
    arms: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    for i in range(draw(st.integers(1, 24), label="cases")):
        case = f"case-{i:02d}"
        safety = draw(st.integers(1, 16)) <= safety_share
        rules = RULES[: draw(st.integers(0, most_rules))]  # no rule: a pass/fail check
        expected = {rule: draw(st.sampled_from(LABELS)) for rule in rules}
        for arm in ARMS:
            if draw(st.integers(0, 11)) == 0 and (arm == "baseline" or draw(st.booleans())):
                continue  # this arm lacks the case: new, or (less often) deleted: INVALID
            for rep in range(draw(st.integers(1, 3))):
                row: dict[str, Any] = {"case": case, "rep": rep, "safety": safety}
                agrees = draw(st.integers(1, 24)) <= skill[arm]
                if draw(st.integers(1, 24)) <= infra:
                    row |= {"status": "infra", "infra": "timeout"}
                elif rules:
                    row["expected"] = expected
                    row["actual"] = {
                        rule: label if agrees else draw(st.sampled_from(LABELS))
                        for rule, label in expected.items()
                    }
                else:
                    row["passed"] = agrees
                arms[arm].append(row)
    for arm in ARMS:  # a run holds at least one repetition
        if not arms[arm]:
            arms[arm].append({"case": "case-99", "rep": 0, "passed": True})
    manifest = {
        "suite": draw(st.sampled_from(["smoke", "full"])),
        "key": {"model": "m2", "prompt": draw(st.sampled_from(["p1"] * 11 + ["p2"]))},
        "change": {"keys": ["model"]},  # a moved prompt is a stale baseline: INVALID
    }
    return arms, manifest


def test_compare_agrees_with_the_reference() -> None:
    """The draws (the same on every run: tests/conftest.py) reach each rule but `budget` (the
    default spec has no budgets: tests/core/test_guards.py checks them against numpy),
    `safety_bound` (nor a safety bound: tests/core/test_bounds.py), `partial` (no drawn run
    states its completeness: tests/core/test_ledger.py) and `outcome_limit`, whose excess beyond
    the noise small draws seldom reach (the test below builds one)."""
    reached: set[str] = set()

    @settings(max_examples=120)
    @given(pairs())
    def agree(pair: Pair) -> None:
        arms, manifest = pair
        with tempfile.TemporaryDirectory() as folder:
            base = write_run(Path(folder) / "baseline", arms["baseline"], suite=manifest["suite"])
            cand = write_run(Path(folder) / "candidate", arms["candidate"], **manifest)
            expected = reference.gate(base, cand)
            result = compare(load_run(base), load_run(cand), default_spec()).result
        assert_same(result, expected)
        reached.add(result.rule)

    agree()
    assert reached == set(GATE_RULES) - {"budget", "safety_bound", "partial", "outcome_limit"}


def test_an_excess_of_false_negatives_beyond_the_noise_agrees_with_the_reference(
    tmp_path: Path,
) -> None:
    """Eight cases both arms fail: the baseline escalates a violation, the candidate waves it
    through (a false negative on each repetition), so no case flips and the excess, +3 on each
    of eight cases, has p = 1/256: beyond the noise at Holm's first step (0.0125, the
    first look's 0.025 shared with the flips)."""

    def rows(actual: str, reps: int = 3) -> list[dict[str, Any]]:
        return [
            {
                "case": f"case-{i:02d}",
                "rep": rep,
                "expected": {"r": "reject"},
                "actual": {"r": actual},
            }
            for i in range(8)
            for rep in range(reps)
        ]

    base = write_run(tmp_path / "baseline", rows("escalate"))
    cand = write_run(tmp_path / "candidate", rows("approve"), change={"keys": ["model"]})
    expected = reference.gate(base, cand)
    result = compare(load_run(base), load_run(cand), default_spec()).result
    assert_same(result, expected)
    assert result.rule == "outcome_limit" and result.false_negatives is not None
    assert result.false_negatives.p == 1 / 256


def assert_same(result: GateResult, expected: dict[str, Any]) -> None:
    assert (result.verdict, result.rule) == (expected["verdict"], expected["rule"])
    assert result.cells == expected["cells"]
    assert (result.b, result.c) == (expected["b"], expected["c"])
    assert result.p == pytest.approx(expected["p"], rel=1e-12)
    assert [{"case": c, "direction": d} for c, d in result.flipped] == expected["flipped"]
    assert sorted(u.case for u in result.unpaired) == expected["unpaired"]
    assert list(result.key_drift) == expected["key_drift"]
    for arm in ARMS:
        infra, outcomes = result.infra[arm], result.outcomes[arm]
        assert (infra.count, infra.share) == tuple(expected["infra"][arm].values())
        counted = {**outcomes.counts, "decisions": outcomes.decisions}
        assert counted == {k: expected["outcomes"][arm][k] for k in (*OUTCOMES, "decisions")}
        assert outcomes.cost == pytest.approx(expected["outcomes"][arm]["cost"])
