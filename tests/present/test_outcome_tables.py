"""The outcome table and the outcome limits at their edges (issue 26): halves and millions in the
prices, an escalation budget of a half percent, exactly at a limit, the mirrors named by renamed
labels, and the reconciliation printed whole."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.evidence import (
    EscalationsMaxPerRun,
    InconclusiveMaxShare,
    MirrorApprovedMax,
)
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run, run_from_records
from flipgate.present.reasons import gate_words, sentence
from flipgate.present.report import to_json, to_markdown, to_text
from tests.conftest import SAMPLES

LISTING = SAMPLES / "listing-reviewer"


def spec_from(tmp_path: Path, settings: dict[str, Any]) -> GateSpec:
    path = tmp_path / "gate.yaml"
    path.write_text(yaml.safe_dump(settings))
    return load_spec(path)


def listing(tmp_path: Path, settings: dict[str, Any]) -> Comparison:
    """The sample's runs under its gate.yaml, with the outcome settings of `settings` over it."""
    sample = yaml.safe_load((LISTING / "gate.yaml").read_text())
    given = settings.get("outcomes", {})
    limits = {**sample["outcomes"]["limits"], **given.get("limits", {})}
    outcomes = {**sample["outcomes"], **given, "limits": limits}
    spec = spec_from(tmp_path, {**sample, "outcomes": outcomes})
    return compare(load_run(LISTING / "baseline"), load_run(LISTING / "candidate"), spec)


def text_of(comparison: Comparison) -> str:
    console = Console(width=200, record=True, color_system=None, force_terminal=False)
    console.print(to_text(comparison))
    return console.export_text()


def row(*cells: str) -> str:
    """A row of a text table, its cells between rules and padding."""
    return r" *│ *".join(re.escape(cell) for cell in cells)


def test_prices_with_halves_and_millions_print_exactly(tmp_path: Path) -> None:
    """2 false negatives at 1,500,000, 3 false positives at 15.5, 30 inconclusive at 4.25 and 3
    mirrors rejecting at 15.5: each cost as it is, and the column adds up to the total."""
    prices = {"false_negative": 1_500_000, "false_positive": 15.5, "inconclusive": 4.25}
    comparison = listing(tmp_path, {"outcomes": {"prices": prices}})
    text = text_of(comparison)
    assert re.search(row("false negative", "1,500,000", "9", "13,500,000", "2", "3,000,000"), text)
    assert re.search(row("false positive", "15.5", "4", "62", "3", "46.5", "-1"), text)
    assert re.search(row("inconclusive", "4.25", "8", "34", "30", "127.5", "+22"), text)
    assert re.search(row("decided reject", "15.5", "0", "0", "3", "46.5", "+3"), text)
    assert re.search(row("cost", "", "", "13,500,096", "", "3,000,220.5", "-10,499,875.5"), text)
    assert "e+0" not in text
    cand = comparison.result.outcomes["candidate"]
    assert cand.cost == sum(cand.cost_by_outcome.values()) == 3_000_220.5
    markdown = to_markdown(comparison)
    assert "| false positive | 15.5 | 4 | 62 | 3 | 46.5 | -1 |" in markdown
    assert (
        "| **cost** |  |  | **13,500,096** |  | **3,000,220.5** | **-10,499,875.5** |" in markdown
    )
    data = to_json(comparison)["outcomes"]["candidate"]
    assert data["cost_by_outcome"] == {
        "agreement": 0,
        "false_negative": 3_000_000,
        "false_positive": 46.5,
        "inconclusive": 127.5,
        "mirror": 46.5,
    }


