"""Judge repeats (issue 23 item 2): a set whose flip rate is known, its exact interval against an
independent computation, the unstable cases proposed with the judge's evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binom, binomtest

from flipgate.core.curation.judge import propose_unstable
from flipgate.core.errors import InputError
from flipgate.core.gate.binomial import clopper_pearson, clopper_pearson_upper
from flipgate.core.gate.flaky import FlakyList
from flipgate.core.gate.judge import judge_repeats, ordered_passes
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from tests.conftest import write_run

CASES = [f"c{i:02d}" for i in range(40)]


def judged(tmp: Path, name: str, failing: set[str], **manifest: Any) -> Run:
    """Every case once, its output fixed, the check `correct` failing on `failing`."""
    rows = [
        {"case": case, "rep": 0, "passed": {"correct": case not in failing}, "output": f"{case}!"}
        for case in CASES
    ]
    return load_run(write_run(tmp / name, rows, run_id=name, **manifest))


@pytest.mark.parametrize(("k", "n"), [(0, 40), (10, 40), (40, 40), (3, 7), (1, 1)])
def test_clopper_pearson_against_scipy_and_the_tails(k: int, n: int) -> None:
    low, high = clopper_pearson(k, n, 0.95)
    reference = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert (low, high) == pytest.approx((reference.low, reference.high), abs=1e-9)
    # the two-sided upper bound is the one-sided one (found by bisection) at 97.5%
    assert high == pytest.approx(clopper_pearson_upper(k, n, 0.975), abs=1e-9)
    # the definition: each bound leaves 2.5% in its tail
    if k > 0:
        assert binom.sf(k - 1, n, low) == pytest.approx(0.025, abs=1e-9)
    if k < n:
        assert binom.cdf(k, n, high) == pytest.approx(0.025, abs=1e-9)


def test_a_judge_repeat_set_with_a_known_flip_rate(tmp_path: Path) -> None:
    """10 of 40 outputs get another verdict in one of two further judgings: rate 1/4."""
    run = judged(tmp_path, "base", {"c00"})
    flips = set(CASES[1:11])
    passes = [
        judged(tmp_path, "j2", {"c00"} | flips, judge_rep=2),
        judged(tmp_path, "j1", {"c00"}, judge_rep=1),
    ]
    repeats = judge_repeats("baseline", run, passes, default_spec())
    assert repeats.passes == ("base", "j1", "j2")  # a pass by its folder's name
    [rate] = repeats.rules
    assert (rate.rule, rate.outputs, rate.flipped, rate.rate) == ("correct", 40, 10, 0.25)
    assert (rate.low, rate.high) == pytest.approx(clopper_pearson(10, 40, 0.95))
    assert repeats.unstable_cases == tuple(sorted(flips))

    proposal = propose_unstable(repeats, run, default_spec(), FlakyList(), "qa")
    # the cap (5% of 40 cases) takes two; every unstable case is proposed with the judge's words
    assert [e.case for e in proposal.entries] == sorted(flips)
    assert proposal.slots_left == 2
    assert proposal.entries[0].evidence.startswith(
        "verdict flipped in 1 of 3 judgings of the same stored outputs (judge alone): "
        "pass, pass, fail"
    )
    assert "correct 10/40 outputs flipped" in proposal.entries[0].evidence


def test_a_pass_that_changed_an_output_is_refused(tmp_path: Path) -> None:
    run = judged(tmp_path, "base", set())
    rows = [{"case": "c00", "rep": 0, "passed": True, "output": "another answer"}]
    other = load_run(write_run(tmp_path / "other", rows))
    with pytest.raises(InputError) as refused:
        judge_repeats("candidate", run, [other], default_spec())
    assert refused.value.field == "output" and refused.value.line == 1
    assert "not the candidate run's output" in refused.value.message


def test_judge_rep_given_twice_is_refused(tmp_path: Path) -> None:
    passes = [judged(tmp_path, n, set(), judge_rep=1) for n in ("a", "b")]
    with pytest.raises(InputError, match="judge_rep 1 is given twice"):
        ordered_passes(passes)
