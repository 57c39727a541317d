"""The bundled sample runs hold the figures their READMEs and the seeds promise.

Every figure is recomputed here from the files with json.loads and dict loops, on purpose
independent of flipgate.core: these tests pin the data, and the gate engine is checked against it
elsewhere.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Set
from datetime import datetime
from itertools import product
from math import comb
from pathlib import Path
from typing import Any

import pytest
import yaml

from scripts import make_samples
from tests.conftest import SAMPLES, copy_sample, files_below

LISTING = SAMPLES / "listing-reviewer"
DECISIVE = SAMPLES / "listing-reviewer-decisive"
AGENT = SAMPLES / "agent-suite"
WINNER_RULE = SAMPLES / "winner-rule"

EVERY_DISAGREEMENT = ["false_negative", "false_positive", "mirror", "inconclusive"]
MARGIN, FLIP_CAP, ALPHA = 2, 10, 0.05  # the `full` set of every sample gate.yaml

Row = dict[str, Any]


def rows(run: Path) -> list[Row]:
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def manifest(run: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((run / "run.yaml").read_text(encoding="utf-8"))
    return data


def fail_on(gate: Path) -> list[str]:
    spec = yaml.safe_load(gate.read_text(encoding="utf-8")) or {}
    listed: list[str] = spec.get("outcomes", {}).get("fail_on", EVERY_DISAGREEMENT)
    return listed


def flaky_cases(workspace: Path) -> set[str]:
    entries = yaml.safe_load((workspace / "flaky.yaml").read_text(encoding="utf-8"))["entries"]
    return {e["case"] for e in entries}


def outcome(expected: str, actual: str) -> str:
    """SPEC §4 with the default labels, checked in the table's order."""
    if expected == actual:
        return "agreement"
    if expected == "escalate":
        return "mirror"
    if actual == "escalate":
        return "inconclusive"
    return "false_negative" if expected == "reject" else "false_positive"


def decisions(run_rows: Iterable[Row]) -> list[tuple[str, str, str, str]]:
    """(case, rule, expected, actual) of every labelled decision."""
    return [
        (r["case"], rule, e, r["actual"][rule])
        for r in run_rows
        for rule, e in r.get("expected", {}).items()
    ]


def outcome_counts(run_rows: list[Row]) -> Counter[str]:
    return Counter(outcome(e, a) for _, _, e, a in decisions(run_rows))


def cost(run_rows: list[Row], prices: dict[str, int]) -> int:
    total = 0
    for _, _, e, a in decisions(run_rows):
        kind = outcome(e, a)
        if kind == "mirror":  # priced by the direction it decided
            kind = "false_negative" if a == "approve" else "false_positive"
        total += prices.get(kind, 0)
    return total


def red_histogram(run_rows: list[Row]) -> dict[int, int]:
    """How many red cases hold one, two, three... wrong decisions."""
    wrong = Counter(case for case, _, e, a in decisions(run_rows) if e != a)
    return dict(sorted(Counter(wrong.values()).items()))


def rep_passes(row: Row, failing: list[str]) -> bool | None:
    """SPEC §2: None for an infra repetition."""
    if row.get("status") == "infra":
        return None
    labelled = all(
        outcome(e, row["actual"][k]) not in failing for k, e in row.get("expected", {}).items()
    )
    checks = row.get("passed", {})
    return labelled and all(checks.values() if isinstance(checks, dict) else [checks])


def collapse(run_rows: list[Row], failing: list[str]) -> dict[str, bool | None]:
    """SPEC §3.1: strict majority for an ordinary case, every rep for a safety case."""
    graded: dict[str, list[bool]] = {}
    safety: dict[str, bool] = {}
    for r in run_rows:
        graded.setdefault(r["case"], [])
        safety[r["case"]] = r.get("safety", False)
        if (passed := rep_passes(r, failing)) is not None:
            graded[r["case"]].append(passed)
    verdicts: dict[str, bool | None] = {}
    for case, reps in graded.items():
        if not reps:
            verdicts[case] = None
        elif safety[case]:
            verdicts[case] = all(reps)
        else:
            verdicts[case] = sum(reps) * 2 > len(reps)
    return verdicts


