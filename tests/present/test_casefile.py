"""The case file on a hand-built comparison: which cases are red, filters, sort, search, the
drill-down data of one case, and the diff of two outputs."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import run_from_records
from flipgate.present.case_query import CaseQuery, choices, describe, select_cases
from flipgate.present.casefile import case_detail, failures_by_case, red_table
from flipgate.present.diff import side_by_side, unified_diff

A, R, E = "approve", "reject", "escalate"
OK = {"r1": A, "r2": A}
BAD = {"r1": R, "r2": A}


def _rows(case: str, expected: Any, actuals: list[Any], **fields: Any) -> list[dict[str, Any]]:
    return [
        {
            "case": case,
            "rep": rep,
            "expected": expected,
            "actual": actual,
            "output": f"{case}\n{rep}",
            **fields,
        }
        for rep, actual in enumerate(actuals)
    ]


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    base = [
        *_rows("c-flip", OK, [OK, OK, OK], template="t1", cost_usd=0.01),
        *_rows("c-fix", BAD, [OK, OK, BAD], template="t1"),
        *_rows("c-both", BAD, [{"r1": E, "r2": A}] * 3, template="t2"),
        *_rows("c-green", OK, [OK] * 3, template="t2"),
        *_rows("c-gone", OK, [OK] * 3),
        *_rows("c-safe", OK, [OK] * 3, safety=True),
        *_rows("c-listed", OK, [OK] * 3),
        *[_rows(f"g-{i:02d}", OK, [OK] * 3)[0] for i in range(20)],
    ]
    cand = [
        *_rows("c-flip", OK, [{"r1": R, "r2": A}, OK, {"r1": E, "r2": A}], template="t1", note="x"),
        *_rows("c-fix", BAD, [BAD] * 3, template="t1"),
        *_rows("c-both", BAD, [{"r1": E, "r2": A}, BAD, {"r1": A, "r2": A}], template="t2"),
        *_rows("c-green", OK, [OK] * 3, template="t2"),
        *_rows("c-safe", OK, [OK] * 3, safety=True),
        *_rows("c-listed", OK, [BAD, BAD, OK]),
        *[_rows(f"g-{i:02d}", OK, [OK] * 3)[0] for i in range(20)],
    ]
    cand[1] = {"case": "c-flip", "rep": 1, "status": "infra", "infra": "timeout", "template": "t1"}
    where = Path("mem")
    manifest = {"run_id": "b", "key": {"model": "m1"}}
    flaky = FlakyList(entries=(FlakyEntry("c-listed", "qa", date(2026, 1, 1), "", ""),))
    return compare(
        run_from_records(manifest, base, source=where),
        run_from_records({"run_id": "c", "key": {"model": "m1"}}, cand, source=where),
        default_spec(),
        flaky,
    )


def test_red_cases_are_flipped_failing_wrong_or_unpaired(comparison: Comparison) -> None:
    table = red_table(comparison)
    assert table["case"].to_list() == ["c-flip", "c-listed", "c-gone", "c-both", "c-fix"]
    row = table.row(0, named=True)
    assert row["direction"] == "↓ pass→fail"
    assert (row["base_pattern"], row["cand_pattern"]) == ("✓✓✓", "✗·✗")
    assert (row["base_wrong"], row["cand_wrong"]) == (0, 2)
    assert row["worst_shown"] == "false pos"  # rep 0 rejects an approve; rep 2 only escalates
    assert row["cost_shown"] == "+19"  # false positive 15 + inconclusive 4
    gone = table.filter(pl.col("case") == "c-gone").row(0, named=True)
    assert gone["direction"] == "unpaired: base only"
    assert gone["cand_pattern"] == "—"
    assert table.filter(pl.col("case") == "c-listed")["flaky_shown"].to_list() == ["listed"]


def test_filters_sort_and_search(comparison: Comparison) -> None:
    table = red_table(comparison)

    def cases(query: CaseQuery) -> list[str]:
        return select_cases(table, query)["case"].to_list()

    assert cases(CaseQuery.from_filter("pass_to_fail")) == ["c-flip", "c-listed"]
    assert cases(CaseQuery(kind="fail_to_pass")) == ["c-fix"]
    assert cases(CaseQuery(kind="both_fail")) == ["c-both"]
    assert cases(CaseQuery(kind="unpaired")) == ["c-gone"]
    assert cases(CaseQuery(flaky=True)) == ["c-listed"]
    assert cases(CaseQuery(safety=True)) == []
    assert cases(CaseQuery.from_filter("template:t2")) == ["c-both"]
    assert cases(CaseQuery(outcome="false_negative")) == ["c-both", "c-fix"]
    assert cases(CaseQuery(outcome="inconclusive", sort="case")) == ["c-both", "c-flip"]
    assert cases(CaseQuery(rule="r1", kind="pass_to_fail")) == ["c-flip", "c-listed"]
    assert cases(CaseQuery(search="FLI")) == ["c-flip"]
    assert cases(CaseQuery(sort="case")) == sorted(table["case"].to_list())
    assert cases(CaseQuery(sort="case", descending=True)) == sorted(table["case"].to_list())[::-1]
    assert cases(CaseQuery(sort="cost"))[0] == "c-both"  # +400 - 8: the biggest increase
    assert choices(table, "outcomes") == ("false_negative", "false_positive", "inconclusive")
    assert choices(table, "rules") == ("r1",)
    assert choices(table, "state") == ("paired", "deleted")  # in the ledger's order
    assert cases(CaseQuery.from_filter("state:deleted")) == ["c-gone"]
    assert cases(CaseQuery(state="paired", kind="pass_to_fail")) == ["c-flip", "c-listed"]
    assert cases(CaseQuery(diverged=frozenset({"c-fix", "elsewhere"}))) == ["c-fix"]
    with pytest.raises(ValueError, match="unknown filter"):
        CaseQuery.from_filter("bogus")
    with pytest.raises(ValueError, match="state:paired"):
        CaseQuery.from_filter("state:unheard")


def test_header_line_says_what_is_shown() -> None:
    assert (
        describe(CaseQuery(kind="pass_to_fail"), 10, 342) == "pass→fail · 10 of 342 cases to review"
    )
    assert describe(CaseQuery(), 342, 342) == "342 cases to review"
    assert describe(CaseQuery(), 9, 9, every=True) == "9 cases"
    assert (
        describe(CaseQuery(safety=True, search="x"), 0, 1) == "safety · “x” · 0 of 1 case to review"
    )


def test_drill_down_holds_every_rule_rep_and_arm(comparison: Comparison) -> None:
    detail = case_detail(comparison, "c-flip")
    assert detail.reps == (0, 1, 2)
    assert detail.collapsed == {"baseline": True, "candidate": False}
    r1 = next(line for line in detail.lines if line.rule == "r1")
    assert [v.outcome if v else None for v in r1.verdicts["candidate"]] == [
        "false_positive",
        None,  # the infra repetition has no decision
        "inconclusive",
    ]
    assert r1.wrong("candidate") == 2 and r1.wrong("baseline") == 0
    cand = detail.arms["candidate"]
    assert cand[1] is not None and cand[1].status == "infra" and cand[1].infra == "timeout"
    assert cand[0] is not None and cand[0].output == "c-flip\n0" and cand[0].extra == {"note": "x"}
    assert detail.metrics["baseline"]["cost_usd"] == pytest.approx(0.01)
    with pytest.raises(KeyError):
        case_detail(comparison, "no-such-case")


def test_diff_of_two_outputs() -> None:
    lines = unified_diff("a\nb\nc", "a\nB\nc\nd")
    assert [(d.tag, d.text) for d in lines] == [
        ("@", "@@ -1,3 +1,4 @@"),
        (" ", "a"),
        ("-", "b"),
        ("+", "B"),
        (" ", "c"),
        ("+", "d"),
    ]
    assert unified_diff("same", "same") == ()
    rows = side_by_side("a\nb", "a\nc\nd")
    assert [(r.tag, r.left, r.right) for r in rows] == [
        ("equal", "a", "a"),
        ("replace", "b", "c"),
        ("insert", None, "d"),
    ]


def test_every_case_on_request(comparison: Comparison) -> None:
    every = red_table(comparison, every=True)
    assert every.height == comparison.cases.height == 27
    assert set(red_table(comparison)["case"]) < set(every["case"])
    by_id = select_cases(every, CaseQuery(sort="case"))["case"].to_list()
    assert by_id == comparison.cases["case"].to_list()  # the paired table's natural order


def test_the_failures_found_once_make_the_same_lists(comparison: Comparison) -> None:
    """The app finds each case's wrong outcomes once for both its lists: the same tables."""
    failures = failures_by_case(comparison)
    for every in (False, True):
        found = red_table(comparison, every=every, failures=failures)
        assert found.equals(red_table(comparison, every=every))
