"""`--format junit`: valid against the JUnit schema Jenkins and GitLab read, one testcase per case."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from flipgate.cli import main
from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import run_from_records
from flipgate.present.junit import to_junit
from tests.conftest import SAMPLES, passfail_rows
from tests.importers.conftest import INSPECT

SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("junit-10.xsd"))


def junit(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, ET.Element]:
    code = main(["gate", *args, "--format", "junit"])
    out = capsys.readouterr().out
    SCHEMA.validate(out)
    return code, ET.fromstring(out)


def child(element: ET.Element, tag: str) -> ET.Element:
    """`element`'s `<tag>`, which the test expects there."""
    found = element.find(tag)
    assert found is not None, f"no <{tag}> in {element.get('name')!r}"
    return found


def attribute(element: ET.Element, name: str) -> str:
    value = element.get(name)
    assert value is not None, f"no {name}= on {element.get('name')!r}"
    return value


def text_of(element: ET.Element) -> str:
    assert element.text is not None, f"no text in {element.get('name')!r}"
    return element.text


def test_the_agent_suite_as_junit(capsys: pytest.CaptureFixture[str]) -> None:
    code, root = junit(capsys, str(SAMPLES / "agent-suite"))
    assert code == 3
    (suite,) = root
    properties = {attribute(p, "name"): attribute(p, "value") for p in suite.iter("property")}
    assert (properties["verdict"], properties["b"], properties["c"]) == ("INCONCLUSIVE", "9", "3")
    # by template (the default): 12 flips from 7 templates, the sign-flip p 1/4
    assert float(properties["p"]) == pytest.approx(0.25)
    cases = suite.findall("testcase")
    assert len(cases) == 201  # 200 cases and the verdict
    failed = {c.get("name"): child(c, "failure") for c in cases if c.find("failure") is not None}
    broke = {"case-012", "case-061", "case-062", "case-109", "case-127", "case-183"}
    assert broke < set(failed) and len(failed) == 9 + 1
    assert failed["verdict"].get("type") == "INCONCLUSIVE"
    assert (
        failed["case-062"].get("message")
        == "pass -> fail; worst outcome in the candidate: a failed check"
    )
    assert "task_completed: baseline 3/3 passed; candidate 0/3 passed" in text_of(
        failed["case-062"]
    )
    skipped = {
        c.get("name"): child(c, "skipped").get("message")
        for c in cases
        if c.find("skipped") is not None
    }
    assert skipped == {
        "case-005": "on the flaky list: left out of b and c",
        "case-047": "on the flaky list: left out of b and c",
    }
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("201", "10", "2")


def test_labelled_decisions_give_the_worst_outcome_rule_by_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, root = junit(capsys, str(SAMPLES / "listing-reviewer-decisive"))
    failures = [
        c
        for c in root.iter("testcase")
        if c.find("failure") is not None and c.get("name") != "verdict"
    ]
    assert len(failures) == 15
    message = attribute(child(failures[0], "failure"), "message")
    assert message.startswith("pass -> fail; worst outcome in the candidate: ")
    lines = text_of(child(failures[0], "failure")).splitlines()
    assert len(lines) == 4  # one per rule
    assert all("baseline 1/1 passed" in line or "worst" in line for line in lines)


def test_safety_failures_unpaired_cases_and_hostile_ids() -> None:
    hostile = "case-\x1b[31mred\x1b[0m <b>&amp;</b> \ufffe"
    base = passfail_rows(
        {"ok": [True], hostile: [True], "gone-infra": [True], "s": [True]}, safety=["s"]
    )
    cand = passfail_rows(
        {"ok": [True], hostile: [False], "gone-infra": [None], "s": [False]}, safety=["s"]
    )
    comparison = compare(
        run_from_records({"run_id": "b"}, base, source=Path("/b")),
        run_from_records({"run_id": "c"}, cand, source=Path("/c")),
        default_spec(),
    )
    text = to_junit(comparison)
    SCHEMA.validate(text)
    assert "\x1b" not in text and "<b>" not in text
    cases = {c.get("name"): c for c in ET.fromstring(text).iter("testcase")}
    assert child(cases["s"], "failure").get("type") == "safety"
    assert attribute(child(cases["s"], "failure"), "message").startswith(
        "safety case failed, pass -> fail"
    )
    assert (
        child(cases["gone-infra"], "skipped").get("message")
        == "all infra: no gradable candidate repetition"
    )
    assert "case-␛[31mred␛[0m <b>&amp;</b> \\ufffe" in cases  # as the terminal shows it
    assert child(cases["verdict"], "failure").get("type") == "BLOCK"


def test_a_pass_has_a_passing_verdict_testcase(capsys: pytest.CaptureFixture[str]) -> None:
    code, root = junit(capsys, str(SAMPLES / "listing-reviewer"))
    assert code == 0
    verdict = next(c for c in root.iter("testcase") if c.get("name") == "verdict")
    assert list(verdict) == []


def test_a_case_its_run_lacks_is_an_error_and_an_excluded_one_skipped_with_who(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A case not paired is never silently absent: the killed run's cases are errors (they did
    not run), the invalidated samples skipped with who excluded them and why; the ledger's
    counts are properties."""
    code, root = junit(capsys, str(INSPECT / "baseline.eval"), str(INSPECT / "killed.eval"))
    (suite,) = root
    assert code == 4
    errors = {
        c.get("name"): (error.get("type"), error.get("message"))
        for c in suite.iter("testcase")
        if (error := c.find("error")) is not None
    }
    assert list(errors) == ["1", "2", "3", "4", "9", "10", "11", "20"]
    assert errors["9"] == (
        "run_not_finished",
        "run not finished: 2 of its 3 candidate repetitions never ran: the run did not finish",
    )
    assert (suite.get("tests"), suite.get("errors"), suite.get("skipped")) == ("9", "8", "0")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["ledger.candidate.cases"] == "8"
    assert properties["ledger.candidate.run_not_finished"] == "8"
    assert properties["ledger.baseline.paired"] == "0"

    code, root = junit(capsys, str(INSPECT / "baseline.eval"), str(INSPECT / "excluded.eval"))
    skipped = {
        c.get("name"): skip.get("message")
        for c in root.iter("testcase")
        if (skip := c.find("skipped")) is not None
    }
    assert skipped == dict.fromkeys(
        ("3", "20"),
        "excluded: 3 of its 3 candidate repetitions excluded by qa@example.com (ticket text "
        "leaked the answer)",
    )
