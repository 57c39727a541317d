"""Flaky-list curation: propose from identical baseline runs, add, retire, check."""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml

from flipgate.core.curation.entries import add, remove
from flipgate.core.curation.flips import flip_records, propose, safety_cases, suite_cases
from flipgate.core.curation.review import check, flipped_among, flipped_in_run, review
from flipgate.core.errors import InputError
from flipgate.core.gate.compare import compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList, load_flaky
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import run_from_records
from flipgate.present.curation import done_words

SPEC = default_spec()
TODAY = date(2026, 11, 24)
KEY = {"model": "m1", "prompt": "p@1"}


def make_run(
    run_id: str,
    verdicts: dict[str, list[bool]],
    *,
    safety: frozenset[str] = frozenset(),
    key: dict[str, str] | None = None,
    created: str | None = None,
) -> Run:
    """A run of pass/fail checks: `verdicts[case]` is the result of each repetition."""
    records: list[dict[str, Any]] = [
        {"case": case, "rep": rep, "passed": passed, "safety": case in safety}
        for case, reps in verdicts.items()
        for rep, passed in enumerate(reps)
    ]
    manifest: dict[str, Any] = {"run_id": run_id, "key": dict(key or KEY)}
    if created:
        manifest["created"] = created
    return run_from_records(manifest, records, source=Path(f"/runs/{run_id}"))


def suite(n: int, **overrides: list[bool]) -> dict[str, list[bool]]:
    """`n` steady cases (case-000...) passing every repetition, with some overridden."""
    cases = {f"case-{i:03d}": [True, True, True] for i in range(n)}
    cases.update({k.replace("_", "-"): v for k, v in overrides.items()})
    return cases


ENTRY = """\
# owned by the eval team; reviewed in its own change
entries:
  - case: case-001   # ambiguous rubric
    owner: qa-oncall
    added: 2026-11-01
    reason: judge wording is ambiguous on partial refunds
    evidence: flipped in 2 of 4 identical baseline runs
    ticket: EVAL-12
  - case: case-002
    owner: rita
    added: 2026-10-15
    reason: tool timeout borderline
    evidence: flipped in 1 of 3 identical baseline runs
settings_note: kept as is
"""


@pytest.fixture
def flaky_file(tmp_path: Path) -> Path:
    path = tmp_path / "flaky.yaml"
    path.write_text(ENTRY)
    return path


# --------------------------------------------------------------------------- propose


def test_propose_lists_the_cases_that_flipped_with_their_runs() -> None:
    runs = [
        make_run("run-a", suite(40, case_005=[True, True, False], case_009=[False, False, True])),
        make_run("run-b", suite(40, case_005=[False, False, True], case_009=[False, False, True])),
        make_run("run-c", suite(40, case_005=[True, True, True], case_009=[True, True, False])),
    ]
    proposal = propose(runs, SPEC, load_flaky(None), owner="qa-oncall")
    assert [e.case for e in proposal.entries] == ["case-005", "case-009"]
    first, second = proposal.entries
    assert first.record.flips == 2
    assert first.record.flipped_between == (("run-a", "run-b"), ("run-b", "run-c"))
    assert first.evidence == (
        "flipped in 2 of 3 identical baseline runs: run-a pass, run-b fail, run-c pass"
    )
    assert second.record.flipped_between == (("run-b", "run-c"),)
    assert first.owner == "qa-oncall"
    assert (proposal.suite_cases, proposal.cap, proposal.slots_left) == (40, 2, 2)


def test_propose_orders_runs_by_creation_time() -> None:
    late = make_run("late", suite(3, case_001=[False] * 3), created="2026-11-22T00:00:00Z")
    early = make_run("early", suite(3), created="2026-11-20T00:00:00Z")
    proposal = propose([late, early], SPEC, load_flaky(None), owner=None)
    assert proposal.runs == ("early", "late")
    assert proposal.entries[0].evidence == (
        "flipped in 1 of 2 identical baseline runs: early pass, late fail"
    )


def test_a_tie_collapses_to_fail_exactly_as_the_gate_does() -> None:
    runs = [
        make_run("r1", {"case-1": [True, False]}),  # 1 of 2: a tie fails
        make_run("r2", {"case-1": [True, True]}),
    ]
    proposal = propose(runs, SPEC, load_flaky(None), owner=None)
    assert proposal.entries[0].evidence.endswith("r1 fail, r2 pass")


