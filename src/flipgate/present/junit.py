"""The gate result as JUnit XML (`--format junit`), the test report GitLab and Jenkins show.

One `testcase` per case of either run, named by its case id:

- a `failure` for a case that broke (pass -> fail) and for a failed safety case;
- `error` for a case its run lacks repetitions of (the run did not finish, or they are missing):
  the test did not run, and the comparison is INVALID (or, with `--allow-partial`, at best
  INCONCLUSIVE) for it;
- `skipped` for a flaky-listed case and for any other case left out of the cells (new, deleted,
  no gradable repetition, excluded), with its state in the case ledger and why;
- nothing for the rest: passing, fixed, or failing in both arms (not this change's doing).

A failure's message gives the direction and the worst outcome; its text, the case's result rule
by rule: how many gradable repetitions each arm passed, and the worst outcome there. One more
testcase, `verdict`, fails unless the gate says PASS: a dashboard that counts only the cases would
show green for an INVALID comparison or a blown budget. The verdict, rule, b, c and p (and the
runs, digests and budgets) are `testsuite` properties. The tree is built from the values as they
are, then made safe whole, every attribute and text at once (`present.text.xml_safe`): control
characters shown, not obeyed, and nothing XML 1.0 cannot hold.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import polars as pl

from flipgate.core.gate.collapse import PREFIX
from flipgate.core.gate.compare import Comparison
from flipgate.core.gate.invalid import PARTIAL
from flipgate.core.gate.outcomes import SEVERITY, severity_name
from flipgate.core.vocab import ARMS, CASE_STATES
from flipgate.present.reasons import sentence, summary
from flipgate.present.reasons.ledger import STATE_WORDS
from flipgate.present.report import DIRECTION_WORDS
from flipgate.present.text import xml_safe


def to_junit(comparison: Comparison) -> str:
    """The whole report, an XML document with its declaration, ending in a newline."""
    result = comparison.result
    cases = comparison.cases
    failing = pl.col("cell").eq("pass_to_fail") & ~pl.col("listed")
    if result.safety_failures:
        failing = failing | pl.col("case").is_in(list(result.safety_failures))
    failures = cases.filter(failing)
    details = _rule_results(comparison, failures["case"].to_list())

    suite = ET.Element("testsuite", name=f"flipgate gate {result.suite}")
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(comparison):
        ET.SubElement(properties, "property", name=name, value=str(value))
    classname = f"flipgate.{result.suite}"
    skipped = errors = 0
    failure_rows = {row["case"]: row for row in failures.iter_rows(named=True)}
    left_out = result.unpaired_by_case
    for case, listed, state in cases.select("case", "listed", "unpaired").iter_rows():
        element = ET.SubElement(suite, "testcase", name=case, classname=classname)
        element.set("time", "0")
        if case in failure_rows:
            row = failure_rows[case]
            safety = case in result.safety_failures
            broke = DIRECTION_WORDS["pass_to_fail"] if row["cell"] == "pass_to_fail" else None
            what = ", ".join(w for w in ("safety case failed" if safety else None, broke) if w)
            worst = row["cand_worst"]
            worst = "a failed check" if worst in (None, SEVERITY[-1]) else worst
            failure = ET.SubElement(
                element,
                "failure",
                type="safety" if safety else "pass_to_fail",
                message=f"{what}; worst outcome in the candidate: {worst}",
            )
            failure.text = details.get(case, "")
        elif state in PARTIAL:
            errors += 1
            why = f"{STATE_WORDS[state]}: {sentence(left_out[case])}"
            ET.SubElement(element, "error", type=state, message=why)
        elif listed or state is not None:
            skipped += 1
            why = (
                f"{STATE_WORDS[state]}: {sentence(left_out[case])}"
                if state is not None
                else "on the flaky list: left out of b and c"
            )
            ET.SubElement(element, "skipped", message=why)
    verdict = ET.SubElement(suite, "testcase", name="verdict", classname="flipgate")
    verdict.set("time", "0")
    if result.verdict != "PASS":
        failed = ET.SubElement(verdict, "failure", type=result.verdict, message=summary(result))
        found = (*result.invalid_reasons, *result.limit_breaches, *result.warnings)
        failed.text = "\n".join(sentence(reason) for reason in found)
    suite.set("tests", str(cases.height + 1))
    suite.set("failures", str(len(failure_rows) + (result.verdict != "PASS")))
    suite.set("errors", str(errors))
    suite.set("skipped", str(skipped))
    suite.set("time", "0")
    root = ET.Element("testsuites", name="flipgate")
    root.append(suite)
    ET.indent(xml_safe(root))
    return "<?xml version='1.0' encoding='utf-8'?>\n" + ET.tostring(root, encoding="unicode") + "\n"


def _properties(comparison: Comparison) -> list[tuple[str, object]]:
    result = comparison.result
    properties: list[tuple[str, object]] = [
        ("verdict", result.verdict),
        ("rule", result.rule),
        ("summary", summary(result)),
        ("b", result.b),
        ("c", result.c),
        ("p", repr(result.p)),
        ("alpha", result.alpha),
        ("margin", result.margin),
        ("flip_cap", result.flip_cap),
        *((f"{arm}.run_id", comparison.run(arm).run_id) for arm in ARMS),
        ("spec_digest", result.spec_digest),
        ("flaky.size", len(result.flaky_listed)),
        ("allow_partial", str(result.allow_partial).lower()),
    ]
    for arm, ledger in result.ledger.arms.items():
        properties.append((f"ledger.{arm}.cases", ledger.cases))
        properties += [(f"ledger.{arm}.{state}", ledger.states[state]) for state in CASE_STATES]
    properties += [
        (f"budget.{check.budget.metric}.{check.budget.stat}", sentence(check))
        for check in result.budgets
    ]
    return properties


def _rule_results(comparison: Comparison, cases: list[str]) -> dict[str, str]:
    """case -> one line per rule: each arm's passing repetitions and worst outcome there."""
    if not cases:
        return {}
    fail_on = list(comparison.spec.fail_on)
    parts = []
    for arm in ARMS:
        run = comparison.run(arm)
        gradable = comparison.reps[arm].filter(pl.col("status") == "ok").select("line")
        decided = comparison.decisions[arm].filter(pl.col("case").is_in(cases))
        checked = run.checks.filter(pl.col("case").is_in(cases)).join(gradable, on="line")
        parts.append(
            pl.concat(
                [
                    decided.select(
                        "case",
                        "rule",
                        (~pl.col("outcome").cast(pl.String).is_in(fail_on)).alias("ok"),
                        pl.col("outcome").to_physical().cast(pl.Int64).alias("rank"),
                    ),
                    checked.select(
                        "case",
                        "rule",
                        pl.col("passed").alias("ok"),
                        pl.lit(None, pl.Int64).alias("rank"),
                    ),
                ]
            )
            .group_by("case", "rule")
            .agg(
                pl.col("ok").sum().alias(f"{PREFIX[arm]}_ok"),
                pl.len().alias(f"{PREFIX[arm]}_n"),
                severity_name(pl.col("rank").min()).alias(f"{PREFIX[arm]}_worst"),
            )
        )
    rules = (
        parts[0].join(parts[1], on=["case", "rule"], how="full", coalesce=True).sort("case", "rule")
    )
    lines: dict[str, list[str]] = {}
    for row in rules.iter_rows(named=True):
        sides = []
        for arm in ARMS:
            n = row[f"{PREFIX[arm]}_n"]
            if n is None:
                sides.append(f"{arm}: not graded")
                continue
            worst = row[f"{PREFIX[arm]}_worst"]
            shown = f", worst {worst}" if worst not in (None, SEVERITY[-1]) else ""
            sides.append(f"{arm} {row[f'{PREFIX[arm]}_ok']}/{n} passed{shown}")
        lines.setdefault(row["case"], []).append(f"{row['rule']}: {'; '.join(sides)}")
    return {case: "\n".join(found) for case, found in lines.items()}
