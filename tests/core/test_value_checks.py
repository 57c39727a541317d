"""The value checks' cheaper spellings (`core.runs.checks`) against the plain expressions they
replaced: the same rows break them, nulls alike."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.runs.checks import _graded, blank, validate, value_checks
from flipgate.core.runs.model import Labels
from flipgate.core.runs.records import frames_from_records


def test_blank_is_what_stripping_leaves_empty_over_every_character() -> None:
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    spaces = [c for c in chars if c.strip() == ""] + ["\u180e", "\u200b", "\ufeff"]
    texts = [
        *chars,
        *(a + b for a in spaces for b in spaces),
        *(f"{c}x{c}" for c in spaces),
        "",
        None,
    ]
    frame = pl.DataFrame({"case": texts}, schema={"case": pl.String})
    got = frame.select(blank("case")).to_series()
    plain = frame.select(pl.col("case").str.strip_chars() == "").to_series()
    assert got.equals(plain)
    assert got.sum() > 20  # the Unicode spaces, not only ASCII's


def test_one_pass_for_a_finite_number_and_for_a_known_status() -> None:
    values = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e308, 5e-324, -3.5, None]
    statuses = ["ok", "infra", "", "OK", "infra ", None, "ok", "x", None]
    reps = pl.DataFrame(
        {"cost_usd": values, "status": statuses},
        schema={"cost_usd": pl.Float64, "status": pl.String},
    )
    one = [(1, {"case": "a", "expected": "approve", "actual": "approve"})]
    rules = {
        rule.name: rule.breaks
        for rule in value_checks(frames_from_records(one, Path("r"))[0], Labels())
    }
    metric, status = pl.col("cost_usd"), pl.col("status")
    got = reps.select(finite=rules["cost_usd"], status=rules["status"])
    plain = reps.select(
        finite=metric.is_nan() | metric.is_infinite(), status=~status.is_in(["ok", "infra"])
    )
    assert got.equals(plain)


def _error(*records: dict[str, object]) -> InputError | None:
    ok = {"case": "a", "rep": 0, "expected": {"r1": "approve"}, "actual": {"r1": "approve"}}
    lines = [(1, ok), *((n, record) for n, record in enumerate(records, start=2))]
    try:
        validate(frames_from_records(lines, Path("results.jsonl"))[0], Path("r"), Labels())
    except InputError as error:
        return error
    return None


def test_each_cheaper_check_still_names_the_line_and_the_field() -> None:
    ok = {"expected": {"r1": "approve"}, "actual": {"r1": "approve"}}
    found = {
        "blank case": _error({"case": "\u3000 ", **ok}),
        "blank template": _error({"case": "b", "template": "\t", **ok}),
        "status": _error({"case": "b", "status": "weird", **ok}),
        "not finite": _error({"case": "b", "cost_usd": math.inf, **ok}),
        "no expected": _error({"case": "b", "actual": {"r1": "approve"}}),
    }
    assert {name: error and (error.line, error.field) for name, error in found.items()} == {
        "blank case": (2, "case"),
        "blank template": (2, "template"),
        "status": (2, "status"),
        "not finite": (2, "cost_usd"),
        "no expected": (2, "expected.r1"),
    }
    # an infra repetition half-written is no error; the same repetition as ok is
    assert _error({"case": "b", "status": "infra", "actual": {"r1": "approve"}}) is None
    half: dict[str, object] = {"case": "b", "actual": {"r1": "approve"}}
    error = _error({**half, "rep": 1, "status": "infra"}, half)
    assert error is not None and (error.line, error.field) == (3, "expected.r1")


def test_graded_by_line_over_chunked_decisions_is_the_plain_lookup() -> None:
    reps = pl.DataFrame({"line": list(range(1, 41))})
    parts = [pl.DataFrame({"line": lines}) for lines in ([3, 5, 7], [5, 9, 40], [], [11])]
    decisions = pl.concat(parts, rechunk=False)
    checks = pl.DataFrame({"line": [2, 3, 39]})
    assert decisions["line"].n_chunks() > 1
    plain = reps["line"].is_in(decisions["line"].implode()) | reps["line"].is_in(
        checks["line"].implode()
    )
    assert _graded(reps, decisions, checks).to_list() == plain.to_list()