def flips(
    base: list[Row], cand: list[Row], failing: list[str], flaky: Set[str] = frozenset()
) -> tuple[list[str], list[str]]:
    """The cases counted in b (pass -> fail) and c (fail -> pass)."""
    b_arm, c_arm = collapse(base, failing), collapse(cand, failing)
    paired = sorted(
        k
        for k in b_arm.keys() & c_arm.keys()
        if None not in (b_arm[k], c_arm[k]) and k not in flaky
    )
    return (
        [k for k in paired if b_arm[k] and not c_arm[k]],
        [k for k in paired if not b_arm[k] and c_arm[k]],
    )


def p_value(b: int, c: int) -> float:
    n = b + c
    return sum(comb(n, k) for k in range(b, n + 1)) / (1 << n) if n else 1.0


def sign_flip(totals: Iterable[int]) -> float:
    """P(sum of signed totals >= the observed sum), every sign assignment enumerated."""
    nets = [t for t in totals if t]
    observed = sum(nets)
    hits = sum(
        sum(s * t for s, t in zip(signs, nets, strict=True)) >= observed
        for signs in product((1, -1), repeat=len(nets))
    )
    return hits / (1 << len(nets))


def clusters(run_rows: list[Row]) -> dict[str, str]:
    """Each case's cluster: its template, or itself (SPEC §9: templates counted once)."""
    return {r["case"]: r.get("template") or r["case"] for r in run_rows}


def matched_false_negatives(base: list[Row], cand: list[Row]) -> dict[str, int]:
    """Per paired case, the candidate's false negatives minus the baseline's over the first
    min(n_b, n_c) gradable repetitions of each (by rep)."""

    def per_rep(run_rows: list[Row]) -> dict[str, list[int]]:
        found: dict[str, list[tuple[int, int]]] = {}
        for r in run_rows:
            if r.get("status") != "infra":
                missed = sum(
                    outcome(e, r["actual"][k]) == "false_negative"
                    for k, e in r.get("expected", {}).items()
                )
                found.setdefault(r["case"], []).append((r.get("rep", 0), missed))
        return {case: [n for _, n in sorted(reps)] for case, reps in found.items()}

    b_reps, c_reps = per_rep(base), per_rep(cand)
    return {
        case: sum(c_reps[case][:keep]) - sum(b_reps[case][:keep])
        for case in b_reps.keys() & c_reps.keys()
        for keep in [min(len(b_reps[case]), len(c_reps[case]))]
    }


def infra_share(run_rows: list[Row]) -> float:
    return sum(1 for r in run_rows if r.get("status") == "infra") / len(run_rows)


