"""Ranking candidates by the release rule (seed 003): the seed's table and the three labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.gate.collapse import collapsed_verdicts
from flipgate.core.gate.compare import compare
from flipgate.core.gate.spec import GateSpec, default_spec, load_spec
from flipgate.core.rank.ranking import Clearance, Disagreement, Ranking, holm, rank
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run, run_from_records
from flipgate.core.vocab import Aggregate
from flipgate.present.choosing import gaps_words
from flipgate.present.ranking import disagreement_words, why
from tests.conftest import passfail_rows, write_run

T, F = True, False
# Seed 003's table: six instances, two repetitions, T = resolved.
Verdicts = dict[str, list[bool | None]]  # case -> each repetition: pass, fail, infra (None)
CLAUDE: Verdicts = {
    "i1": [T, T],
    "i2": [T, T],
    "i3": [T, F],
    "i4": [F, F],
    "i5": [F, F],
    "i6": [F, F],
}
MERGE: Verdicts = {
    "i1": [T, T],
    "i2": [T, F],
    "i3": [F, T],
    "i4": [T, F],
    "i5": [F, T],
    "i6": [F, F],
}
INCUMBENT: Verdicts = {
    "i1": [T, T],
    "i2": [T, F],
    "i3": [F, F],
    "i4": [F, T],
    "i5": [F, F],
    "i6": [F, F],
}


@pytest.fixture
def every_rep(tmp_path: Path) -> GateSpec:
    """The seed's fail-closed release rule: a case passes only when every repetition does."""
    path = tmp_path / "gate.yaml"
    path.write_text("aggregate: {ordinary: all, safety: all}\n")
    return load_spec(path)


def run(
    name: str,
    verdicts: Mapping[str, Sequence[bool | None]],
    safety: tuple[str, ...] = (),
    **manifest: object,
) -> Run:
    manifest = {"run_id": name, "key": {"model": "m1", "prompt": name}, **manifest}
    if name != "incumbent":
        manifest.setdefault("change", {"keys": ["prompt"], "summary": name})
    return run_from_records(manifest, passfail_rows(verdicts, safety), source=Path(name))


def ranked(spec: GateSpec, **candidates: Mapping[str, Sequence[bool | None]]) -> Ranking:
    return rank(run("incumbent", INCUMBENT), [(n, run(n, v)) for n, v in candidates.items()], spec)


def test_seed_table_mean_picks_merge_and_the_key_picks_claude(every_rep: GateSpec) -> None:
    ranking = ranked(every_rep, CLAUDE=CLAUDE, MERGE=MERGE)
    claude, merge = ranking.standing("CLAUDE"), ranking.standing("MERGE")
    assert f"{claude.cells.mean:.3f}" == "0.417" and (
        claude.cells.passing,
        claude.cells.graded,
    ) == (5, 12)
    assert f"{merge.cells.mean:.3f}" == "0.500" and (merge.cells.passing, merge.cells.graded) == (
        6,
        12,
    )
    assert (claude.release_key, merge.release_key) == (2, 1)
    assert ranking.highest_mean == ("MERGE",)
    assert ranking.winner == "CLAUDE"
    assert [s.name for s in ranking.standings] == ["CLAUDE", "MERGE"]
    assert ranking.disagreement == Disagreement("release_key_decides", "MERGE", "CLAUDE")
    assert "The release key decides: CLAUDE" in disagreement_words(ranking, ranking.disagreement)
    # CLAUDE passes 2 cases to the incumbent's 1, and the gate passes it: it clears.
    assert ranking.incumbent.release_key == 1
    assert claude.gate.verdict == "PASS" and ranking.clears


def test_under_the_majority_rule_a_split_case_fails_and_the_table_agrees() -> None:
    # The default collapse, majority with a tie failing, gives each the same fully resolved count
    # as `all` on two repetitions: the key is built from the gate's collapse, whatever it is.
    ranking = ranked(default_spec(), CLAUDE=CLAUDE, MERGE=MERGE)
    assert (ranking.standing("CLAUDE").release_key, ranking.standing("MERGE").release_key) == (2, 1)


