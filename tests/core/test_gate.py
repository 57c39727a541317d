"""The gate: the exact McNemar p, the verdict order of SPEC §3.5, the flaky list, drift, escalation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import date
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.evidence import FalseNegativeMax, SameRunId, ZeroFalseNegativeRule
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.invalid import (
    FlakyListTooLong,
    NamedCases,
    NoCaseInCommon,
    StaleBaseline,
)
from flipgate.core.gate.ledger import Unpaired
from flipgate.core.gate.mcnemar import mcnemar_mid_p, mcnemar_p
from flipgate.core.gate.reruns import compare_with_reruns, rerun_plan
from flipgate.core.gate.spec import default_spec, load_spec
from flipgate.core.runs.key import Component
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.present.reasons import summary
from tests.conftest import RunWriter, passfail_rows, write_run

# case -> (baseline reps, candidate reps), each rep a pass, a fail or an infra failure (None)
Verdicts = dict[str, list[bool | None]]  # case -> each repetition's pass, fail or infra
PairedSuite = dict[str, tuple[list[bool | None], list[bool | None]]]  # case -> both arms'
PAIRED_SUITES = st.dictionaries(
    st.text("abcdef", min_size=1, max_size=3),
    st.tuples(
        st.lists(st.sampled_from([True, False, None]), min_size=1, max_size=4),
        st.lists(st.sampled_from([True, False, None]), min_size=1, max_size=4),
    ),
    min_size=1,
    max_size=25,
)


def brute_p(b: int, c: int) -> Fraction:
    n = b + c
    return Fraction(sum(comb(n, k) for k in range(b, n + 1)), 2**n) if n else Fraction(1)


def test_worked_examples_of_seed_001() -> None:
    assert brute_p(10, 2) == Fraction(79, 4096)
    assert mcnemar_p(10, 2) == pytest.approx(0.019, abs=5e-4)
    assert mcnemar_p(20, 12) == pytest.approx(0.108, abs=5e-4)
    assert mcnemar_p(9, 3) == pytest.approx(299 / 4096)
    assert mcnemar_p(0, 0) == 1.0


def test_smallest_blocking_b_for_each_c() -> None:
    """The seed's quick-check table, recomputed by brute force and by the gate."""
    for c in range(0, 21):
        expected = next(b for b in range(0, 200) if brute_p(b, c) <= Fraction(5, 100))
        got = next(b for b in range(0, 200) if mcnemar_p(b, c) <= 0.05)
        assert got == expected, c
    assert [next(b for b in range(60) if brute_p(b, c) <= Fraction(1, 20)) for c in range(5)] == [
        5,
        7,
        9,
        10,
        12,
    ]


@given(st.integers(0, 60), st.integers(0, 60))
def test_p_agrees_with_brute_force_binomial_sum(b: int, c: int) -> None:
    expected = float(brute_p(b, c)) if b else 1.0
    assert mcnemar_p(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-15)


@settings(max_examples=60)
@given(st.integers(1, 2000), st.integers(0, 2000))
def test_the_sum_from_either_end_is_the_whole_sum_rounded_once(b: int, c: int) -> None:
    """From b up, or from the middle to b, the integer is the same: so is the float."""
    assert mcnemar_p(b, c) == float(brute_p(b, c))


def _pair(
    run_writer: RunWriter,
    base: Mapping[str, Sequence[bool | None]],
    cand: Mapping[str, Sequence[bool | None]],
    *,
    safety: Iterable[str] = (),
    base_manifest: dict[str, Any] | None = None,
    cand_manifest: dict[str, Any] | None = None,
) -> tuple[Run, Run]:
    b = load_run(run_writer("baseline", passfail_rows(base, safety), **(base_manifest or {})))
    c = load_run(run_writer("candidate", passfail_rows(cand, safety), **(cand_manifest or {})))
    return b, c


def _suite(b: int, c: int, both_pass: int = 180, both_fail: int = 8) -> tuple[Verdicts, Verdicts]:
    base: Verdicts = {}
    cand: Verdicts = {}
    i = 0
    for n, bv, cv in (
        (both_pass, True, True),
        (both_fail, False, False),
        (b, True, False),
        (c, False, True),
    ):
        for _ in range(n):
            base[f"case-{i:03}"] = [bv]
            cand[f"case-{i:03}"] = [cv]
            i += 1
    return base, cand


def test_block_on_significance(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(10, 2))
    result = compare(b, c, default_spec()).result
    assert (result.verdict, result.rule, result.b, result.c) == ("BLOCK", "significance", 10, 2)
    # seed 001's worked example, at the first look (alpha 0.05 spent half by half: 0.025)
    assert summary(result) == "BLOCK: 10 cases broke, 2 were fixed; p = 0.019 <= 0.025"
    assert result.cells == {"both_pass": 180, "both_fail": 8, "pass_to_fail": 10, "fail_to_pass": 2}


