"""Issue 26's ranking defects 1-3 and seed 003's release settings, each at its edge: an
incomplete candidate with the best key, a candidate short of the incumbent's or the release
rule's repetitions, a dead heat, Holm's family, a least key and a mean key, tie groups.

The expected figures are computed here by other means: the seed's table counted by hand, Holm's
adjustment and the exact paired test summed from binomial coefficients."""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest

from flipgate.core.errors import InputError
from flipgate.core.gate.spec import GateSpec, load_spec
from flipgate.core.rank.ranking import Ranking, rank
from flipgate.present.choosing import gaps_words
from flipgate.present.ranking import (
    evidence_words,
    grid_words,
    marks,
    multiplicity_words,
    summary_lines,
    tie_group_words,
    to_json,
    why,
)
from tests.core.test_rank import CLAUDE, INCUMBENT, MERGE, F, T, Verdicts, run

# sample_runs/winner-rule's HURRIED: i3 ran once, and that once passed.
HURRIED: Verdicts = {
    "i1": [T, T],
    "i2": [T, T],
    "i3": [T],
    "i4": [F, F],
    "i5": [F, F],
    "i6": [F, F],
}


def spec(tmp_path: Path, release: str = "") -> GateSpec:
    path = tmp_path / "gate.yaml"
    text = "aggregate: {ordinary: all, safety: all}\n"
    path.write_text(text + (f"release: {release}\n" if release else ""))
    return load_spec(path)


def ranked(gate: GateSpec, incumbent: Verdicts = INCUMBENT, **candidates: Verdicts) -> Ranking:
    return rank(run("incumbent", incumbent), [(n, run(n, v)) for n, v in candidates.items()], gate)


def resolved(verdicts: Verdicts) -> int:
    """The seed's fail-closed count: cases whose every repetition passed."""
    return sum(all(reps) for reps in verdicts.values())


def two_sided(wins: int, losses: int) -> float:
    """The exact paired test both ways, from binomial coefficients."""
    n = wins + losses
    tail: float = sum(comb(n, k) for k in range(max(wins, losses), n + 1)) / 2**n
    return min(1.0, 2.0 * tail)


# --------------------------------------------------------------------------- defect 1


def test_an_incomplete_candidate_with_the_best_key_is_called_incomplete(tmp_path: Path) -> None:
    ranking = ranked(spec(tmp_path), CLAUDE=CLAUDE, MERGE=MERGE, HURRIED=HURRIED)
    hurried = ranking.standing("HURRIED")
    assert hurried.release_key == resolved(HURRIED) == 3 > resolved(CLAUDE) == 2
    assert ranking.winner == "CLAUDE" and ranking.passed_over == ("HURRIED",)
    assert marks(ranking, "HURRIED") == "✗ incomplete"
    words = dict(summary_lines(ranking))["passed over"]
    assert words.startswith("HURRIED's key (3 of 6 cases pass the release rule; mean 0.455)")
    assert "incomplete (1 repetition missing)" in words and "cannot win" in words
    assert to_json(ranking)["passed_over"][0]["name"] == "HURRIED"


def test_an_incomplete_candidate_below_the_winner_is_not_passed_over(tmp_path: Path) -> None:
    short = CLAUDE | {"i6": [F]}  # key 2 as CLAUDE's, mean 5/11 above CLAUDE's 5/12
    behind = MERGE | {"i6": [F]}  # key 1, below CLAUDE's 2 (its mean, 6/11, is the highest)
    ranking = ranked(spec(tmp_path), CLAUDE=CLAUDE, BEHIND=behind)
    assert ranking.passed_over == () and marks(ranking, "BEHIND") == "▲ highest mean ✗ incomplete"
    ranking = ranked(spec(tmp_path), CLAUDE=CLAUDE, SHORT=short)
    # on the key they tie; the mean, 5/11 above 5/12, would have picked SHORT
    assert ranking.winner == "CLAUDE" and ranking.passed_over == ("SHORT",)


# --------------------------------------------------------------------------- defect 2


