"""Seed 002's figures, from the support-assistant sample, through `flipgate.core.suite`."""

from __future__ import annotations

from datetime import date

import pytest

from flipgate.core.suite.audit import SuiteAudit, audit
from flipgate.core.suite.workspace import load_suite
from tests.conftest import SAMPLES

SUPPORT = SAMPLES / "support-assistant"
UPLOAD_FLOW = 12


@pytest.fixture(scope="module")
def result() -> SuiteAudit:
    return audit(load_suite(SUPPORT))


def test_the_audit_is_as_of_the_newest_run(result: SuiteAudit) -> None:
    assert result.as_of == date(2026, 8, 3)
    assert result.inputs.manifest.live.height == 112


def test_coverage_finds_the_three_gaps_and_41_3_percent(result: SuiteAudit) -> None:
    cov = result.coverage
    assert cov is not None
    gaps = cov.gaps.select("intent", "share", "cases").rows()
    assert gaps == [
        ("multi_turn_ops", 0.221, 1),
        ("document_upload", 0.194, 0),
        ("es_ES_any_intent", 0.118, 0),
    ]
    assert f"{cov.covered_share:.1%}" == "41.3%"
    assert round(cov.unclassified, 3) == 0.054
    assert cov.untrafficked.rows() == [("upload_v1_flow", UPLOAD_FLOW)]


def test_case_age_71_of_112_and_a_median_of_14_months(result: SuiteAudit) -> None:
    age = result.age
    assert age is not None
    assert (age.first_weeks, age.live) == (71, 112)
    assert f"{age.median_months:.1f}" == "14.0"
    assert age.last_added == date(2026, 1, 14)
    assert age.recent_added == 0 and age.quotas.additions_per_month == 14
    assert int(age.histogram["cases"].sum()) == 112
    assert int(age.monthly["added"].sum()) == 114  # the archive's two were added too


def test_twelve_free_passes_add_about_a_point(result: SuiteAudit) -> None:
    free = result.free
    assert free is not None
    manifest = result.inputs.manifest.live
    upload = manifest.filter(manifest["intent"] == "upload_v1_flow")["case"].to_list()
    assert list(free.cases) == sorted(upload) and len(upload) == UPLOAD_FLOW
    low, high = free.points
    assert 1.0 < low < high < 2.5  # every run's pass rate, raised by one to two points
    newest = free.runs.row(free.runs.height - 1, named=True)
    assert (round(newest["pass_rate"], 3), round(newest["pass_rate_without"], 3)) == (0.866, 0.85)


def test_stale_references_propose_sixteen_retirements(result: SuiteAudit) -> None:
    stale = result.stale
    assert stale is not None
    refs = {
        (kind, name, str(removed)): len(cases)
        for kind, name, removed, cases in stale.references.iter_rows()
    }
    assert refs == {
        ("flag", "upload_v1", "2026-03-09"): 12,
        ("endpoint", "GET /v1/orders/lookup", "2026-01-20"): 4,
    }
    assert stale.proposals.height == 16


def test_the_counterfactual_scores_0_612_where_it_was_0_874(result: SuiteAudit) -> None:
    cf = result.counterfactual
    assert cf is not None and cf.today_version == "suite@v14"
    head = cf.rescores[0]
    assert (head.system, head.version, head.cases_then, head.overlap) == (
        "model-2025-06",
        "suite@v6",
        87,
        85,
    )
    assert f"{head.score_now:.3f} was {head.score_then:.3f}" == "0.612 was 0.874"
    assert head.reading == "bar_moved"
    # after November nothing moved: the later systems re-score as they scored
    assert {r.reading for r in cf.rescores[1:]} == {"bar_stood_still"}


def test_every_rejection_on_one_gate_rule(result: SuiteAudit) -> None:
    rej = result.rejections
    assert (rej.decisions, rej.rejected) == (5, 5)
    assert rej.by_cause.rows() == [("regression", 5)]
    assert rej.one_rule == "undecided"


def test_a_flat_suite_while_csat_fell(result: SuiteAudit) -> None:
    prod = result.production
    assert prod is not None
    assert (prod.low, prod.high, prod.flat) == (0.86, 0.89, True)
    csat = next(t for t in prod.trends if t.name == "csat")
    assert (csat.first, csat.last, csat.worse) == (4.4, 3.8, True)
    assert f"{csat.change:+.1%}" == "-13.6%"
    assert "csat" in {t.name for t in prod.broken}


def test_fail_under(result: SuiteAudit) -> None:
    assert result.below(0.5) and not result.below(0.4)


def test_an_audit_as_of_a_past_day_reads_the_suite_as_it_stood() -> None:
    then = audit(load_suite(SUPPORT), date(2025, 9, 1))
    assert (then.manifest.live.height, then.manifest.archive.height) == (98, 0)
    assert then.rejections.decisions == 0  # the first rejection came in November
    assert then.free is not None and then.free.runs.height == 1  # only the July run was made
    cov = then.coverage
    assert cov is not None
    assert cov.gaps.filter(cov.gaps["intent"] == "multi_turn_ops")["cases"].item() == 0