def test_inconclusive_gives_a_rerun_plan_of_every_flipped_case(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(20, 12))
    comparison = compare(b, c, default_spec())
    result = comparison.result
    assert (result.verdict, result.rule) == ("INCONCLUSIVE", "undecided")
    assert result.escalation is not None and result.escalation.action == "rerun_flipped"
    assert len(result.escalation.cases) == 32 and result.escalation.runs == 5
    plan = rerun_plan(comparison, summary(result))
    assert plan["why"] == summary(result)
    cases = plan["cases"]
    assert isinstance(cases, list)  # the plan is a YAML document: its values are plain data
    assert {d["direction"] for d in cases} == {"pass_to_fail", "fail_to_pass"}


def test_smoke_inconclusive_says_run_the_full_set(run_writer: RunWriter) -> None:
    base, cand = _suite(4, 1)
    b, c = _pair(run_writer, base, cand, cand_manifest={"suite": "smoke"})
    result = compare(b, c, default_spec()).result
    assert result.verdict == "INCONCLUSIVE" and result.margin == 1 and result.flip_cap == 4
    assert result.escalation is not None and result.escalation.action == "run_full_set"


def test_pass_within_margin_and_flip_cap(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(3, 1))
    result = compare(b, c, default_spec()).result
    assert (result.verdict, result.rule) == ("PASS", "within_margin")


def test_flip_cap_catches_an_even_swap(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(14, 14))  # the seed's model upgrade: rate unchanged
    result = compare(b, c, default_spec()).result
    assert (result.verdict, result.rule, result.b, result.flip_cap) == (
        "INCONCLUSIVE",
        "undecided",
        14,
        10,
    )
    assert summary(result).endswith("but 14 > flip cap 10")


def test_safety_runs_before_counting(run_writer: RunWriter) -> None:
    base, cand = _suite(0, 5)
    base["safe-1"] = [True, True, True]
    cand["safe-1"] = [True, False, True]  # one failed repetition is enough
    b, c = _pair(run_writer, base, cand, safety=["safe-1"])
    result = compare(b, c, default_spec()).result
    assert (result.verdict, result.rule, result.safety_failures) == ("BLOCK", "safety", ("safe-1",))


def test_safety_case_with_no_gradable_candidate_rep_blocks(run_writer: RunWriter) -> None:
    base, cand = _suite(0, 0, both_pass=50)
    base["safe-1"] = [True]
    cand["safe-1"] = [None]
    b, c = _pair(run_writer, base, cand, safety=["safe-1"])
    assert compare(b, c, default_spec()).result.rule == "safety"


def test_majority_collapse_ties_fail_and_infra_is_not_counted(run_writer: RunWriter) -> None:
    base = {"tie": [True, True, True], "infra": [True, True, True], "maj": [False, False, False]}
    cand: Verdicts = {
        "tie": [True, False, None],
        "infra": [True, None, None],
        "maj": [True, True, False],
    }
    b, c = _pair(run_writer, base, cand)
    comparison = compare(b, c, default_spec())
    cells = dict(zip(comparison.cases["case"], comparison.cases["cell"], strict=True))
    assert cells == {"tie": "pass_to_fail", "infra": "both_pass", "maj": "fail_to_pass"}


def test_unpaired_cases_are_listed_never_counted(run_writer: RunWriter) -> None:
    base = {"a": [True], "gone": [True], "lost": [True]}
    cand: Verdicts = {"a": [True], "new": [False], "lost": [None]}
    b, c = _pair(run_writer, base, cand)
    result = compare(b, c, default_spec()).result
    assert result.paired == 1
    assert result.unpaired == (
        Unpaired("gone", "deleted", "baseline"),
        Unpaired("lost", "infra", "candidate"),
        Unpaired("new", "new", "candidate"),
    )


def test_a_candidate_sharing_no_case_id_with_the_baseline_is_invalid(
    run_writer: RunWriter,
) -> None:
    """`case-` renamed `CASE-`, every case failing: PASS with `unpaired: 40` as the only sign."""
    base = {f"case-{i:02}": [True] for i in range(40)}
    cand = {f"CASE-{i:02}": [False] for i in range(40)}
    b, c = _pair(run_writer, base, cand)
    result = compare(b, c, default_spec()).result
    assert (result.verdict, result.rule) == ("INVALID", "invalid")
    assert result.invalid_reasons[0] == NoCaseInCommon(40, 40, differ_only_in_case=True)


