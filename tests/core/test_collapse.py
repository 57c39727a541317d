"""The collapse per case and arm (SPEC §3.1) against the rule written the plain way: each case's
repetitions gathered in a dict, in rep order, and counted one by one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate.collapse import collapse
from flipgate.core.gate.outcomes import SEVERITY
from flipgate.core.gate.spec import default_spec
from flipgate.core.vocab import Aggregate

REPS_SCHEMA = {
    "case": pl.String,
    "rep": pl.Int64,
    "status": pl.String,
    "safety": pl.Boolean,
    "template": pl.String,
    "passed": pl.Boolean,
    "decisions": pl.UInt32,
    "wrong": pl.UInt32,
    "worst_rank": pl.Int8,
    "cost": pl.Float64,
}


@st.composite
def rep_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Repetitions of a few cases, each with its reps numbered from 0, in any row order."""
    rows = []
    for case in draw(st.sets(st.text("ab1", min_size=1, max_size=3), max_size=8)):
        safety = draw(st.booleans())
        for rep in range(draw(st.integers(1, 5))):
            infra = draw(st.integers(0, 4)) == 0
            decisions = draw(st.integers(0, 4))
            rows.append(
                {
                    "case": case,
                    "rep": rep,
                    "status": "infra" if infra else "ok",
                    "safety": safety,
                    "template": draw(st.sampled_from([None, "t1", "t2"])),
                    "passed": None if infra else draw(st.booleans()),
                    "decisions": decisions,
                    "wrong": draw(st.integers(0, decisions)),
                    "worst_rank": draw(st.integers(0, len(SEVERITY))),
                    "cost": float(draw(st.integers(0, 400))),
                }
            )
    return draw(st.permutations(rows))


def plain_collapse(rows: list[dict[str, Any]], aggregate_safety: str) -> list[dict[str, Any]]:
    by_case: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: r["rep"]):
        by_case.setdefault(row["case"], []).append(row)
    cases = []
    for case in sorted(by_case):
        reps = by_case[case]
        gradable = [r for r in reps if r["status"] == "ok"]
        passes = sum(r["passed"] for r in gradable)
        templates = [r["template"] for r in reps if r["template"] is not None]
        worst = min(r["worst_rank"] for r in reps)
        safety = reps[0]["safety"]
        if not gradable:
            passed = None
        elif safety and aggregate_safety == "all":
            passed = passes == len(gradable)
        else:
            passed = 2 * passes > len(gradable)
        cases.append(
            {
                "case": case,
                "safety": safety,
                "template": templates[0] if templates else None,
                "x_reps": len(reps),
                "x_infra": len(reps) - len(gradable),
                "x_gradable": len(gradable),
                "x_passes": passes,
                "x_pattern": [r["passed"] for r in reps],
                "x_decisions": sum(r["decisions"] for r in reps),
                "x_wrong": sum(r["wrong"] for r in reps),
                "x_worst": SEVERITY[worst] if worst < len(SEVERITY) else None,
                "x_cost": sum(r["cost"] for r in reps),
                "x_passed": passed,
            }
        )
    return cases


@settings(max_examples=200)
@given(rep_tables(), st.sampled_from(["all", "majority"]))
def test_collapse_is_the_plain_count_of_each_case_s_repetitions(
    rows: list[dict[str, Any]], aggregate_safety: Aggregate
) -> None:
    spec = replace(default_spec(), aggregate_safety=aggregate_safety)
    reps = pl.DataFrame(rows, schema=REPS_SCHEMA)
    cases = collapse(reps, spec, "x")
    assert cases.to_dicts() == plain_collapse(rows, aggregate_safety)
    assert cases["case"].is_sorted()


def test_a_run_with_no_repetition_collapses_to_no_case() -> None:
    cases = collapse(pl.DataFrame(schema=REPS_SCHEMA), default_spec(), "x")
    assert cases.is_empty()
    assert cases.schema["x_pattern"] == pl.List(pl.Boolean)