def test_a_case_missing_in_a_run_is_not_a_flip() -> None:
    runs = [
        make_run("r1", {"case-1": [True], "case-2": [True]}),
        make_run("r2", {"case-2": [True]}),
        make_run("r3", {"case-1": [True], "case-2": [True]}),
    ]
    assert propose(runs, SPEC, load_flaky(None), owner=None).entries == ()


def test_runs_with_different_keys_are_refused_naming_component_and_values() -> None:
    runs = [make_run("r1", suite(3)), make_run("r2", suite(3), key={**KEY, "prompt": "p@2"})]
    with pytest.raises(InputError) as err:
        propose(runs, SPEC, load_flaky(None), owner=None)
    assert "key prompt is p@2 in r2 but p@1 in r1" in str(err.value)
    assert err.value.field == "key.prompt"


def test_propose_needs_two_distinct_runs() -> None:
    run = make_run("r1", suite(3))
    with pytest.raises(InputError, match="at least 2 runs"):
        propose([run], SPEC, load_flaky(None), owner=None)
    with pytest.raises(InputError, match="given twice"):
        propose([run, run], SPEC, load_flaky(None), owner=None)


def test_a_safety_case_that_flips_is_a_finding_never_a_proposal() -> None:
    danger = frozenset({"case-003"})
    runs = [
        make_run("r1", suite(5, case_003=[True] * 3), safety=danger),
        make_run("r2", suite(5, case_003=[True, True, False]), safety=danger),
    ]
    proposal = propose(runs, SPEC, load_flaky(None), owner=None)
    assert proposal.entries == ()
    assert [r.case for r in proposal.safety_findings] == ["case-003"]
    assert proposal.to_json()["safety_findings"][0]["flips"] == 1


def test_listed_cases_are_not_proposed_again(flaky_file: Path) -> None:
    runs = [
        make_run("r1", suite(40, case_001=[False] * 3, case_007=[False] * 3)),
        make_run("r2", suite(40)),
    ]
    proposal = propose(runs, SPEC, load_flaky(flaky_file), owner=None)
    assert [e.case for e in proposal.entries] == ["case-007"]
    assert [r.case for r in proposal.already_listed] == ["case-001"]
    assert (proposal.listed, proposal.slots_left) == (2, 0)
    out = proposal.to_json()
    assert out["flaky_digest"] == load_flaky(flaky_file).digest
    assert out["proposals"][0]["fits"] is False


# --------------------------------------------------------------------------- add


def test_add_keeps_every_entry_field_comment_and_order(flaky_file: Path) -> None:
    runs = [make_run("base", suite(60))]
    edit = add(
        flaky_file,
        "case-030",
        "sam",
        "retrieval order varies",
        "flipped in 1 of 3",
        TODAY,
        suite=runs,
        spec=SPEC,
    )
    assert edit.comments_kept
    text = flaky_file.read_text()
    assert text == edit.text
    assert text.startswith(ENTRY.split("settings_note")[0])  # untouched bytes, comments included
    assert "# ambiguous rubric" in text
    data = yaml.safe_load(text)
    assert [e["case"] for e in data["entries"]] == ["case-001", "case-002", "case-030"]
    assert list(data["entries"][0]) == ["case", "owner", "added", "reason", "evidence", "ticket"]
    assert data["entries"][2]["history"] == [{"event": "added", "date": TODAY, "by": "sam"}]
    assert data["settings_note"] == "kept as is"
    assert load_flaky(flaky_file).entry("case-030") is not None
    assert edit.flaky_digest == load_flaky(flaky_file).digest != edit.before_digest
    assert done_words(edit) == "listed case-030 (owner sam); 0 of 3 slots left"


def test_add_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "ws" / "flaky.yaml"
    add(
        path,
        "case-001",
        "sam",
        "why",
        "flipped in 1 of 2",
        TODAY,
        suite=[make_run("b", suite(20))],
        spec=SPEC,
    )
    assert [e.case for e in load_flaky(path).entries] == ["case-001"]
    assert path.read_text().startswith("# The flaky list")


def test_add_into_an_empty_flow_list_keeps_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "flaky.yaml"
    path.write_text("# header\nentries: []\nretired: []\n")
    add(path, "case-001", "sam", "why", "ev", TODAY, suite=[make_run("b", suite(20))], spec=SPEC)
    text = path.read_text()
    assert text.startswith("# header\nentries:\n  - case: case-001\n")
    assert yaml.safe_load(text)["retired"] == []