def test_when_mean_and_key_agree_nothing_is_said(every_rep: GateSpec) -> None:
    strong = {"i1": [T, T], "i2": [T, T], "i3": [T, T], "i4": [T, F], "i5": [F, F], "i6": [F, F]}
    ranking = ranked(every_rep, STRONG=strong, MERGE=MERGE)
    assert ranking.highest_mean == ("STRONG",) and ranking.winner == "STRONG"
    assert ranking.disagreement is None and ranking.clears


def test_a_tie_with_the_incumbent_keeps_the_incumbent(every_rep: GateSpec) -> None:
    ranking = ranked(every_rep, MERGE=MERGE)
    assert ranking.winner == "MERGE" and ranking.standing("MERGE").gate.verdict == "PASS"
    assert not ranking.clears
    assert ranking.clearance == Clearance("not_better", "MERGE", ("MERGE",), 1, 1, 0.5, 4 / 12)
    assert "ties the incumbent's 1" in why(ranking)


def test_an_incomplete_candidate_with_the_best_mean_is_not_the_winner(every_rep: GateSpec) -> None:
    # One repetition short: its lone pass on i3 passes the case, an easier cell than the others'.
    hurried = {"i1": [T, T], "i2": [T, T], "i3": [T], "i4": [T, T], "i5": [T, F], "i6": [F, F]}
    ranking = ranked(every_rep, CLAUDE=CLAUDE, MERGE=MERGE, HURRIED=hurried)
    rushed = ranking.standing("HURRIED")
    assert rushed.release_key == 4 and rushed.cells.mean == 8 / 11
    assert ranking.highest_mean == ("HURRIED",)
    assert not rushed.eligible and gaps_words(rushed.gaps) == "1 repetition missing"
    assert ranking.winner == "CLAUDE" and ranking.standings[-1].name == "HURRIED"
    assert ranking.disagreement == Disagreement("highest_mean_incomplete", "HURRIED", "CLAUDE")
    assert "HURRIED has the highest mean (0.727, 8 of 11 cells) but is incomplete" in (
        disagreement_words(ranking, ranking.disagreement)
    )


def test_infra_and_a_missing_case_make_a_candidate_incomplete(every_rep: GateSpec) -> None:
    infra = CLAUDE | {"i4": [F, None]}
    short = {case: reps for case, reps in CLAUDE.items() if case != "i6"}
    ranking = ranked(every_rep, INFRA=infra, SHORT=short, MERGE=MERGE)
    assert gaps_words(ranking.standing("INFRA").gaps) == "1 infra repetition"
    assert gaps_words(ranking.standing("SHORT").gaps) == "1 case missing (2 repetitions)"
    assert ranking.winner == "MERGE"


def test_a_winner_with_a_failed_safety_case_does_not_clear(every_rep: GateSpec) -> None:
    strong = {"i1": [T, T], "i2": [T, T], "i3": [T, T], "i4": [F, F], "i5": [F, F], "i6": [F, T]}
    safety = ("i6",)
    incumbent = run("incumbent", INCUMBENT | {"i6": [T, T]}, safety)
    ranking = rank(incumbent, [("STRONG", run("STRONG", strong, safety))], every_rep)
    assert ranking.winner == "STRONG" and ranking.standing("STRONG").release_key == 3
    assert ranking.standing("STRONG").gate.rule == "safety"
    assert not ranking.clears and ranking.clearance.code == "safety_failed"
    assert why(ranking).startswith("rejected: BLOCK: safety case failed")


def test_an_invalid_comparison_rejects_the_winner(every_rep: GateSpec) -> None:
    strong = {"i1": [T, T], "i2": [T, T], "i3": [T, T], "i4": [F, F], "i5": [F, F], "i6": [F, F]}
    undeclared = run("STRONG", strong, change={"keys": ["model"], "summary": "x"})
    ranking = rank(run("incumbent", INCUMBENT), [("STRONG", undeclared)], every_rep)
    assert ranking.winner == "STRONG" and not ranking.clears
    assert ranking.clearance.code == "invalid"
    assert why(ranking).startswith("rejected: the comparison with the incumbent is INVALID")