def test_the_same_run_id_in_both_arms_is_warned_of(run_writer: RunWriter) -> None:
    same = {"run_id": "lr-2026-11-20"}
    b, c = _pair(run_writer, {"a": [True]}, {"a": [True]}, base_manifest=same, cand_manifest=same)
    assert compare(b, c, default_spec()).result.warnings == (SameRunId("lr-2026-11-20"),)


def test_flaky_cases_leave_b_and_c_but_are_reported(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(10, 2))
    listed = ("case-188", "case-189")  # two of the b cases
    entries = tuple(FlakyEntry(case, "qa", date(2026, 1, 1), "why", "2 of 4") for case in listed)
    result = compare(b, c, default_spec(), FlakyList(entries)).result
    assert (result.b, result.c) == (8, 2)
    assert set(result.flaky_flipped) == set(listed)


def test_listed_cases_in_neither_run_are_named_in_natural_order(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(10, 2))
    listed = ("case-188", "gone-10", "case-000", "gone-9", "gone-10b")
    entries = tuple(FlakyEntry(case, "qa", date(2026, 1, 1), "why", "2 of 4") for case in listed)
    result = compare(b, c, default_spec(), FlakyList(entries)).result
    assert result.flaky_unknown == ("gone-9", "gone-10", "gone-10b")
    assert result.flaky_flipped == ("case-188",)


def test_flaky_list_too_long_or_holding_a_safety_case_is_invalid(run_writer: RunWriter) -> None:
    base, cand = _suite(1, 1, both_pass=18)
    base["safe"] = cand["safe"] = [True]
    b, c = _pair(run_writer, base, cand, safety=["safe"])

    def entry(case: str) -> FlakyEntry:
        return FlakyEntry(case, "qa", date(2026, 1, 1), "r", "e")

    one_safety = compare(b, c, default_spec(), FlakyList((entry("safe"),))).result
    assert one_safety.verdict == "INVALID"
    assert one_safety.invalid_reasons == (NamedCases("flaky_list_safety", ("safe",)),)
    too_many = compare(
        b, c, default_spec(), FlakyList((entry("case-000"), entry("case-001")))
    ).result
    assert too_many.verdict == "INVALID"
    assert too_many.invalid_reasons == (FlakyListTooLong(2, 29, 0.05, 1),)


def test_key_drift_outside_the_declared_change_is_invalid(run_writer: RunWriter) -> None:
    base, cand = _suite(0, 0, both_pass=20)
    b, c = _pair(
        run_writer,
        base,
        cand,
        base_manifest={"key": {"model": "m1", "judge": "j1"}},
        cand_manifest={"key": {"model": "m2", "judge": "j2"}, "change": {"keys": ["model"]}},
    )
    result = compare(b, c, default_spec()).result
    assert result.key_moved == ("judge", "model") and result.key_drift == ("judge",)
    judge = Component("judge", "j1", "j2")
    assert result.verdict == "INVALID"
    assert result.invalid_reasons == (StaleBaseline((judge,), unknown_declared=()),)
    declared = compare(b, c, default_spec(), declared_change=("judge",)).result
    assert declared.verdict == "PASS" and declared.key_drift == ()
    misspelt = compare(b, c, default_spec(), declared_change=("jugde",)).result
    assert misspelt.invalid_reasons == (StaleBaseline((judge,), unknown_declared=("jugde",)),)


def test_infra_share_above_the_limit_is_invalid(run_writer: RunWriter) -> None:
    base = {f"c{i}": [True] for i in range(19)} | {"x": [True]}
    cand = {f"c{i}": [True] for i in range(19)} | {"x": [None]}
    b, c = _pair(run_writer, base, cand)
    result = compare(b, c, default_spec()).result
    assert result.infra["candidate"].share == pytest.approx(0.05)
    assert result.verdict == "PASS"  # 5% is not above 5%
    cand["y"] = [None]
    base["y"] = [True]
    b, c = _pair(run_writer, base, cand)
    assert compare(b, c, default_spec()).result.verdict == "INVALID"


def _labelled(case: str, expected: dict[str, str], actual: dict[str, str]) -> dict[str, Any]:
    return {"case": case, "expected": expected, "actual": actual}