def refused(path: Path, match: str, **kwargs: Any) -> None:
    """The edit is refused with `match` in its message and the file keeps every byte."""
    before = path.read_bytes()
    args: dict[str, Any] = {
        "case": "case-030",
        "owner": "sam",
        "reason": "retrieval order varies",
        "evidence": "flipped in 1 of 3",
        "today": TODAY,
        "suite": [make_run("base", suite(60))],
        "spec": SPEC,
    }
    args.update(kwargs)
    with pytest.raises(InputError, match=match):
        add(path, **args)
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left behind


def test_add_refuses_a_safety_case_from_any_run(flaky_file: Path) -> None:
    runs = [make_run("b1", suite(60)), make_run("b2", suite(60), safety=frozenset({"case-030"}))]
    refused(flaky_file, "safety case", suite=runs)


def test_add_refuses_an_unknown_case(flaky_file: Path) -> None:
    refused(flaky_file, "unknown case 'case-999': not in the suite \\(base\\)", case="case-999")


@pytest.mark.parametrize("field", ["owner", "reason"])
def test_add_refuses_an_empty_owner_or_reason(flaky_file: Path, field: str) -> None:
    refused(flaky_file, f"{field} is required", **{field: "  "})


def test_add_refuses_a_duplicate(flaky_file: Path) -> None:
    refused(flaky_file, "already listed \\(owner qa-oncall, added 2026-11-01\\)", case="case-001")


def test_add_refuses_to_grow_past_the_cap_and_says_what_is_left(flaky_file: Path) -> None:
    # 5% of 40 cases: 2 slots, both taken
    refused(
        flaky_file,
        "2 listed, cap 2 \\(5% of 40 cases\\), 0 slots left",
        suite=[make_run("b", suite(40))],
    )


def test_a_malformed_file_is_refused_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "flaky.yaml"
    path.write_text("entries:\n  - case: case-001\n    owner: [unclosed\n")
    refused(path, "not valid YAML")


def test_a_date_that_is_not_a_date_is_refused_byte_identical(flaky_file: Path) -> None:
    flaky_file.write_text(ENTRY.replace("2026-10-15", "2026-13-45"))
    refused(flaky_file, "flaky.yaml:11: field 'entries.1.added': not a date")
    bad_history = ENTRY.replace(
        "    ticket: EVAL-12\n", "    history:\n      - {event: added, date: soon, by: x}\n"
    )
    flaky_file.write_text(bad_history)
    with pytest.raises(InputError) as err:
        remove(flaky_file, "case-001", "fixed", TODAY)
    assert err.value.field == "entries.0.history.0.date"
    assert err.value.line == 9
    assert flaky_file.read_text() == bad_history


def test_a_file_without_entries_is_refused_not_read_as_an_empty_list(tmp_path: Path) -> None:
    """The gate spec given as `--flaky` listed nothing, silently: every flaky case counted."""
    path = tmp_path / "gate.yaml"
    path.write_text("alpha: 0.05\nsets:\n  full: {margin: 2}\n")
    with pytest.raises(InputError) as err:
        load_flaky(path)
    assert (err.value.field, err.value.line) == ("entries", 1)
    assert "this one holds alpha, sets" in str(err.value)
    assert load_flaky(_written(tmp_path, "")).entries == ()
    assert load_flaky(_written(tmp_path, "entries: []\nretired: []\n")).entries == ()


def _written(folder: Path, text: str) -> Path:
    path = folder / "flaky.yaml"
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- remove (retire)


def test_retire_moves_the_entry_with_its_history_and_a_note(flaky_file: Path) -> None:
    runs = [make_run("base", suite(80))]
    add(
        flaky_file,
        "case-040",
        "sam",
        "order varies",
        "flipped in 1 of 3",
        date(2026, 11, 2),
        suite=runs,
        spec=SPEC,
    )
    edit = remove(flaky_file, "case-040", "fixed the retrieval sort", TODAY, by="lee")
    data = yaml.safe_load(flaky_file.read_text())
    assert [e["case"] for e in data["entries"]] == ["case-001", "case-002"]
    (retired,) = data["retired"]
    assert retired["case"] == "case-040" and retired["reason"] == "order varies"
    assert retired["history"] == [
        {"event": "added", "date": date(2026, 11, 2), "by": "sam"},
        {"event": "retired", "date": TODAY, "by": "lee", "note": "fixed the retrieval sort"},
    ]
    assert edit.comments_kept and "# ambiguous rubric" in edit.text
    assert load_flaky(flaky_file).cases == {"case-001", "case-002"}