@pytest.mark.parametrize(
    ("budget", "verdict", "words"),
    [
        (0.065, "PASS", "inconclusive at most 6.5% of decisions"),  # printed "at most 6%" before
        (0.0625, "PASS", "inconclusive at most 6.25% of decisions"),  # exactly at it: inclusive
        (0.055, "BLOCK", "inconclusive at most 5.5% of decisions"),  # printed "6%" and blocked
    ],
)
def test_an_escalation_budget_is_said_and_applied_as_written(
    tmp_path: Path, budget: float, verdict: str, words: str
) -> None:
    """The candidate escalates 30 of its 480 decisions: 6.25%."""
    result = listing(tmp_path, {"outcomes": {"limits": {"inconclusive_max_share": budget}}}).result
    assert result.verdict == verdict
    assert words in gate_words(
        spec_from(tmp_path, {"outcomes": {"limits": {"inconclusive_max_share": budget}}})
    )
    if verdict == "BLOCK":
        assert result.limit_breaches == (InconclusiveMaxShare(30 / 480, budget, 30, 480),)
        assert sentence(result.limit_breaches[0]) == (
            "inconclusive decisions are 6.3% of the candidate's (30 of 480), above the 5.5% budget"
        )


def test_a_budget_one_decision_under_blocks(tmp_path: Path) -> None:
    """29 of 480 allowed (0.0604...), 30 found: the share is printed past the budget's digits."""
    limits = {"inconclusive_max_share": 0.0625 - 1 / 480}
    result = listing(tmp_path, {"outcomes": {"limits": limits}}).result
    assert result.verdict == "BLOCK"


# --------------------------------------------------------------------------- seed 000's limits


def labelled(run_id: str, actual: dict[str, str], reps: int = 1) -> Run:
    """Ten listings, rule `p` expected escalate, rule `r` expected approve."""
    rows = [
        {
            "case": f"l{i}",
            "rep": rep,
            "expected": {"p": "escalate", "r": "approve"},
            "actual": {"p": actual.get(f"l{i}", "escalate"), "r": "approve"},
        }
        for i in range(10)
        for rep in range(reps)
    ]
    return run_from_records({"run_id": run_id, "key": {"model": "m"}}, rows, source=Path(run_id))


def test_confident_approvals_of_borderline_items_at_most_the_baselines_per_rule(
    tmp_path: Path,
) -> None:
    """`mirror_approved_max: baseline` tests each rule's excess against the noise, as the false
    negatives' limit does: one approval more than the baseline's is within it (the count alone
    blocked it, and blocked half the no-change pairs: bench/simulate_mirror.py); seven cases
    approving where the baseline's escalated are beyond it, at the rule's Holm share of the
    first look beside the flips (0.0125), p = 2^-7."""
    base = labelled("b", {"l0": "approve"})
    at_it = labelled("c", {"l1": "approve"})
    one_more = labelled("c", {"l1": "approve", "l2": "approve"})
    above = labelled("c", {f"l{i}": "approve" for i in range(8)})
    spec = spec_from(
        tmp_path,
        {
            "outcomes": {
                "fail_on": ["false_negative"],
                "limits": {"mirror_approved_max": "baseline", "false_negative_max": None},
            }
        },
    )
    assert compare(base, at_it, spec).result.verdict == "PASS"
    within = compare(base, one_more, spec).result
    assert within.verdict == "PASS"
    assert within.family is not None
    assert [(path.kind, path.metric) for path in within.family.paths] == [
        ("significance", None),
        ("mirror_approved", "p"),  # rule r has no borderline item: no path
    ]
    assert within.family.paths[1].p == 0.5  # +1 -1 +1 over their 2^3 signs: P(S >= 1)
    result = compare(base, above, spec).result
    assert (result.verdict, result.rule) == ("BLOCK", "outcome_limit")
    # 8 against 1: l0 approved in both arms, so the excess is l1..l7's +7; the noise reaches +5
    # (one sign of seven turned: 8/128 > 0.0125)
    breach = MirrorApprovedMax("p", 8, 1, True, "approve", 2**-7, 5, 0.0125, "case")
    assert result.limit_breaches == (breach,)
    assert sentence(breach) == (
        "8 borderline items decided approve with confidence on p (a person should have looked) "
        "against the baseline's 1 on matched repetitions (+7): beyond the noise, which reaches "
        "+5 at 98.8% (p 0.008)"
    )
    # a confident rejection of a borderline item is not an approval: no limit on it here
    rejected = labelled("c", {f"l{i}": "reject" for i in range(1, 8)})
    assert compare(base, rejected, spec).result.verdict == "PASS"
    assert "confident approvals of borderline items at most the baseline's on each rule" in (
        gate_words(spec)
    )