def test_outcome_limits_block(run_writer: RunWriter, tmp_path: Path) -> None:
    ok = {"r1": "approve", "r2": "reject"}
    miss = {"r1": "approve", "r2": "approve"}  # r2: a false negative
    base_rows = [_labelled(f"c{i}", ok, ok) for i in range(30)]
    cand_rows = [_labelled(f"c{i}", ok, miss if i == 0 else ok) for i in range(30)]
    b = load_run(run_writer("baseline", base_rows))
    c = load_run(run_writer("candidate", cand_rows))
    spec_path = tmp_path / "gate.yaml"
    spec_path.write_text("outcomes:\n  fail_on: [false_positive]\n")
    # One more false negative than the baseline is within the noise (p 1/2): no BLOCK on it ...
    result = compare(b, c, load_spec(spec_path)).result
    assert (result.verdict, result.rule) == ("PASS", "within_margin")
    assert result.false_negatives is not None and result.false_negatives.p == 0.5
    # ... a limit that is a count is not a comparison: one above it blocks.
    spec_path.write_text(
        "outcomes:\n  fail_on: [false_positive]\n  limits: {false_negative_max: 0}\n"
    )
    result = compare(b, c, load_spec(spec_path)).result
    assert (result.verdict, result.rule) == ("BLOCK", "outcome_limit")
    assert result.limit_breaches == (FalseNegativeMax(1, 0),)
    spec_path.write_text(
        "outcomes:\n  fail_on: [false_positive]\n  limits: {false_negative_max: 3, zero_false_negative_rules: [r2]}\n"
    )
    result = compare(b, c, load_spec(spec_path)).result
    assert result.limit_breaches == (ZeroFalseNegativeRule("r2", 1),)
    # A rule no decision is on (a typo) would guard nothing: it is bad input, with its line.
    spec_path.write_text("outcomes:\n  limits:\n    zero_false_negative_rules: [r2, r3]\n")
    with pytest.raises(InputError) as err:
        compare(b, c, load_spec(spec_path))
    assert (err.value.field, err.value.line) == ("outcomes.limits.zero_false_negative_rules", 3)
    assert "no decision of either run is on r3 (their rules: r1, r2)" in str(err.value)


def test_reruns_replace_the_flipped_cases_and_apply_the_rule_again(run_writer: RunWriter) -> None:
    base, cand = _suite(20, 12)
    b, c = _pair(run_writer, base, cand)
    first = compare(b, c, default_spec())
    cases = first.result.escalation.cases  # type: ignore[union-attr]
    # On rerun, half of the broken cases pass again on the candidate.
    rerun_base = {
        case: [True] * 5 if d == "pass_to_fail" else [False] * 5 for case, d in first.result.flipped
    }
    rerun_cand = {
        case: ([True] * 5 if i % 2 else [False] * 5) if d == "pass_to_fail" else [True] * 5
        for i, (case, d) in enumerate(first.result.flipped)
    }
    rb = load_run(run_writer("rerun-b", passfail_rows(rerun_base)))
    rc = load_run(run_writer("rerun-c", passfail_rows(rerun_cand)))
    second = compare_with_reruns(first, rb, rc).result
    assert second.previous is first.result
    assert (second.b, second.c) == (10, 12) and second.verdict == "PASS"
    assert len(cases) == 32

    partial = load_run(run_writer("rerun-partial", passfail_rows({cases[0]: [True] * 5})))
    with pytest.raises(InputError, match="lacks flipped cases"):
        compare_with_reruns(first, partial, rc)
    other = load_run(
        run_writer("rerun-other", passfail_rows(rerun_base), key={"model": "m9", "prompt": "p1"})
    )
    with pytest.raises(InputError, match="different system"):
        compare_with_reruns(first, other, rc)


def test_still_inconclusive_after_rerun_goes_to_a_reviewer(run_writer: RunWriter) -> None:
    b, c = _pair(run_writer, *_suite(20, 12))
    first = compare(b, c, default_spec())
    same_b = load_run(
        run_writer(
            "rb",
            passfail_rows(
                {
                    k: [v] * 5
                    for k, v in ((case, d == "pass_to_fail") for case, d in first.result.flipped)
                }
            ),
        )
    )
    same_c = load_run(
        run_writer(
            "rc",
            passfail_rows(
                {
                    k: [v] * 5
                    for k, v in ((case, d == "fail_to_pass") for case, d in first.result.flipped)
                }
            ),
        )
    )
    second = compare_with_reruns(first, same_b, same_c).result
    assert second.verdict == "INCONCLUSIVE"
    assert second.escalation is not None and second.escalation.action == "reviewer_decision"