def test_an_exact_tie_between_candidates_names_no_winner(every_rep: GateSpec) -> None:
    ranking = ranked(every_rep, A=CLAUDE, B=CLAUDE)
    assert ranking.winner is None and not ranking.clears
    # each passes i1 and i2 (the release key) and 5 of its 12 repetitions
    assert ranking.clearance == Clearance("tied", None, ("A", "B"), 2, 1, 5 / 12, 4 / 12)
    assert ranking.highest_mean == ("A", "B")
    assert ranking.lead is None  # issue 28 item 17: the JSON named A the leader of a tie


def test_with_no_complete_candidate_none_can_win(every_rep: GateSpec) -> None:
    # each lacks a repetition the other holds
    ranking = ranked(every_rep, A=CLAUDE | {"i6": [F]}, B=CLAUDE | {"i5": [F]})
    assert ranking.winner is None and not ranking.clears
    assert ranking.clearance == Clearance("no_complete_candidate", None, (), None, 1, None, 4 / 12)
    assert why(ranking) == "no candidate is complete, so none can win: the incumbent stays"


def test_a_better_key_without_the_gates_pass_does_not_clear() -> None:
    """Twelve fixed, eleven broken: one case better by the key, but past the flip cap (10)."""
    incumbent: Verdicts = {}
    swapped: Verdicts = {}
    for i in range(12):
        incumbent[f"f{i:02d}"], swapped[f"f{i:02d}"] = [F], [T]
    for i in range(11):
        incumbent[f"b{i:02d}"], swapped[f"b{i:02d}"] = [T], [F]
    ranking = rank(run("incumbent", incumbent), [("SWAP", run("SWAP", swapped))], default_spec())
    assert ranking.standing("SWAP").gate.verdict == "INCONCLUSIVE"
    assert ranking.clearance == Clearance(
        "gate_not_pass", "SWAP", ("SWAP",), 12, 11, 12 / 23, 11 / 23
    )
    assert why(ranking).startswith("the gate against the incumbent says INCONCLUSIVE: ")


def test_the_lead_is_tested_both_ways(every_rep: GateSpec) -> None:
    lead = ranked(every_rep, CLAUDE=CLAUDE, MERGE=MERGE).lead
    assert lead is not None and (lead.winner, lead.runner_up) == ("CLAUDE", "MERGE")
    # CLAUDE alone resolves i2; MERGE resolves nothing CLAUDE does not: 1 discordant case.
    assert (lead.paired, lead.winner_only, lead.runner_up_only) == (6, 1, 0)
    assert lead.p_winner_better == 0.5 and lead.p_runner_up_better == 1.0
    assert lead.p_two_sided == 1.0 and lead.within_noise


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_the_lead_test_keeps_its_level_though_the_data_picked_the_leader(alpha: float) -> None:
    """Two equally good candidates, k cases where exactly one passes: each such case is a fair
    coin. The leader is whichever won more; testing it one-sided in that direction fires about
    twice alpha (issue 27: 5.4% against 2.7%), the two-sided p never more than alpha. Exact, by
    summing the binomial over every split."""
    from math import comb

    from flipgate.core.gate.mcnemar import mcnemar_p
    from flipgate.core.rank.ranking import Lead

    for k in range(1, 60):
        one_sided = two_sided = 0.0
        for w in range(k + 1):
            lead, other = max(w, k - w), min(w, k - w)
            chance = comb(k, w) / 2**k
            test = Lead(
                "a", "b", k, lead, other, mcnemar_p(lead, other), mcnemar_p(other, lead), alpha
            )
            one_sided += chance * (test.p_winner_better <= alpha)
            two_sided += chance * (not test.within_noise)
        assert two_sided <= alpha + 1e-12, k
        assert one_sided <= 2 * alpha + 1e-12
    assert one_sided > alpha  # at 59 cases the data-picked direction overshoots


def test_clears_is_permission_and_the_evidence_is_said_beside_it(every_rep: GateSpec) -> None:
    """Seed 003's CLAUDE clears the incumbent (key 2 against 1, gate PASS), with no evidence
    that it is better: it fixes one case the incumbent fails and breaks none (p 0.5)."""
    ranking = ranked(every_rep, CLAUDE=CLAUDE, MERGE=MERGE)
    claude = ranking.standing("CLAUDE")
    assert ranking.clears and "clears" in ranking.labels("CLAUDE")
    assert claude.improvement_p == 0.5 and not claude.evidence


