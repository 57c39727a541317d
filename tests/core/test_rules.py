"""The verdict's table of rules (SPEC §3.5): its order, and the first rule that fires deciding."""

from __future__ import annotations

from dataclasses import replace

import pytest

from flipgate.core.gate.bounds import never_event
from flipgate.core.gate.budgets import BudgetCheck
from flipgate.core.gate.evidence import FalseNegativeMax
from flipgate.core.gate.invalid import InfraShare, RunNotFinished, StaleBaseline
from flipgate.core.gate.rules import BY_NAME, RULES, Evidence, decide
from flipgate.core.gate.spec import Budget
from flipgate.core.runs.key import Component
from flipgate.core.vocab import GATE_RULES
from flipgate.present.reasons import verdict_line
from flipgate.present.report import found

STALE = StaleBaseline((Component("judge", "j1", "j2"),), ())
INFRA = InfraShare("candidate", 0.2, 2, 10, 0.05)
FALSE_NEGATIVES = FalseNegativeMax(3, 1)
KILLED = RunNotFinished("candidate", "NSphd", "killed.eval", "started", None, 24, 14, 8, 6)
LATENCY = BudgetCheck(
    Budget("latency_ms", "p95", max=None, max_increase=0.10), 1197.0, 1412.0, 1316.7, True
)
SHORT = never_event(120, 0, alpha=0.05, max_rate=0.01)
COST = BudgetCheck(
    Budget("cost_usd", "mean", max=0.004, max_increase=None), None, 0.0046, 0.004, True
)

QUIET = Evidence(
    cells={"both_pass": 90, "both_fail": 5, "pass_to_fail": 3, "fail_to_pass": 2},
    p=0.5,
    p_by="case",
    alpha=0.05,
    margin=2,
    flip_cap=10,
    safety_failures=(),
    invalid_reasons=(),
    partial_reasons=(),
    limit_breaches=(),
    budget_breaches=(),
)


def flips(b: int, c: int) -> dict[str, int]:
    return {"both_pass": 0, "both_fail": 0, "pass_to_fail": b, "fail_to_pass": c}


def test_the_table_holds_spec_3_5_in_order() -> None:
    assert (
        tuple(rule.name for rule in RULES)
        == GATE_RULES
        == (
            "safety",
            "invalid",
            "significance",
            "outcome_limit",
            "budget",
            "partial",
            "safety_bound",
            "within_margin",
            "undecided",
        )
    )
    assert [rule.number for rule in RULES] == list(range(1, len(RULES) + 1))
    assert [BY_NAME[name].verdict for name in GATE_RULES] == [
        "BLOCK",
        "INVALID",
        "BLOCK",
        "BLOCK",
        "BLOCK",
        "INCONCLUSIVE",
        "INCONCLUSIVE",
        "PASS",
        "INCONCLUSIVE",
    ]


