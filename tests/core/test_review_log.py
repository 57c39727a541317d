"""A decision's review log (issue 24 item 4): each event names exactly its fields; the cases
reviewed are those opened, then those added by hand, never a case neither opened nor named; the
log round-trips through the document and is covered by the signature."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flipgate.core.decision.document import parse_decision, render_decision
from flipgate.core.decision.file import verify_decision, write_decision
from flipgate.core.decision.record import DecisionRecord, InvalidDecision
from flipgate.core.decision.review_log import Looked, added_by_hand, opened, reviewed_cases
from flipgate.core.decision.signing import SigningKey
from flipgate.core.io.yamlio import parse_yaml
from tests.conftest import KeyMaker

from .test_decision import fixed_record

AT = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
LOG = (
    Looked("case_opened", AT, case="listing-047", rep=1),
    Looked("rep_viewed", AT + timedelta(seconds=4), case="listing-047", rep=2),
    Looked("outputs_viewed", AT + timedelta(seconds=9), case="listing-047", rep=2, view="unified"),
    Looked(
        "turn_viewed",
        AT + timedelta(seconds=15),
        case="listing-047",
        rep=2,
        turn=5,
        view="divergence",
    ),
    Looked(
        "finding_recorded", AT + timedelta(seconds=30), triage_class="grader", finding="ruled_out"
    ),
    Looked(
        "finding_undone", AT + timedelta(seconds=31), triage_class="grader", finding="ruled_out"
    ),
    Looked("case_added", AT + timedelta(seconds=40), case="case-017"),
    Looked("case_added", AT + timedelta(seconds=41), case="case-099"),
    Looked("case_removed", AT + timedelta(seconds=42), case="case-099"),
)


def logged(**changes: Any) -> DecisionRecord:
    fields = {
        "cases_reviewed": ("listing-047", "case-017"),
        "cases_added": ("case-017",),
        "review_log": LOG,
    }
    return replace(fixed_record(), **{**fields, **changes})


def test_the_cases_reviewed_are_those_opened_then_those_added_and_kept() -> None:
    assert opened(LOG) == ("listing-047",)
    assert added_by_hand(LOG) == ("case-017",)  # case-099 was taken off again
    assert reviewed_cases(LOG) == (("listing-047", "case-017"), ("case-017",))
    # a case opened and also added by hand is opened: not counted as added
    again = (*LOG, Looked("case_added", AT, case="listing-047"))
    assert reviewed_cases(again) == (("listing-047", "case-017"), ("case-017",))


@pytest.mark.parametrize(
    ("event", "fields", "field"),
    [
        ("case_opened", {}, "review_log.case"),
        ("turn_viewed", {"case": "c1", "rep": 0, "view": "diff"}, "review_log.turn"),
        ("finding_recorded", {"triage_class": "grader"}, "review_log.finding"),
        ("case_added", {"case": "c1", "rep": 0}, "review_log.rep"),
        ("finding_recorded", {"triage_class": "judge", "finding": "cause"}, "review_log.class"),
        ("finding_recorded", {"triage_class": "grader", "finding": "maybe"}, "review_log.finding"),
        ("rep_viewed", {"case": "c1", "rep": True}, "review_log.rep"),
        ("case_opened", {"case": "two\nlines"}, "review_log.case"),
        ("looked_away", {}, "review_log.event"),
    ],
)
def test_an_event_names_exactly_its_fields(event: str, fields: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidDecision) as refused:
        Looked(event, AT, **fields)  # type: ignore[arg-type]
    assert refused.value.field == field


def test_a_time_without_a_zone_is_refused() -> None:
    with pytest.raises(InvalidDecision, match="time zone"):
        Looked("case_opened", datetime(2026, 11, 29, 15, 0), case="c1")


def test_a_case_reviewed_must_be_opened_or_added_by_hand() -> None:
    with pytest.raises(InvalidDecision) as refused:
        logged(cases_reviewed=("listing-047", "case-017", "case-500"))
    assert refused.value.field == "cases_reviewed" and "case-500" in refused.value.message
    with pytest.raises(InvalidDecision) as refused:
        logged(cases_added=("case-017", "case-404"))
    assert refused.value.field == "cases_added"


def test_the_log_round_trips_through_the_document() -> None:
    record = logged()
    text = render_decision(record)
    assert "review_log:" in text and "event: turn_viewed" in text and "turn: 5" in text
    data, _ = parse_yaml(text, Path("decision.yaml"))
    assert parse_decision(data) == record
    # a file without the fields is read as before: no log, nothing added
    old = fixed_record()
    data, _ = parse_yaml(render_decision(old), Path("decision.yaml"))
    parsed = parse_decision(data)
    assert parsed.review_log is None and parsed.cases_added == ()


@pytest.mark.usefixtures("isolated_git")
def test_a_changed_reordered_or_removed_step_breaks_the_signature(
    make_key: KeyMaker, tmp_path: Path
) -> None:
    key = SigningKey("--key", path=make_key("ada"))
    written = write_decision(logged(), key, tmp_path / "decisions")
    data = written.read_text()
    steps = data.split("\n  - at: ")
    edits = {
        "changed": data.replace("view: unified", "view: side-by-side"),
        "reordered": data.replace(steps[1], "@").replace(steps[2], steps[1]).replace("@", steps[2]),
        "removed": data.replace("\n  - at: " + steps[3], ""),
    }
    for how, text in edits.items():
        assert text != data, how
        written.write_text(text)
        result = verify_decision(written, tmp_path / "no_allowed_signers")
        failed = {check.name for check in result.failures}
        assert "signature" in failed, how