def test_retire_an_entry_from_before_history_keeps_every_field(flaky_file: Path) -> None:
    remove(flaky_file, "case-001", "rubric rewritten", TODAY)
    remove(flaky_file, "case-002", "timeout raised", TODAY)
    data = yaml.safe_load(flaky_file.read_text())
    assert data["entries"] == []
    first, second = data["retired"]
    assert first["ticket"] == "EVAL-12"
    assert list(first) == ["case", "owner", "added", "reason", "evidence", "ticket", "history"]
    assert first["history"][0] == {"event": "added", "date": date(2026, 11, 1), "by": "qa-oncall"}
    assert second["history"][-1]["note"] == "timeout raised"
    assert data["settings_note"] == "kept as is"
    assert flaky_file.read_text().startswith("# owned by the eval team")


def test_retire_refuses_an_empty_note_or_an_unlisted_case(flaky_file: Path) -> None:
    before = flaky_file.read_bytes()
    with pytest.raises(InputError, match="note is required"):
        remove(flaky_file, "case-001", "", TODAY)
    with pytest.raises(InputError, match="not on the flaky list"):
        remove(flaky_file, "case-050", "gone", TODAY)
    remove(flaky_file, "case-002", "fixed", TODAY)
    with pytest.raises(InputError, match="retired earlier"):
        remove(flaky_file, "case-002", "again", TODAY)
    assert before != flaky_file.read_bytes()


# --------------------------------------------------------------------------- check


def test_check_flags_gone_and_ready_to_release(flaky_file: Path) -> None:
    # case-001 quiet over the last 3 runs (it flipped only before), case-002 gone from the suite
    steady = {f"case-{i:03d}": [True] for i in (0, 1, 3)}
    runs = [
        make_run("r1", {**steady, "case-001": [False]}),
        make_run("r2", steady),
        make_run("r3", steady),
        make_run("r4", steady),
    ]
    report = check(flaky_file, runs, SPEC, today=TODAY)
    by_case = {r.entry.case: r for r in report.entries}
    assert by_case["case-001"].flags == ("ready to release",)
    assert by_case["case-001"].record is not None and by_case["case-001"].record.flips == 1
    assert by_case["case-002"].flags == ("gone",)
    assert by_case["case-002"].age_days == 40
    assert report.problems == ("case-002: gone from the suite", "2 entries, above the cap of 0")
    assert report.to_json()["flaky_digest"] == load_flaky(flaky_file).digest


def test_check_does_not_release_on_too_few_runs_or_a_recent_flip(flaky_file: Path) -> None:
    cases = suite(40)
    flipping = suite(40, case_001=[False] * 3)
    two = check(flaky_file, [make_run("r1", cases), make_run("r2", cases)], SPEC, today=TODAY)
    assert not two.entries[0].ready
    runs = [make_run("r1", cases), make_run("r2", flipping), make_run("r3", cases)]
    report = check(flaky_file, runs, SPEC, today=TODAY, window=3)
    assert [r.flags for r in report.entries] == [(), ("ready to release",)]
    assert report.problems == ()


def test_check_flags_a_listed_safety_case(flaky_file: Path) -> None:
    runs = [make_run("r1", suite(40), safety=frozenset({"case-002"}))]
    report = check(flaky_file, runs, SPEC, today=TODAY)
    assert report.entries[1].flags == ("safety case",)
    assert report.problems == ("case-002: a safety case is listed",)