def test_a_candidate_that_fixes_many_cases_has_evidence() -> None:
    incumbent = {f"c{i:02d}": [i < 10] for i in range(30)}
    better = {f"c{i:02d}": [i < 22] for i in range(30)}  # 12 fixed, none broke: p 1/4096
    ranking = rank(run("incumbent", incumbent), [("BETTER", run("BETTER", better))], default_spec())
    standing = ranking.standing("BETTER")
    assert standing.improvement_p == 1 / 4096 and standing.evidence


def test_templates_count_once_in_the_improvement_claim(tmp_path: Path) -> None:
    """Twelve fixes from one template are one cluster: the sign-flip p is 1/2, not 1/4096."""
    rows_inc = [
        {"case": f"c{i:02d}", "rep": 0, "passed": i < 10, "template": "t"} for i in range(30)
    ]
    rows_fix = [
        {"case": f"c{i:02d}", "rep": 0, "passed": i < 22, "template": "t"} for i in range(30)
    ]
    manifest = {"run_id": "x", "key": {"model": "m1", "prompt": "p"}}
    incumbent = run_from_records({**manifest, "run_id": "incumbent"}, rows_inc, source=Path("i"))
    better = run_from_records(
        {**manifest, "run_id": "better", "change": {"keys": ["prompt"]}}, rows_fix, source=Path("b")
    )
    ranking = rank(incumbent, [("BETTER", better)], default_spec())
    assert ranking.standing("BETTER").improvement_p == 0.5


def test_holm_corrects_the_improvement_claims_not_the_gate(every_rep: GateSpec) -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.2]) == [0.5, 0.4]
    ranking = ranked(every_rep, CLAUDE=CLAUDE, MERGE=MERGE)
    for standing in ranking.standings:
        holm_p, p = standing.improvement_p_holm, standing.improvement_p
        assert holm_p is not None and p is not None and holm_p >= p
        # the gate against the incumbent is applied as it stands, at the spec's alpha
        assert standing.gate.alpha == every_rep.alpha


def test_flaky_listed_cases_are_left_out_of_the_key(every_rep: GateSpec, tmp_path: Path) -> None:
    from flipgate.core.gate.flaky import load_flaky

    flaky = tmp_path / "flaky.yaml"
    flaky.write_text(
        "entries:\n  - {case: i2, owner: qa, added: 2026-11-01, reason: r, evidence: e}\n"
    )
    ranking = rank(
        run("incumbent", INCUMBENT),
        [("CLAUDE", run("CLAUDE", CLAUDE)), ("MERGE", run("MERGE", MERGE))],
        every_rep,
        load_flaky(flaky),
    )
    assert ranking.cases == 5 and ranking.standing("CLAUDE").release_key == 1
    # CLAUDE and MERGE now tie on the key, 1 each: the mean breaks the tie
    assert ranking.winner == "MERGE" and ranking.standings[1].name == "CLAUDE"
    assert ranking.incumbent.release_key == 1 and not ranking.clears


# --------------------------------------------------------------------------- property


verdict = st.sampled_from([True, False, None])
table = st.dictionaries(
    st.sampled_from([f"case-{i}" for i in range(8)]),
    st.lists(verdict, min_size=1, max_size=4),
    min_size=1,
)


@settings(max_examples=60)
@given(
    candidate=table,
    safety=st.sets(st.sampled_from([f"case-{i}" for i in range(8)])),
    ordinary=st.sampled_from(["majority", "all"]),
)
def test_the_release_key_is_what_the_gate_passes(
    candidate: dict[str, list[bool | None]], safety: set[str], ordinary: Aggregate
) -> None:
    spec = replace(default_spec(), aggregate_ordinary=ordinary)
    safe = tuple(safety & set(candidate))
    cand = run("cand", candidate, safe)
    incumbent = run("incumbent", {case: [True] for case in candidate}, safe)
    ranking = rank(incumbent, [("cand", cand)], spec)
    gate_passes = collapsed_verdicts(cand, spec)["passed"].sum()
    assert ranking.standing("cand").release_key == gate_passes
    cases = compare(incumbent, cand, spec).cases
    assert ranking.standing("cand").release_key == cases["cand_passed"].sum()
    # and by SPEC §3.1 written out: over graded repetitions, majority (a tie fails) or all
    expected = 0
    for case, reps in candidate.items():
        graded = [r for r in reps if r is not None]
        rule = "all" if case in safety else ordinary
        if graded and (all(graded) if rule == "all" else 2 * sum(graded) > len(graded)):
            expected += 1
    assert ranking.standing("cand").release_key == expected


