"""Who flipped, the model or the grader (issue 23 item 1): fixtures whose truth is known."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.errors import InputError
from flipgate.core.gate.compare import Comparison, GateResult, compare
from flipgate.core.gate.sources import FlipSources, SourceCounts, normalise
from flipgate.core.gate.spec import default_spec, load_spec
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run

Rep = tuple[bool, str | None]  # (passed, output)


def _rows(cases: Mapping[str, Sequence[Rep]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for case, reps in cases.items():
        for rep, (passed, output) in enumerate(reps):
            row: dict[str, Any] = {"case": case, "rep": rep, "passed": passed}
            if output is not None:
                row["output"] = output
            rows.append(row)
    return rows


def _compare(
    tmp_path: Path,
    base: Mapping[str, Sequence[Rep]],
    cand: Mapping[str, Sequence[Rep]],
    gate: str | None = None,
) -> Comparison:
    spec = default_spec()
    tmp_path.mkdir(parents=True, exist_ok=True)
    if gate is not None:
        (tmp_path / "gate.yaml").write_text(gate)
        spec = load_spec(tmp_path / "gate.yaml")
    runs = [
        load_run(write_run(tmp_path / arm, _rows(cases)))
        for arm, cases in (("baseline", base), ("candidate", cand))
    ]
    return compare(runs[0], runs[1], spec)


def sources_of(result: GateResult) -> FlipSources:
    assert result.sources is not None  # the gate always reads who flipped
    return result.sources


def test_equal_outputs_with_another_verdict_are_grader_flips(tmp_path: Path) -> None:
    base: dict[str, list[Rep]] = {
        "g1": [(True, "Refund  issued.")],  # whitespace only
        "g2": [(True, '{"a": 1, "b": [1, 2]}')],  # JSON key order only
        "m1": [(True, "Refund issued.")],
        "u1": [(True, None)],
        "same": [(True, "ok")],
    }
    cand: dict[str, list[Rep]] = {
        "g1": [(False, "Refund issued.\n")],
        "g2": [(False, '{"b": [1, 2],\n "a": 1}')],
        "m1": [(False, "I cannot help.")],
        "u1": [(False, "an output on one side only")],
        "same": [(True, "ok")],
    }
    result = _compare(tmp_path, base, cand).result
    assert result.b == 4
    sources = sources_of(result)
    assert sources.counts["pass_to_fail"] == SourceCounts(model=1, grader=2, unknown=1)
    assert sources.counts["fail_to_pass"] == SourceCounts()
    by_case = dict(sources.cases.select("case", "source").iter_rows())
    assert by_case == {"g1": "grader", "g2": "grader", "m1": "model", "u1": "unknown"}


def test_no_stored_outputs_say_unknown(tmp_path: Path) -> None:
    base = {f"c{i}": [(i % 2 == 0, None)] for i in range(6)}
    cand = {f"c{i}": [(i % 2 == 1, None)] for i in range(6)}
    sources = sources_of(_compare(tmp_path, base, cand).result)
    assert sources.counts["pass_to_fail"] == SourceCounts(unknown=3)
    assert sources.counts["fail_to_pass"] == SourceCounts(unknown=3)
    assert not sources.compared


def test_per_repetition_then_per_case(tmp_path: Path) -> None:
    """A case is the model's when any repetition flipped in its direction changed its output,
    the grader's when every such repetition kept it; repetitions that did not flip are not read."""
    base: dict[str, list[Rep]] = {
        "mixed": [(True, "a"), (True, "b"), (True, "c")],
        "grader": [(True, "a"), (True, "b"), (False, "zzz")],
        "half": [(True, "a"), (True, None), (True, "c")],
    }
    cand: dict[str, list[Rep]] = {
        "mixed": [(False, "a"), (False, "B!"), (True, "c")],
        "grader": [(False, "a"), (False, "b"), (False, "other")],
        "half": [(False, "a"), (False, "b"), (True, "c")],
    }
    cases = sources_of(_compare(tmp_path, base, cand).result).cases
    rows = {r["case"]: r for r in cases.iter_rows(named=True)}
    assert (rows["mixed"]["source"], rows["mixed"]["model"], rows["mixed"]["grader"]) == (
        "model",
        1,
        1,
    )
    assert (rows["grader"]["source"], rows["grader"]["grader"]) == ("grader", 2)
    # one flipped pair the same, the other with no baseline output: not all the grader's
    assert (rows["half"]["source"], rows["half"]["unknown"]) == ("unknown", 1)