def verdict(workspace: Path, gate: Path, base: list[Row], cand: list[Row]) -> tuple[str, str]:
    """SPEC §3.5, first matching line wins: (verdict, rule)."""
    spec = yaml.safe_load(gate.read_text(encoding="utf-8"))
    failing = fail_on(gate)
    if any(r.get("safety") and rep_passes(r, failing) is False for r in cand):
        return "BLOCK", "safety"
    keys_b, keys_c = (
        manifest(workspace / "baseline")["key"],
        manifest(workspace / "candidate")["key"],
    )
    allowed = set(manifest(workspace / "candidate").get("change", {}).get("keys", []))
    drift = {k for k in keys_b.keys() | keys_c.keys() if keys_b.get(k) != keys_c.get(k)} - allowed
    infra_max = spec["infra"]["max_share"]
    if drift or infra_share(base) > infra_max or infra_share(cand) > infra_max:
        return "INVALID", "invalid"
    broke, fixed = flips(base, cand, failing, flaky_cases(workspace))
    b, c = len(broke), len(fixed)
    cluster = clusters(base + cand)
    nets: Counter[str] = Counter()
    for case in broke:
        nets[cluster[case]] += 1
    for case in fixed:
        nets[cluster[case]] -= 1
    first_look = spec["alpha"] * spec["looks"]["share"]  # `looks: spend`, the first look
    if sign_flip(nets.values()) <= first_look:
        return "BLOCK", "significance"
    limits, counts = spec["outcomes"]["limits"], outcome_counts(cand)
    fn_max = limits["false_negative_max"]
    zero_rules = set(limits["zero_false_negative_rules"])
    share = limits["inconclusive_max_share"]
    decided = decisions(cand)
    excess: Counter[str] = Counter()
    for case, d in matched_false_negatives(base, cand).items():
        excess[cluster[case]] += d
    if (
        (fn_max == "baseline" and sign_flip(excess.values()) <= spec["alpha"])
        or (fn_max != "baseline" and counts["false_negative"] > fn_max)
        or any(
            rule in zero_rules and outcome(e, a) == "false_negative" for _, rule, e, a in decided
        )
        or (share is not None and counts["inconclusive"] > share * len(decided))
    ):
        return "BLOCK", "outcome_limit"
    if b - c <= MARGIN and b <= FLIP_CAP:
        return "PASS", "within_margin"
    return "INCONCLUSIVE", "undecided"


# --------------------------------------------------------------------------- listing reviewer

PRICES = {"false_negative": 400, "false_positive": 15, "inconclusive": 4}


def five(agreement: int, fn: int, fp: int, inconclusive: int, mirror: int) -> Counter[str]:
    return +Counter(
        agreement=agreement,
        false_negative=fn,
        false_positive=fp,
        inconclusive=inconclusive,
        mirror=mirror,
    )


@pytest.mark.parametrize(
    ("run", "counts", "histogram", "expected_cost"),
    [
        (LISTING / "baseline", five(459, 9, 4, 8, 0), {1: 17, 2: 2}, 3692),
        (LISTING / "candidate", five(442, 2, 3, 30, 3), {1: 29, 2: 3, 3: 1}, 1010),
        (DECISIVE / "candidate", five(442, 26, 4, 8, 0), {1: 29, 2: 3, 3: 1}, 10492),
    ],
)
def test_listing_runs_reconcile(
    run: Path, counts: Counter[str], histogram: dict[int, int], expected_cost: int
) -> None:
    run_rows = rows(run)
    assert len(run_rows) == 120 and {r["rep"] for r in run_rows} == {0}
    assert outcome_counts(run_rows) == counts
    assert sum(counts.values()) == 480
    assert red_histogram(run_rows) == histogram
    assert cost(run_rows, PRICES) == expected_cost
    assert all(set(r["reasons"]) == set(r["expected"]) for r in run_rows)


def test_listing_cases_from_the_seed() -> None:
    base = {r["case"]: r for r in rows(LISTING / "baseline")}
    cand = {r["case"]: r for r in rows(LISTING / "candidate")}
    knife = cand["listing-047"]
    assert "hunting knife" in knife["listing"]["title"]
    assert knife["expected"]["prohibited_items"] == "escalate"
    car_seat = base["listing-018"]
    assert "car seat" in car_seat["listing"]["title"] and car_seat["safety"]
    assert (
        outcome(car_seat["expected"]["recalled_products"], car_seat["actual"]["recalled_products"])
        == "false_negative"
    )
    magnets = cand["listing-071"]
    # A recalled magnet set: approved as an item (not on the zero-FN rule), hedged on the rest.
    assert {
        rule: outcome(e, magnets["actual"][rule]) for rule, e in magnets["expected"].items()
    } == {
        "prohibited_items": "false_negative",
        "recalled_products": "inconclusive",
        "misleading_claims": "inconclusive",
        "off_platform_contact": "agreement",
    }
    mirrors = [(c, a) for c, _, e, a in decisions(cand.values()) if outcome(e, a) == "mirror"]
    assert sorted(mirrors) == [
        ("listing-023", "reject"),
        ("listing-047", "reject"),
        ("listing-076", "reject"),
    ]
    assert sum(r["safety"] for r in cand.values()) == 10