def test_the_reviewers_queue_is_counted_per_repetition(tmp_path: Path) -> None:
    """Ten escalations a repetition, right ones included, over three repetitions: a queue of 10
    a run, 30 in all."""
    base = labelled("b", {}, reps=3)
    spec = spec_from(tmp_path, {"outcomes": {"limits": {"escalations_max_per_run": 10}}})
    result = compare(base, labelled("c", {}, reps=3), spec).result
    assert result.verdict == "PASS"  # exactly at the queue's size
    cand = result.outcomes["candidate"]
    assert (cand.escalated, cand.queue, cand.repetitions) == (30, 10, 3)
    tighter = spec_from(tmp_path, {"outcomes": {"limits": {"escalations_max_per_run": 9}}})
    blocked = compare(base, labelled("c", {}, reps=3), tighter).result
    assert blocked.limit_breaches == (EscalationsMaxPerRun(10, 9, 3),)
    assert sentence(blocked.limit_breaches[0]) == (
        "10 decisions escalated to a person in the repetition that escalated the most, above "
        "the reviewers' queue of 9 a run"
    )


# --------------------------------------------------------------------------- words


def renamed(run_id: str, actual: str) -> Run:
    rows = [
        {"case": "c1", "rep": 0, "expected": {"p": "review"}, "actual": {"p": actual}},
        {"case": "c2", "rep": 0, "expected": {"p": "block"}, "actual": {"p": "block"}},
    ]
    labels = {"negative": "allow", "positive": "block", "abstain": "review"}
    return run_from_records(
        {"run_id": run_id, "key": {"model": "m"}, "labels": labels}, rows, source=Path(run_id)
    )


def test_renamed_labels_name_the_mirrors(tmp_path: Path) -> None:
    comparison = compare(renamed("b", "review"), renamed("c", "allow"), load_spec(None))
    text = text_of(comparison)
    assert "decided allow" in text and "decided block" in text
    assert '"allow" is priced as a false negative' in text
    assert "approved" not in text and "FN / FP" not in text
    assert "decided allow" in to_markdown(comparison)
    assert to_json(comparison)["labels"] == {
        "negative": "allow",
        "positive": "block",
        "abstain": "review",
    }


def test_the_reconciliation_is_printed_whole(tmp_path: Path) -> None:
    """Seed 000's new model: 94 agreements inside red cases, 348 decisions in green cases."""
    comparison = compare(
        load_run(LISTING / "baseline"),
        load_run(LISTING / "candidate"),
        load_spec(LISTING / "gate.yaml"),
    )
    text = text_of(comparison)
    assert re.search(row("in green cases", "404", "348"), text)
    assert re.search(row("agreements in red cases", "55", "94"), text)
    assert re.search(row("holding 3 wrong decisions", "0", "1"), text)
    assert re.search(row("failing by the gate's rule", "13", "8"), text)
    assert "a red case holds at least one wrong decision" in text
    markdown = to_markdown(comparison)
    assert "| &nbsp;&nbsp;agreements in red cases | 55 | 94 |" in markdown
    data = to_json(comparison)["outcomes"]
    assert (
        data["candidate"]["decisions_in_green_cases"],
        data["candidate"]["agreements_in_red_cases"],
    ) == (348, 94)
    assert (data["baseline"]["failing_cases"], data["candidate"]["failing_cases"]) == (13, 8)


def test_misses_summed_over_repetitions_say_so() -> None:
    """One case with one rule, wrong on all three repetitions: a red case holding 3, summed."""
    rows = [
        {"case": "c1", "rep": rep, "expected": {"p": "reject"}, "actual": {"p": "approve"}}
        for rep in range(3)
    ]
    run = run_from_records({"run_id": "r", "key": {"model": "m"}}, rows, source=Path("r"))
    text = text_of(compare(run, run, load_spec(None)))
    assert "holding 3 wrong decisions over its repetitions" in text