def test_a_candidate_run_once_against_an_incumbent_run_twice_is_incomplete(
    tmp_path: Path,
) -> None:
    once = {case: reps[:1] for case, reps in CLAUDE.items()}
    assert resolved(once) == 3  # what it would have scored: i1, i2 and i3's first repetition
    ranking = ranked(spec(tmp_path), CLAUDE=once)
    claude = ranking.standing("CLAUDE")
    assert ranking.repetitions == 12 and gaps_words(claude.gaps) == "6 repetitions missing"
    assert not claude.eligible and ranking.winner is None and not ranking.clears
    assert ranking.clearance.code == "no_complete_candidate" and ranking.passed_over == ()


def test_the_release_rules_repetitions_make_a_two_repetition_campaign_incomplete(
    tmp_path: Path,
) -> None:
    gate = spec(tmp_path, "{repetitions: 3}")
    ranking = ranked(gate, CLAUDE=CLAUDE, MERGE=MERGE)
    assert ranking.repetitions == 6 * 3
    assert all(gaps_words(s.gaps) == "6 repetitions missing" for s in ranking.standings)
    assert ranking.winner is None
    # at the edge: two repetitions asked, two run, complete
    assert ranked(spec(tmp_path, "{repetitions: 2}"), CLAUDE=CLAUDE).clears


def test_the_header_counts_the_incumbents_repetitions(tmp_path: Path) -> None:
    """The incumbent ran three repetitions, the candidates two: 18 are asked, none complete."""
    thrice = {case: [*reps, reps[-1]] for case, reps in INCUMBENT.items()}
    ranking = ranked(spec(tmp_path), thrice, CLAUDE=CLAUDE, MERGE=MERGE)
    assert ranking.repetitions == 18 and ranking.winner is None
    assert grid_words(ranking).startswith("6 cases (18 repetitions asked of each candidate)")
    assert ranking.clearance.code == "no_complete_candidate"


# --------------------------------------------------------------------------- defect 3


def test_a_dead_heat_names_no_leader_anywhere(tmp_path: Path) -> None:
    ranking = ranked(spec(tmp_path), A=CLAUDE, B=CLAUDE)
    data = to_json(ranking)
    assert data["labels"]["winner"] is None and data["lead"] is None
    assert data["tie_groups"] == [["A", "B"]]
    assert "the lead" not in dict(summary_lines(ranking))


def test_holm_counts_only_the_candidates_that_could_win(tmp_path: Path) -> None:
    strong = {"i1": [T, T], "i2": [T, T], "i3": [T, T], "i4": [T, T], "i5": [F, F], "i6": [F, F]}
    invalid = run("BROKEN", strong, change={"keys": ["model"], "summary": "undeclared"})
    candidates = [
        ("CLAUDE", run("CLAUDE", CLAUDE)),
        ("STRONG", run("STRONG", strong)),
        ("HURRIED", run("HURRIED", HURRIED)),
        ("BROKEN", invalid),
    ]
    ranking = rank(run("incumbent", INCUMBENT), candidates, spec(tmp_path))
    assert ranking.family == ("STRONG", "CLAUDE")
    # one-sided p of the fixes, by hand: STRONG fixes i2, i3, i4 (3 of 3 flips) -> 1/8; CLAUDE
    # fixes i2 (1 of 1) -> 1/2. Holm over m = 2: 2 * 1/8 = 1/4, then max(1/4, 1 * 1/2) = 1/2.
    s, c = ranking.standing("STRONG"), ranking.standing("CLAUDE")
    assert (s.improvement_p, c.improvement_p) == (1 / 8, 1 / 2)
    assert (s.improvement_p_holm, c.improvement_p_holm) == (1 / 4, 1 / 2)
    broken = ranking.standing("BROKEN")
    assert broken.gate.verdict == "INVALID" and broken.improvement_p is None
    assert evidence_words(broken) == "not tested: INVALID"
    hurried = ranking.standing("HURRIED")
    assert hurried.improvement_p_holm is None and not hurried.evidence
    assert evidence_words(hurried).startswith("not in the family: incomplete")
    words = multiplicity_words(ranking)
    assert "the 2 candidates that could win (STRONG and CLAUDE)" in words
    assert "2 candidates incomplete or INVALID" in words
    data = to_json(ranking)
    assert data["multiplicity"]["family"] == 2
    assert next(c for c in data["candidates"] if c["name"] == "BROKEN")["improvement"] == {
        "p": None,
        "p_holm": None,
        "evidence": False,
    }