def test_listing_keys_differ_only_in_the_model() -> None:
    base, cand = manifest(LISTING / "baseline"), manifest(LISTING / "candidate")
    assert cand["change"]["keys"] == ["model"]
    assert {k for k in base["key"] if base["key"][k] != cand["key"][k]} == {"model"}
    assert base["created"] < cand["created"] and base["run_id"] != cand["run_id"]


def test_gate_on_costly_outcomes_passes_the_cautious_model() -> None:
    gate = LISTING / "gate.yaml"
    base, cand = rows(LISTING / "baseline"), rows(LISTING / "candidate")
    assert fail_on(gate) == ["false_negative", "false_positive", "mirror"]
    b, c = flips(base, cand, fail_on(gate))
    assert (len(b), len(c)) == (6, 11)
    assert p_value(6, 11) == pytest.approx(0.9283, abs=1e-4)
    assert outcome_counts(cand)["inconclusive"] / 480 == 0.0625
    assert verdict(LISTING, gate, base, cand) == ("PASS", "within_margin")


def test_plain_pass_fail_blocks_the_cautious_model() -> None:
    gate = LISTING / "plain-pass-fail.yaml"
    base, cand = rows(LISTING / "baseline"), rows(LISTING / "candidate")
    assert fail_on(gate) == EVERY_DISAGREEMENT
    b, c = flips(base, cand, fail_on(gate))
    assert (len(b), len(c)) == (22, 8)
    assert p_value(22, 8) == pytest.approx(0.00806, abs=1e-5)
    assert verdict(LISTING, gate, base, cand) == ("BLOCK", "significance")


def test_decisive_model_blocks_on_the_same_baseline() -> None:
    assert (DECISIVE / "baseline" / "results.jsonl").read_bytes() == (
        LISTING / "baseline" / "results.jsonl"
    ).read_bytes()
    assert (DECISIVE / "gate.yaml").read_bytes() == (LISTING / "gate.yaml").read_bytes()
    base, cand = rows(DECISIVE / "baseline"), rows(DECISIVE / "candidate")
    b, c = flips(base, cand, fail_on(DECISIVE / "gate.yaml"))
    assert (len(b), len(c)) == (15, 1)
    assert p_value(15, 1) == 17 / 65536
    assert verdict(DECISIVE, DECISIVE / "gate.yaml", base, cand) == ("BLOCK", "significance")
    # The outcome limits would block it as well: 26 false negatives against the baseline's 9.
    assert outcome_counts(cand)["false_negative"] > outcome_counts(base)["false_negative"]


# --------------------------------------------------------------------------- agent suite

AGENT_FAIL_ON = EVERY_DISAGREEMENT


def agent_rows(name: str) -> list[Row]:
    return rows(AGENT / name)


def test_agent_suite_shape() -> None:
    for arm in ("baseline", "candidate"):
        run_rows = agent_rows(arm)
        assert len({r["case"] for r in run_rows}) == 200 and len(run_rows) == 600
        assert all(
            "expected" not in r and ("passed" in r or r["status"] == "infra") for r in run_rows
        )
        assert len({r["case"] for r in run_rows if r["safety"]}) == 8
    assert fail_on(AGENT / "gate.yaml") == AGENT_FAIL_ON
    base, cand = manifest(AGENT / "baseline"), manifest(AGENT / "candidate")
    assert cand["change"]["keys"] == ["prompt"]
    assert {k for k in base["key"] if base["key"][k] != cand["key"][k]} == {"prompt"}