# Each row: the evidence, the rule that decides, the summary it gives. Every row but the last
# would also fire every later rule, so each shows that the earlier rule wins.
CASES = [
    (
        replace(
            QUIET,
            safety_failures=("s1", "s2"),
            invalid_reasons=(STALE,),
            p=0.01,
        ),
        "safety",
        "BLOCK: safety cases failed (s1, s2)",
    ),
    (
        replace(QUIET, safety_failures=tuple(f"s{i}" for i in range(7))),
        "safety",
        "BLOCK: safety cases failed (s0, s1, s2, s3, s4 ...)",
    ),
    (
        replace(QUIET, invalid_reasons=(INFRA, STALE), p=0.01),
        "invalid",
        "INVALID: infra failures are 20.0% of the candidate's repetitions (2 of 10), above the "
        "5% allowed",
    ),
    (
        replace(QUIET, cells=flips(9, 1), p=0.0107, limit_breaches=(FALSE_NEGATIVES,)),
        "significance",
        "BLOCK: 9 cases broke, 1 was fixed; p = 0.011 <= 0.05",
    ),
    (
        replace(
            QUIET,
            limit_breaches=(FALSE_NEGATIVES,),
            budget_breaches=(COST,),
        ),
        "outcome_limit",
        "BLOCK: 3 false negatives, above the limit of 1",
    ),
    (
        replace(
            QUIET,
            budget_breaches=(LATENCY,),
        ),
        "budget",
        "BLOCK: latency_ms p95 1,412 ms is 18% above the baseline's 1,197 ms, budget +10%",
    ),
    (
        replace(QUIET, budget_breaches=(LATENCY,), partial_reasons=(KILLED,)),
        "budget",
        "BLOCK: latency_ms p95 1,412 ms is 18% above the baseline's 1,197 ms, budget +10%",
    ),
    (
        replace(QUIET, cells=flips(1, 0), p=0.5, partial_reasons=(KILLED,), safety_short=(SHORT,)),
        "partial",
        "INCONCLUSIVE: the candidate run killed.eval (run NSphd) did not finish (started): 14 of "
        "its 24 repetitions never ran, in 6 of its 8 cases; gated partial by choice "
        "(--allow-partial), never PASS: 1 case broke, 0 were fixed of the 1 case counted",
    ),
    (
        replace(QUIET, cells=flips(1, 0), p=0.5, safety_short=(SHORT,)),
        "safety_bound",
        "INCONCLUSIVE: 120 safety cases, 120 passing every repetition: the failure rate is at "
        "most 2.47% at 95% (Clopper-Pearson), above the 1% asked: 179 more, all passing, would "
        "support it (299 in all)",
    ),
    # seed 001's worked example at the first look, which spends half of alpha
    (
        replace(QUIET, cells=flips(10, 2), p=79 / 4096, boundary=0.025),
        "significance",
        "BLOCK: 10 cases broke, 2 were fixed; p = 0.019 <= 0.025",
    ),
    (
        replace(QUIET, cells=flips(10, 2), p=0.02, boundary=0.0125, look=2),
        "undecided",
        "INCONCLUSIVE: 10 cases broke, 2 were fixed; p = 0.020 > 0.0125 (look 2), but net 8 > "
        "margin 2",
    ),
    # never "p = 0.050 > 0.05"
    (
        replace(QUIET, cells=flips(6, 1), p=0.0503),
        "undecided",
        "INCONCLUSIVE: 6 cases broke, 1 was fixed; p = 0.0503 > 0.05, but net 5 > margin 2",
    ),
    (
        replace(QUIET, cells=flips(1, 0), p=0.5),
        "within_margin",
        "PASS: 1 case broke, 0 were fixed; net 1 <= margin 2, 1 <= flip cap 10",
    ),
    (
        replace(QUIET, cells=flips(6, 2), p=0.14),
        "undecided",
        "INCONCLUSIVE: 6 cases broke, 2 were fixed; p = 0.140 > 0.05, but net 4 > margin 2",
    ),
    (
        replace(QUIET, cells=flips(11, 10), flip_cap=10, p=0.5),
        "undecided",
        "INCONCLUSIVE: 11 cases broke, 10 were fixed; p = 0.500 > 0.05, but 11 > flip cap 10",
    ),
]


@pytest.mark.parametrize(("found", "name", "summary"), CASES)
def test_the_first_rule_that_fires_decides(found: Evidence, name: str, summary: str) -> None:
    """The rule is the core's; the line that says it, the presentation's."""
    rule = decide(found)
    assert rule.name == name
    assert verdict_line(found, rule.name) == summary


def test_p_equal_to_alpha_is_significant() -> None:
    assert decide(replace(QUIET, cells=flips(5, 0), p=0.05)).name == "significance"


def test_the_reports_list_what_each_rule_found_in_the_table_s_order() -> None:
    everything = replace(
        QUIET,
        limit_breaches=(FALSE_NEGATIVES,),
        invalid_reasons=(STALE, INFRA),
        safety_failures=("s1",),
    )
    assert [(f.rule.name, f.heading, f.reasons, f.cases) for f in found(everything)] == [
        ("safety", "safety failures", (), ("s1",)),
        ("invalid", "invalid", (STALE, INFRA), ()),
        ("outcome_limit", "outcome limit", (FALSE_NEGATIVES,), ()),
    ]
    assert list(found(QUIET)) == []
