"""Case ids in their natural order (`core/order.py`): a run of digits read as its number, one rule
for Python sorts and for frames, on every list the reports draw from the paired table."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from flipgate.cli import main
from flipgate.core.order import natural_key, natural_sort, natural_sorted
from tests.conftest import passfail_rows, write_run
from tests.importers.conftest import INSPECT


@pytest.mark.parametrize(
    ("ids", "ordered"),
    [
        (["10", "2", "1", "20", "3"], ["1", "2", "3", "10", "20"]),
        (["t10", "t2", "t1"], ["t1", "t2", "t10"]),
        (
            ["case-10", "case-9", "case-010", "case-09"],
            ["case-09", "case-9", "case-010", "case-10"],
        ),
        (["task/10/a", "task/9/b", "task/9/a"], ["task/9/a", "task/9/b", "task/10/a"]),
        (["b", "a2", "a10", "a", "10"], ["10", "a", "a2", "a10", "b"]),
        (["test 11 #5a9", "test 4 #569eafa1"], ["test 4 #569eafa1", "test 11 #5a9"]),
    ],
)
def test_digits_sort_as_numbers(ids: list[str], ordered: list[str]) -> None:
    assert natural_sorted(ids) == ordered
    assert natural_sort(pl.DataFrame({"case": ids}))["case"].to_list() == ordered


def test_numbers_past_64_bits_sort_by_value_too() -> None:
    """A frame with such a number takes the row-by-row path; the order is the same rule's."""
    ids = ["1" + "0" * 25, "9" * 20, "7", "x"]
    assert natural_sorted(ids) == ["7", "9" * 20, "1" + "0" * 25, "x"]
    assert natural_sort(pl.DataFrame({"case": list(reversed(ids))}))[
        "case"
    ].to_list() == natural_sorted(ids)


# ids made of the characters that decide the order: digits, letters, separators, and a
# non-ASCII digit (which the rule reads as text, in both forms); the empty id among them
IDS = st.lists(st.text(alphabet="ab-/ #0123456789٣", max_size=9), max_size=25)
TRAILING = st.lists(st.from_regex(r"[a-c-]{0,3}[0-9]{0,4}", fullmatch=True), max_size=25)


@given(st.one_of(IDS, TRAILING))
def test_a_frame_sorts_as_python_does(ids: list[str]) -> None:
    """Both forms of the rule agree: the vectorised path (no digit, or digits only at the end),
    the row-by-row one (digits inside), and a Python sort."""
    assert natural_sort(pl.DataFrame({"case": ids}, schema={"case": pl.String}))[
        "case"
    ].to_list() == natural_sorted(ids)


@given(
    st.one_of(
        TRAILING,
        st.builds(
            lambda stem, width, numbers: [f"{stem}{n:0{width}d}" for n in numbers],
            st.from_regex(r"[a-c-]{0,3}", fullmatch=True),
            st.integers(1, 4),
            st.lists(st.integers(0, 9999), unique=True, max_size=25),
        ),
        st.builds(
            lambda width, ids: [f"{stem}{n:0{width}d}" for stem, n in ids],
            st.integers(1, 3),
            st.lists(st.tuples(st.sampled_from(["", "a", "a-", "b"]), st.integers(0, 999))),
        ),
    )
)
def test_ids_already_sorted_as_text_leave_in_their_natural_order(ids: list[str]) -> None:
    """A frame sorted as text is left as it stands only where that is the natural order: ids of
    one stem and one width (`case-0042`), or none with a digit."""
    frame = pl.DataFrame({"case": sorted(ids)}, schema={"case": pl.String})
    assert natural_sort(frame)["case"].to_list() == natural_sorted(ids)


@given(st.text(alphabet="ab-/", max_size=4), st.integers(0, 10**12), st.integers(0, 10**12))
def test_a_number_after_the_same_prefix_compares_by_value(prefix: str, a: int, b: int) -> None:
    if a != b:
        assert (natural_key(f"{prefix}{a}") < natural_key(f"{prefix}{b}")) == (a < b)


def test_the_reports_list_integer_ids_in_their_natural_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Inspect's sample ids 1 2 3 4 9 10 11 20: a killed candidate leaves every case out, and
    the ledger, the JSON and the text list them 2 before 10."""
    main(["gate", str(INSPECT / "baseline.eval"), str(INSPECT / "killed.eval"), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    natural = ["1", "2", "3", "4", "9", "10", "11", "20"]
    assert report["unpaired"] == natural
    assert report["ledger"]["candidate"]["left_out"]["run_not_finished"] == natural
    main(["gate", str(INSPECT / "baseline.eval"), str(INSPECT / "excluded.eval")])
    assert "(ticket text leaked the answer): 3, 20" in capsys.readouterr().out


def test_flips_come_in_natural_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [str(i) for i in (20, 3, 100, 1)]
    base = write_run(tmp_path / "b", passfail_rows({c: [True] for c in cases}))
    cand = write_run(tmp_path / "c", passfail_rows({c: [False] for c in cases}))
    main(["gate", str(base), str(cand), "--format", "json"])
    flipped = [f["case"] for f in json.loads(capsys.readouterr().out)["flipped"]]
    assert flipped == ["1", "3", "20", "100"]


STEMS = st.sampled_from(["case-", "", "t2/doc", "a.b*(c)[0] \\\\", "ü-"])


@given(STEMS, st.integers(0, 4), st.lists(st.integers(0, 9999), max_size=25), st.booleans())
def test_ids_of_one_stem_and_width_in_text_order_are_kept(
    stem: str, width: int, numbers: list[int], ordered: bool
) -> None:
    """The fast path (`case-000017`, sorted as text, kept as it is) against a Python sort, with
    stems a regex would read as patterns, a stray id of another width, and unsorted frames."""
    ids = [f"{stem}{n % 10**width:0{width}}" if width else stem for n in numbers]
    ids = sorted(ids) if ordered else ids
    for listed in (ids, [*ids, f"{stem}{'7' * (width + 1)}"]):
        frame = pl.DataFrame({"case": listed}, schema={"case": pl.String})
        assert natural_sort(frame)["case"].to_list() == natural_sorted(listed)