def test_agent_infra_stays_under_the_share() -> None:
    base, cand = agent_rows("baseline"), agent_rows("candidate")
    assert (infra_share(base), infra_share(cand)) == (5 / 600, 6 / 600)
    kinds = {r["infra"] for r in base + cand if r.get("status") == "infra"}
    assert kinds == {"timeout", "rate_limit", "crash"}


def test_agent_suite_is_inconclusive() -> None:
    base, cand = agent_rows("baseline"), agent_rows("candidate")
    b, c = flips(base, cand, AGENT_FAIL_ON, flaky_cases(AGENT))
    assert (len(b), len(c)) == (9, 3)
    assert p_value(9, 3) == 299 / 4096
    assert verdict(AGENT, AGENT / "gate.yaml", base, cand) == ("INCONCLUSIVE", "undecided")


def test_agent_flaky_list_cases_flip_but_do_not_count() -> None:
    base, cand = agent_rows("baseline"), agent_rows("candidate")
    b_all, c_all = flips(base, cand, AGENT_FAIL_ON)
    b, c = flips(base, cand, AGENT_FAIL_ON, flaky_cases(AGENT))
    assert (
        sorted(set(b_all + c_all) - set(b + c))
        == sorted(flaky_cases(AGENT))
        == ["case-005", "case-047"]
    )
    created = manifest(AGENT / "baseline")["created"]  # YAML reads an ISO time as a datetime
    assert isinstance(created, datetime)
    for entry in yaml.safe_load((AGENT / "flaky.yaml").read_text(encoding="utf-8"))["entries"]:
        assert set(entry) == {"case", "owner", "added", "reason", "evidence"}
        assert entry["added"] < created.date()


def test_agent_triage_evidence() -> None:
    base, cand = agent_rows("baseline"), agent_rows("candidate")

    def reps(run_rows: list[Row], case: str) -> list[bool | None]:
        return [rep_passes(r, AGENT_FAIL_ON) for r in run_rows if r["case"] == case]

    # A timeout cost case-109 its majority: one pass, one fail, one infra.
    assert sorted(reps(cand, "case-109"), key=str) == [False, None, True]
    # case-127: the same transcript in both arms, a different grade.
    outputs = [[r["output"] for r in run if r["case"] == "case-127"] for run in (base, cand)]
    assert outputs[0] == outputs[1]
    assert reps(base, "case-127") == [True] * 3 and reps(cand, "case-127") == [False] * 3
    # Repetitions that split within an arm, on flipped cases and on steady ones.
    split = {
        r["case"] for run in (base, cand) for r in run if len({*reps(run, r["case"])} - {None}) == 2
    }
    assert {"case-012", "case-183", "case-019", "case-033"} <= split
    # No safety case fails in any candidate repetition.
    assert all(rep_passes(r, AGENT_FAIL_ON) is not False for r in cand if r["safety"])


def test_agent_reruns_keep_it_inconclusive() -> None:
    base, cand = agent_rows("baseline"), agent_rows("candidate")
    b, c = flips(base, cand, AGENT_FAIL_ON, flaky_cases(AGENT))
    rerun = {arm: agent_rows(f"reruns/{arm}") for arm in ("baseline", "candidate")}
    for arm, run_rows in rerun.items():
        assert {r["case"] for r in run_rows} == set(b + c)
        assert Counter(r["case"] for r in run_rows) == dict.fromkeys(b + c, 5)
        assert manifest(AGENT / "reruns" / arm)["key"] == manifest(AGENT / arm)["key"]
    run_ids = {
        manifest(AGENT / p)["run_id"]
        for p in ("baseline", "candidate", "reruns/baseline", "reruns/candidate")
    }
    assert len(run_ids) == 4

    def replaced(original: list[Row], new: list[Row]) -> list[Row]:
        rerun_cases = {r["case"] for r in new}
        return [r for r in original if r["case"] not in rerun_cases] + new

    base2, cand2 = replaced(base, rerun["baseline"]), replaced(cand, rerun["candidate"])
    b2, c2 = flips(base2, cand2, AGENT_FAIL_ON, flaky_cases(AGENT))
    assert (len(b2), len(c2)) == (7, 2)
    assert p_value(7, 2) == 46 / 512
    assert verdict(AGENT, AGENT / "gate.yaml", base2, cand2) == ("INCONCLUSIVE", "undecided")