# --------------------------------------------------------------------------- seed 003


@pytest.mark.parametrize(
    ("least", "code"), [(1, "clears"), (2, "clears"), (3, "below_minimum"), (4, "below_minimum")]
)
def test_a_least_key_is_part_of_clearing(tmp_path: Path, least: int, code: str) -> None:
    """ "At least 4 of 6 instances resolved": CLAUDE resolves 2, so 2 clears and 3 does not."""
    ranking = ranked(spec(tmp_path, f"{{min_key: {least}}}"), CLAUDE=CLAUDE, MERGE=MERGE)
    assert ranking.winner == "CLAUDE" and ranking.clearance.code == code
    if code == "below_minimum":
        assert why(ranking) == (
            f"CLAUDE passes 2 cases, below the release rule's least of {least}: the incumbent stays"
        )


def test_a_mean_key_promotes_merge_as_the_seeds_scalar_default_does(tmp_path: Path) -> None:
    ranking = ranked(spec(tmp_path, "{key: mean}"), CLAUDE=CLAUDE, MERGE=MERGE)
    assert [s.name for s in ranking.standings] == ["MERGE", "CLAUDE"]
    assert ranking.winner == "MERGE" and ranking.disagreement is None
    assert ranking.clears  # 6/12 above the incumbent's 4/12, and the gate passes
    assert why(ranking).startswith("MERGE's mean 0.500 is above the incumbent's 0.333")


@pytest.mark.parametrize(("least", "clears"), [("0.5", True), ("0.5000001", False)])
def test_a_least_mean_is_compared_exactly(tmp_path: Path, least: str, clears: bool) -> None:
    ranking = ranked(spec(tmp_path, f"{{key: mean, min_key: {least}}}"), MERGE=MERGE)
    assert ranking.clears is clears
    if not clears:
        assert why(ranking) == (
            "MERGE's mean 0.500 is below the release rule's least of 50.00001%: the incumbent stays"
        )


def test_a_mean_key_tied_with_the_incumbent_keeps_it(tmp_path: Path) -> None:
    same: Verdicts = {
        "i1": [T, T],
        "i2": [T, T],
        "i3": [F, F],
        "i4": [F, F],
        "i5": [F, F],
        "i6": [F, F],
    }
    ranking = ranked(spec(tmp_path, "{key: mean}"), SAME=same)  # 4/12, the incumbent's too
    assert ranking.clearance.code == "not_better"
    assert "ties the incumbent's 0.333" in why(ranking)


def test_candidates_that_cannot_be_told_apart_form_one_group(tmp_path: Path) -> None:
    """Twenty cases; A passes all, B 12, C 11: A is told from B (8 discordant cases, all for A,
    p = 2/256), B not from C (1 discordant case, p = 1)."""
    cases = [f"c{i:02d}" for i in range(20)]
    incumbent: Verdicts = {c: [i < 10] for i, c in enumerate(cases)}
    a: Verdicts = {c: [True] for c in cases}
    b: Verdicts = {c: [i < 12] for i, c in enumerate(cases)}
    c_: Verdicts = {c: [i < 11] for i, c in enumerate(cases)}
    ranking = ranked(spec(tmp_path), incumbent, A=a, B=b, C=c_)
    assert [s.group for s in ranking.standings] == [1, 2, 2]
    first, second = ranking.leads
    assert first.p_two_sided == two_sided(8, 0) == 2 / 256
    assert second.p_two_sided == two_sided(1, 0) == 1.0
    words = tie_group_words(ranking)
    assert words is not None and words.startswith("A > B = C: 2 groups, each told from the next")
    assert to_json(ranking)["tie_groups"] == [["A"], ["B", "C"]]


@pytest.mark.parametrize(
    ("release", "field"),
    [
        ("{key: median}", "release.key"),
        ("{repetitions: 0}", "release.repetitions"),
        ("{min_key: 2.5}", "release.min_key"),
        ("{key: mean, min_key: 2}", "release.min_key"),
        ("{least: 2}", "release.least"),
    ],
)
def test_bad_release_settings_name_their_field(tmp_path: Path, release: str, field: str) -> None:
    with pytest.raises(InputError) as caught:
        spec(tmp_path, release)
    assert caught.value.field == field and caught.value.line == 2