def test_runs_from_disk_rank_the_same(tmp_path: Path, every_rep: GateSpec) -> None:
    paths = {
        name: write_run(
            tmp_path / name,
            passfail_rows(v),
            key={"model": "m1", "prompt": name},
            change={"keys": ["prompt"], "summary": name},
        )
        for name, v in (("CLAUDE", CLAUDE), ("MERGE", MERGE))
    }
    incumbent = write_run(
        tmp_path / "incumbent", passfail_rows(INCUMBENT), key={"model": "m1", "prompt": "incumbent"}
    )
    ranking = rank(load_run(incumbent), [(n, load_run(p)) for n, p in paths.items()], every_rep)
    assert ranking.winner == "CLAUDE" and ranking.standing("MERGE").path == paths["MERGE"]


def test_a_baseline_judged_once_gives_the_same_comparison(every_rep: GateSpec) -> None:
    from flipgate.core.gate.compare import judge_arm

    incumbent, claude = run("incumbent", INCUMBENT), run("CLAUDE", CLAUDE)
    judged = judge_arm("baseline", incumbent, every_rep)
    once = compare(incumbent, claude, every_rep, judged_baseline=judged)
    fresh = compare(incumbent, claude, every_rep)
    assert once.result == fresh.result and once.cases.equals(fresh.cases)
    with pytest.raises(ValueError, match="another run or spec"):
        compare(run("incumbent", INCUMBENT), claude, every_rep, judged_baseline=judged)


def test_a_case_the_incumbent_never_had_counts_in_no_key(every_rep: GateSpec) -> None:
    # As the gate counts a case only in the candidate in neither b nor c: no gain on it.
    new_case: Verdicts = {"i7": [T, T]}
    ranking = ranked(every_rep, CLAUDE=CLAUDE | new_case, MERGE=MERGE | new_case)
    assert ranking.cases == 6 and ranking.standing("CLAUDE").release_key == 2
    assert ranking.standing("CLAUDE").cells.passing == 7  # the mean describes every cell
    assert ranking.repetitions == 12 and ranking.winner == "CLAUDE"  # the incumbent's grid
    assert ranking.standing("MERGE").eligible  # i7 is in no key, and no gap of anyone's


def test_a_repetition_one_candidate_adds_is_its_own_gap_never_its_rivals() -> None:
    """Issue 28 item 3: the grid counted every repetition any candidate ran, so one extra
    repetition (or a case the incumbent never had) made every rival incomplete and its holder
    won with a lower key. Under the majority rule two extra passes turn i4's 1 of 3 into 3 of 5."""
    incumbent = {case: [*reps, F] for case, reps in INCUMBENT.items()}
    claude = {case: [*reps, reps[0]] for case, reps in CLAUDE.items()}  # key 3: i1, i2, i3
    padded = {case: [*reps, F] for case, reps in MERGE.items()} | {"i4": [T, F, F, T, T]}
    ranking = rank(
        run("incumbent", incumbent),
        [("CLAUDE", run("CLAUDE", claude)), ("PADDED", run("PADDED", padded | {"i9": [T]}))],
        default_spec(),
    )
    assert ranking.repetitions == 18
    assert ranking.standing("CLAUDE").gaps.complete
    padded_gaps = ranking.standing("PADDED").gaps
    assert not padded_gaps.complete and padded_gaps.extra_reps == 2
    assert gaps_words(padded_gaps) == "2 repetitions beyond the incumbent's"
    assert ranking.winner == "CLAUDE"