def test_agent_baseline_repeats_show_the_flaky_cases() -> None:
    runs = [AGENT / "baseline", AGENT / "baseline-repeats/run-2", AGENT / "baseline-repeats/run-3"]
    assert len({json.dumps(manifest(r)["key"], sort_keys=True) for r in runs}) == 1
    assert len({manifest(r)["run_id"] for r in runs}) == 3
    verdicts = [collapse(rows(r), AGENT_FAIL_ON) for r in runs]
    flipping = sorted(k for k in verdicts[0] if len({v[k] for v in verdicts}) > 1)
    assert flipping == ["case-005", "case-033", "case-047", "case-104", "case-183"]
    safety = {r["case"] for r in agent_rows("baseline") if r["safety"]}
    assert not safety & set(flipping) and flaky_cases(AGENT) <= set(flipping)


# --------------------------------------------------------------------------- winner rule


def test_winner_rule_holds_the_seed_table() -> None:
    """Seed 003: CLAUDE 5 of 12 cells and 2 instances resolved on both repetitions, MERGE 6 of
    12 and 1; HURRIED lacks one repetition; the release rule needs every repetition."""
    gate = yaml.safe_load((WINNER_RULE / "gate.yaml").read_text())
    assert gate["aggregate"] == {"ordinary": "all", "safety": "all"}
    figures = {}
    for name in ("CLAUDE", "MERGE", "HURRIED"):
        by_case: dict[str, list[bool]] = {}
        for row in rows(WINNER_RULE / "candidates" / name):
            by_case.setdefault(row["case"], []).append(row["passed"])
        cells = [p for reps in by_case.values() for p in reps]
        figures[name] = (sum(cells), len(cells), sum(all(reps) for reps in by_case.values()))
    assert figures == {"CLAUDE": (5, 12, 2), "MERGE": (6, 12, 1), "HURRIED": (5, 11, 3)}
    incumbent = rows(WINNER_RULE / "baseline")
    assert sum(r["passed"] for r in incumbent) == 4 and len(incumbent) == 12


# --------------------------------------------------------------------------- the generator


def test_generator_reproduces_the_committed_files(tmp_path: Path) -> None:
    """Given the committed signed decisions, it writes every file as committed: regenerating
    the samples leaves `git status` clean."""
    out = tmp_path / "sample_runs"
    copy_sample("support-assistant/decisions", out / "support-assistant" / "decisions")
    make_samples.main(["--out", str(out)])
    assert files_below(out) == files_below(SAMPLES)


def test_generator_never_signs_a_decision_again(tmp_path: Path) -> None:
    """The first run signs with a fresh key; the second keeps those files to the byte, and
    stops rather than drop or change a signed decision it would not write itself."""
    out = tmp_path / "sample_runs"
    make_samples.main(["--out", str(out)])
    first = files_below(out)
    assert len([name for name in first if "/decisions/" in name]) == 5
    make_samples.main(["--out", str(out)])
    assert files_below(out) == first
    mine = out / "listing-reviewer" / "decisions" / "mine.yaml"
    mine.parent.mkdir()
    mine.write_text("signed while trying the sample\n")
    with pytest.raises(SystemExit, match=r"mine\.yaml is a signed decision"):
        make_samples.main(["--out", str(out)])
    assert files_below(out) == first | {"listing-reviewer/decisions/mine.yaml": mine.read_bytes()}