def test_volatile_parts_are_normalised_away(tmp_path: Path) -> None:
    base = {"c": [(True, "ticket T-1234 opened 2026-11-20")]}
    cand = {"c": [(False, "ticket T-9876 opened 2026-12-01")]}
    plain = sources_of(_compare(tmp_path / "plain", base, cand).result)
    assert plain.source("c") == "model"
    gate = "outputs:\n  volatile: ['T-\\d+', '\\d{4}-\\d{2}-\\d{2}']\n"
    tuned = sources_of(_compare(tmp_path / "tuned", base, cand, gate).result)
    assert tuned.source("c") == "grader"
    assert tuned.volatile == (r"T-\d+", r"\d{4}-\d{2}-\d{2}")


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("outputs:\n  volatile: '\\d+'\n", "must be a list"),
        ("outputs:\n  volatile: ['(unclosed']\n", "not a usable pattern"),
        ("outputs:\n  volatile: ['x*']\n", "matches the empty text"),
        ("outputs:\n  volatile: ['(?=a)b']\n", "not a usable pattern"),  # polars has no lookahead
        ("outputs:\n  volatil: []\n", "unknown setting"),
    ],
)
def test_a_bad_normaliser_is_refused_naming_the_line(
    tmp_path: Path, setting: str, says: str
) -> None:
    path = tmp_path / "gate.yaml"
    path.write_text("alpha: 0.05\n" + setting)
    with pytest.raises(InputError) as caught:
        load_spec(path)
    assert says in str(caught.value)
    assert caught.value.line == 3


def test_normalise() -> None:
    given_ = pl.Series(["  a\n\tb ", '[{"y": 2, "x": 1}]', "{not json", None])
    assert normalise(given_).to_list() == ["a b", '[{"x":1,"y":2}]', "{not json", None]


def test_grader_noise_within_an_arm(tmp_path: Path) -> None:
    """Two repetitions with one output and two verdicts: the grader disagrees with itself."""
    base: dict[str, list[Rep]] = {
        "noisy": [(True, "x"), (False, "x"), (True, "y")],  # pairs with one output: 1, apart: 1
        "steady": [(True, "x"), (True, "x"), (True, "x")],  # not split: not read
        "split": [(True, "x"), (False, "y"), (True, "z")],  # split, no output repeated
    }
    cand = {case: [(True, "x")] for case in base}
    noise = sources_of(_compare(tmp_path, base, cand).result).noise
    assert (noise["baseline"].same_output_pairs, noise["baseline"].graded_apart) == (1, 1)
    assert noise["baseline"].cases == ("noisy",)
    assert noise["candidate"].rate is None


VERDICT = st.booleans()
OUTPUT = st.one_of(st.none(), st.sampled_from(["a", " a", "b", '{"k":1}', '{ "k": 1 }']))
REPS = st.lists(st.tuples(VERDICT, OUTPUT), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from("abcdefgh"), st.tuples(REPS, REPS), min_size=1))
def test_the_split_adds_up_to_b_and_c(tmp_path_factory: Any, suite: dict[str, Any]) -> None:
    tmp = tmp_path_factory.mktemp("split")
    base = {case: reps for case, (reps, _) in suite.items()}
    cand = {case: reps for case, (_, reps) in suite.items()}
    result = _compare(tmp, base, cand).result
    counts = sources_of(result).counts
    assert counts["pass_to_fail"].total == result.b
    assert counts["fail_to_pass"].total == result.c
    flipped = {case for case, _ in result.flipped}
    assert set(sources_of(result).cases["case"].to_list()) == flipped