def test_retire_a_middle_entry_keeps_the_comments_around_it(tmp_path: Path) -> None:
    path = tmp_path / "flaky.yaml"
    path.write_text(
        "entries:\n"
        "  # first\n"
        "  - {case: a, owner: o, added: 2026-11-01, reason: r, evidence: e}\n"
        "  - {case: b, owner: o, added: 2026-11-01, reason: r, evidence: e}\n"
        "  # last\n"
        "  - {case: c, owner: o, added: 2026-11-01, reason: r, evidence: e}\n"
        "# trailer\n"
    )
    edit = remove(path, "b", "fixed", TODAY)
    assert edit.comments_kept
    assert edit.text.startswith(
        "entries:\n"
        "  # first\n"
        "  - {case: a, owner: o, added: 2026-11-01, reason: r, evidence: e}\n"
        "  # last\n"
        "  - {case: c, owner: o, added: 2026-11-01, reason: r, evidence: e}\n"
        "# trailer\n"
        "retired:\n"
        "  - case: b\n"
    )
    assert "    history:\n      - event: added\n" in edit.text


def test_a_file_that_cannot_be_spliced_is_rewritten_whole_without_losing_data(
    tmp_path: Path,
) -> None:
    path = tmp_path / "flaky.yaml"
    path.write_text(
        "{entries: [{case: a, owner: o, added: 2026-11-01, reason: r, evidence: e, x: [1, 2]}],"
        " team: evals}\n"
    )
    edit = add(
        path, "case-001", "sam", "why", "ev", TODAY, suite=[make_run("b", suite(40))], spec=SPEC
    )
    assert not edit.comments_kept
    data = yaml.safe_load(path.read_text())
    assert data["team"] == "evals"
    assert data["entries"][0] == {
        "case": "a",
        "owner": "o",
        "added": date(2026, 11, 1),
        "reason": "r",
        "evidence": "e",
        "x": [1, 2],
    }
    assert data["entries"][1]["case"] == "case-001"


def test_a_file_changed_during_the_edit_is_not_overwritten(
    flaky_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import flipgate.core.curation.entries as curation

    def meanwhile(path: Path | None, content: bytes | None = None) -> FlakyList:
        if content is not None and b"fixed" in content:  # someone saves while we validate
            flaky_file.write_text(ENTRY + "other: edit\n")
        return load_flaky(path, content)

    monkeypatch.setattr(curation, "load_flaky", meanwhile)
    with pytest.raises(InputError, match="changed on disk while being edited"):
        remove(flaky_file, "case-002", "fixed", TODAY)
    assert flaky_file.read_text() == ENTRY + "other: edit\n"
    assert [p.name for p in flaky_file.parent.iterdir()] == ["flaky.yaml"]


def test_the_review_reads_only_the_listed_cases_and_says_what_the_whole_records_say() -> None:
    """The review keeps a record for the listed cases alone (a suite may hold a million) and
    counts the suite in polars; on random runs it says what every case's records say, and the
    listed cases that flipped, read from the comparison of the arms, are those `compare` finds."""
    rng = random.Random(25)
    cases = [f"case-{i:03d}" for i in range(60)]
    safety = frozenset(rng.sample(cases, 5))

    def random_run(run_id: str) -> Run:
        verdicts = {c: [rng.random() < 0.7 for _ in range(3)] for c in cases if rng.random() < 0.95}
        return make_run(run_id, verdicts, safety=safety, created=f"2026-11-0{run_id[-1]}")

    runs = [random_run(f"r{i}") for i in range(1, 5)]
    candidate = make_run("cand", {c: [rng.random() < 0.6] * 3 for c in cases})
    listed = [*sorted(rng.sample(cases, 12)), "case-gone"]
    flaky = FlakyList(
        tuple(FlakyEntry(c, "qa", date(2026, 11, 1), "noisy", "seen") for c in listed)
    )
    comparison = compare(runs[0], candidate, SPEC, flaky)
    flipped = flipped_among(comparison.cases, flaky)
    assert flipped == flipped_in_run(runs[0], candidate, SPEC, flaky)
    assert flipped  # the draw flips some listed cases: the check is not vacuous
    report = review(flaky, runs, SPEC, today=TODAY, suite=[candidate], flipped_in_run=flipped)
    records = {r.case: r for r in flip_records(runs, SPEC)}
    everything = [*runs, candidate]
    known, safe_cases = suite_cases(everything), safety_cases(everything)
    assert report.suite_cases == len(known) and report.cap == SPEC.flaky_cap(len(known))
    for row in report.entries:
        case = row.entry.case
        assert row.record == records.get(case)
        assert (row.gone, row.safety) == (case not in known, case in safe_cases)
        assert row.flipped_in_run == (case in flipped)
    assert [r.entry.case for r in report.entries if r.safety]  # some listed are safety cases
