"""The verdict's table of rules (SPEC §3.5): its order, and the first rule that fires deciding."""

from __future__ import annotations

from dataclasses import replace

import pytest

from flipgate.core.gate.rules import BY_NAME, RULES, Evidence, decide
from flipgate.core.vocab import GATE_RULES
from flipgate.present.report import found

QUIET = Evidence(
    cells={"both_pass": 90, "both_fail": 5, "pass_to_fail": 3, "fail_to_pass": 2},
    p=0.5,
    p_by="case",
    alpha=0.05,
    margin=2,
    flip_cap=10,
    safety_failures=(),
    invalid_reasons=(),
    limit_breaches=(),
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
            invalid_reasons=("stale baseline",),
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
        replace(QUIET, invalid_reasons=("first reason", "second"), p=0.01),
        "invalid",
        "INVALID: first reason",
    ),
    (
        replace(QUIET, cells=flips(9, 1), p=0.0107, limit_breaches=("3 false negatives",)),
        "significance",
        "BLOCK: 9 cases broke, 1 was fixed; p = 0.011 <= 0.05",
    ),
    (
        replace(QUIET, limit_breaches=("3 false negatives, above the baseline's 1",)),
        "outcome_limit",
        "BLOCK: 3 false negatives, above the baseline's 1",
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
    rule, said = decide(found)
    assert (rule.name, said) == (name, summary)
    assert said.startswith(rule.verdict + ": ")


def test_p_equal_to_alpha_is_significant() -> None:
    rule, _ = decide(replace(QUIET, cells=flips(5, 0), p=0.05))
    assert rule.name == "significance"


def test_the_reports_list_what_each_rule_found_in_the_table_s_order() -> None:
    everything = replace(
        QUIET,
        limit_breaches=("3 false negatives",),
        invalid_reasons=("stale baseline", "infra"),
        safety_failures=("s1",),
    )
    assert [(rule.name, heading, items) for rule, heading, items in found(everything)] == [
        ("safety", "safety failures", ("s1",)),
        ("invalid", "invalid", ("stale baseline", "infra")),
        ("outcome_limit", "outcome limit", ("3 false negatives",)),
    ]
    assert list(found(QUIET)) == []