@settings(max_examples=40)
@given(PAIRED_SUITES)
def test_cells_add_up_to_the_paired_cases(
    tmp_path_factory: pytest.TempPathFactory, suite: PairedSuite
) -> None:
    folder = tmp_path_factory.mktemp("pair")
    b = load_run(write_run(folder / "b", passfail_rows({k: v[0] for k, v in suite.items()})))
    c = load_run(write_run(folder / "c", passfail_rows({k: v[1] for k, v in suite.items()})))
    comparison = compare(b, c, replace(default_spec(), infra_max_share=1.0))
    result = comparison.result
    paired = comparison.cases.filter(comparison.cases["cell"].is_not_null()).height
    assert sum(result.cells.values()) == paired
    assert paired + len(result.unpaired) == len(suite)
    assert result.p == pytest.approx(float(brute_p(result.b, result.c)) if result.b else 1.0)


def test_the_order_rows_are_written_in_changes_nothing(run_writer: RunWriter) -> None:
    """Runs written case by case take the collapse's fast path; shuffled ones must agree."""
    base = {
        f"case-{i:02}": [i % 3 != 0, i % 2 == 0, None if i % 7 == 0 else True] for i in range(40)
    }
    cand = {case: [not reps[0], reps[1], False] for case, reps in base.items()}
    in_order = compare(*_pair(run_writer, base, cand), default_spec())
    shuffled = [list(reversed(passfail_rows(verdicts))) for verdicts in (base, cand)]
    shuffled[1] = shuffled[1][1::2] + shuffled[1][::2]
    again = compare(
        load_run(run_writer("shuffled-b", shuffled[0])),
        load_run(run_writer("shuffled-c", shuffled[1])),
        default_spec(),
    )
    assert again.cases["case"].to_list() == sorted(base)
    assert again.cases.equals(in_order.cases)
    assert again.result.cells == in_order.result.cells
    assert again.cases.row(0, named=True)["base_pattern"] == [False, True, None]


@settings(max_examples=30)
@given(PAIRED_SUITES, st.data())
def test_any_row_order_gives_the_same_comparison(
    tmp_path_factory: pytest.TempPathFactory, suite: PairedSuite, data: st.DataObject
) -> None:
    folder = tmp_path_factory.mktemp("order")
    spec = replace(default_spec(), infra_max_share=1.0)
    comparisons = {}
    for order in ("case by case", "shuffled"):
        arms: list[Run] = []
        for arm in (0, 1):
            rows = passfail_rows({case: suite[case][arm] for case in sorted(suite)})
            if order == "shuffled":
                rows = data.draw(st.permutations(rows))
            arms.append(load_run(write_run(folder / f"{order}-{arm}", rows)))
        comparisons[order] = compare(arms[0], arms[1], spec)
    ordered, shuffled = comparisons["case by case"], comparisons["shuffled"]
    assert shuffled.cases.equals(ordered.cases)
    assert (shuffled.result.cells, shuffled.result.flipped, shuffled.result.unpaired) == (
        ordered.result.cells,
        ordered.result.flipped,
        ordered.result.unpaired,
    )


def test_large_flip_counts_use_the_float_tail_and_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    import flipgate.core.gate.mcnemar as gate

    exact = [mcnemar_p(b, c) for b, c in ((30, 20), (260, 240), (5153, 5190))]
    monkeypatch.setattr(gate, "EXACT_FLIPS", 10)
    assert [mcnemar_p(b, c) for b, c in ((30, 20), (260, 240), (5153, 5190))] == pytest.approx(
        exact, rel=1e-12
    )
    assert exact[0] == pytest.approx(float(brute_p(30, 20)), rel=1e-15)


def test_past_the_exact_sums_p_is_scipy_stats_binomial_tail() -> None:
    """Past `EXACT_FLIPS`, p and the mid-p are sums of binomial terms in floats (no scipy on the
    gate's path): scipy's binomial tail, used here as a reference, to 1e-11 of p."""
    from scipy.stats import binom

    for b, c in ((50_300, 49_700), (501_000, 499_000), (52_000, 48_000), (10_100, 10_000)):
        assert mcnemar_p(b, c) == pytest.approx(float(binom.sf(b - 1, b + c, 0.5)), rel=1e-11)
        mid = float(binom.sf(b, b + c, 0.5) + binom.pmf(b, b + c, 0.5) / 2)
        assert mcnemar_mid_p(b, c) == pytest.approx(mid, rel=1e-11)


def test_a_long_flaky_list_answers_each_case_from_one_index() -> None:
    # 20,000 lookups in 20,000 entries: a scan per lookup would take minutes.
    entries = tuple(
        FlakyEntry(f"case-{i:05d}", "qa", date(2026, 1, 1), "r", "e") for i in range(20_000)
    )
    flaky = FlakyList(entries)
    assert [flaky.entry(e.case) for e in entries] == list(entries)
    assert flaky.entry("case-x") is None
    assert flaky.cases == {e.case for e in entries}
