"""Seed 002's diagnostics beyond the first five, each on a small workspace built here: intake by
intent, the judge's history, the frozen anchor, the re-baseline's cost, external calibration,
case weights, and the typed production figures checked against the runs."""

from __future__ import annotations

import json
from datetime import date
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
import yaml

from flipgate.core.errors import InputError
from flipgate.core.suite.audit import SuiteAudit, audit
from flipgate.core.suite.intake import apportion
from flipgate.core.suite.production import period_days, rounds_to
from flipgate.core.suite.workspace import load_suite
from flipgate.present.suite_findings import findings
from flipgate.present.suite_report import to_json, to_markdown

CASES = [f"c{i}" for i in range(10)]


def write_run(
    folder: Path,
    run_id: str,
    model: str,
    created: str,
    version: str,
    passed: set[str],
    *,
    judge: str | None = None,
    metrics: dict[str, float] | None = None,
) -> None:
    folder.mkdir(parents=True)
    key = {"model": model, "eval_set": version, **({"judge": judge} if judge else {})}
    manifest = {"run_id": run_id, "suite": "full", "created": created, "key": key}
    (folder / "run.yaml").write_text(yaml.safe_dump(manifest))
    lines = [
        {"case": case, "rep": 0, "passed": case in passed, **(metrics or {})} for case in CASES
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def workspace(tmp_path: Path, manifest: str = "", **files: str) -> Path:
    cases = "".join(
        f"  - {{case: {case}, intent: {'a' if i < 6 else 'b'}, added: 2026-0{1 + i % 3}-02}}\n"
        for i, case in enumerate(CASES)
    )
    (tmp_path / "suite.yaml").write_text(f"suite: s\n{manifest}cases:\n{cases}")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def lines(result: SuiteAudit, key: str) -> list[str]:
    section = next(s for s in findings(result) if s.key == key)
    return [f"{line.flag} {line.text}" if line.flag else line.text for line in section.lines]


# --------------------------------------------------------------------------- intake


def test_apportion_is_hamiltons_method_on_the_shares_as_written() -> None:
    """8 cases over the seed's three gaps and the rest: exact quotas 2.32, 2.04, 1.24, ...;
    the whole parts first, then the largest remainders."""
    shares = {"multi": 0.221, "upload": 0.194, "es": 0.118, "rest": 0.413}
    got = apportion(8, shares)
    assert sum(got.values()) == 8
    whole = sum(Fraction(str(s)) for s in shares.values())
    for name, n in got.items():  # never more than one from its exact quota
        assert abs(n - 8 * Fraction(str(shares[name])) / whole) < 1
    assert got == {"multi": 2, "upload": 2, "es": 1, "rest": 3}


@pytest.mark.parametrize("total", range(0, 13))
def test_apportion_agrees_with_a_brute_force_on_small_cases(total: int) -> None:
    """Every split of `total` over three intents: Hamilton's is the one a largest-remainder
    reading picks, checked by enumerating the splits within one of each quota."""
    shares = {"x": 0.5, "y": 0.3, "z": 0.2}
    got = apportion(total, shares)
    quotas = {k: total * Fraction(str(v)) for k, v in shares.items()}
    splits = [
        dict(zip(shares, split, strict=True))
        for split in product(range(total + 1), repeat=3)
        if sum(split) == total
        and all(abs(n - quotas[k]) < 1 for k, n in zip(shares, split, strict=True))
    ]
    assert got in splits
    assert all(got[k] >= int(quotas[k]) for k in shares)


def test_intake_quota_per_intent_and_next_months_draws(tmp_path: Path) -> None:
    path = workspace(
        tmp_path,
        "intake: {sampled_per_month: 2}\n",
        **{
            "traffic.yaml": "window: {from: 2026-01-01, to: 2026-03-31}\nintents: {a: 0.5, b: 0.5}\n"
        },
    )
    result = audit(load_suite(path), date(2026, 3, 31))
    found = result.intake
    assert found is not None
    rows = {r["intent"]: r for r in found.intents.to_dicts()}
    # 6 months x 2 = 12 cases, half each; a got 6 (all added since October), b got 4
    assert (rows["a"]["quota"], rows["a"]["added"], rows["a"]["short"]) == (6, 6, False)
    assert (rows["b"]["quota"], rows["b"]["added"], rows["b"]["short"]) == (6, 4, True)
    assert (rows["a"]["draws"], rows["b"]["draws"]) == (1, 1)
    assert "QUOTA b: 50.0% of traffic, quota 6, added 4; draw 1 next month" in lines(
        result, "intake"
    )
    assert to_json(result)["intake"]["short"] == ["b"]


# --------------------------------------------------------------------------- runs of history/


def history(tmp_path: Path, manifest: str = "", **files: str) -> Path:
    path = workspace(tmp_path, manifest, **files)
    runs = [
        ("h1", "old", "2026-01-10T00:00:00Z", "v1", "j1", set(CASES[:9])),
        ("h2", "anchor-7b", "2026-01-11T00:00:00Z", "v1", "j1", set(CASES[:4])),
        ("h3", "main", "2026-02-10T00:00:00Z", "v2", "j1", set(CASES[:8])),
        ("h4", "cand", "2026-03-10T00:00:00Z", "v3", "j1", set(CASES[:6])),
        ("h5", "main", "2026-03-11T00:00:00Z", "v3", "j1", set(CASES[:7])),
        ("h6", "anchor-7b", "2026-03-12T00:00:00Z", "v3", "j1", set(CASES[:3])),
    ]
    for run_id, model, created, version, judge, passed in runs:
        write_run(path / "history" / run_id, run_id, model, created, version, passed, judge=judge)
    write_run(
        path / "baseline",
        "today",
        "main",
        "2026-03-20T00:00:00Z",
        "v3",
        set(CASES[:7]),
        judge="j1",
        metrics={"cost_usd": 0.02, "latency_ms": 6000},
    )
    return path


def test_the_judge_judged_three_suite_versions_without_a_rebaseline(tmp_path: Path) -> None:
    result = audit(load_suite(history(tmp_path)))
    judge = result.judge
    assert judge is not None
    assert judge.current.version == "j1" and judge.current.suite_versions == ("v1", "v2", "v3")
    assert judge.current.first == date(2026, 1, 10) and judge.behind
    assert judge.cases_after == 6  # the cases added on 2026-02-02 and 2026-03-02
    assert any(
        line.startswith("JUDGE j1 judged 3 suite versions") for line in lines(result, "judge")
    )


def test_a_judge_rebaselined_with_the_cases_is_not_behind(tmp_path: Path) -> None:
    path = history(tmp_path)
    text = (path / "baseline" / "run.yaml").read_text().replace("judge: j1", "judge: j2")
    (path / "baseline" / "run.yaml").write_text(text)
    judge = audit(load_suite(path)).judge
    assert judge is not None and judge.current.version == "j2" and not judge.behind


def test_a_run_with_no_judge_is_not_measured(tmp_path: Path) -> None:
    path = history(tmp_path)
    text = (path / "baseline" / "run.yaml").read_text().replace("judge: j1", "judge: none")
    (path / "baseline" / "run.yaml").write_text(text)
    result = audit(load_suite(path))
    assert result.judge is None
    assert lines(result, "judge") == [
        "not measured: today's run names no judge in its key (key.judge)"
    ]


def test_the_anchor_on_every_suite_version(tmp_path: Path) -> None:
    result = audit(load_suite(history(tmp_path, "anchor: anchor-7b\n")))
    anchor = result.anchor
    assert anchor is not None
    assert [(v.version, v.run_id, v.passed) for v in anchor.versions] == [
        ("v1", "h2", 4),
        ("v2", None, 0),
        ("v3", "h6", 3),
    ]
    assert anchor.missing == ("v2",)
    assert "ANCHOR v2: no run of the anchor (the version's first run: 2026-02-10)" in lines(
        result, "anchor"
    )
    (tmp_path / "none").mkdir()
    assert audit(load_suite(history(tmp_path / "none"))).anchor is None


def test_the_rebaseline_costs_todays_run_summed(tmp_path: Path) -> None:
    result = audit(load_suite(history(tmp_path)))
    cost = result.rebaseline
    assert cost is not None and cost.cost_usd is not None and cost.latency_ms is not None
    assert cost.cost_usd.total == pytest.approx(0.2) and cost.cost_usd.recorded == 10
    assert cost.latency_ms.total == 60_000
    assert lines(result, "rebaseline")[0] == (
        "one re-baseline run of the incumbent, today's suite again as today ran it "
        "(10 repetitions): $0.20 and 1.0 minutes run one at a time"
    )


def test_case_weights_give_weighted_pass_rates(tmp_path: Path) -> None:
    path = history(tmp_path)
    text = (path / "suite.yaml").read_text().replace("{case: c9,", "{case: c9, weight: 4,")
    (path / "suite.yaml").write_text(text)
    result = audit(load_suite(path))
    free = result.free
    assert free is not None
    h1 = free.runs.filter(free.runs["run_id"] == "h1").row(0, named=True)
    assert h1["pass_rate"] == pytest.approx(0.9)  # c9 failed, c0-c8 passed
    assert h1["weighted_pass_rate"] == pytest.approx(9 / 13)


def test_a_weight_must_be_above_zero(tmp_path: Path) -> None:
    path = workspace(tmp_path)
    text = (path / "suite.yaml").read_text().replace("{case: c3,", "{case: c3, weight: 0,")
    (path / "suite.yaml").write_text(text)
    with pytest.raises(InputError) as error:
        load_suite(path)
    assert (error.value.line, error.value.field) == (6, "cases.3.weight")


# --------------------------------------------------------------------------- external calibration

EXTERNAL = """\
records:
  - {system: cand, read: 2026-03-15, source: three teams run it}
  - {system: cand, read: 2026-03-16, source: a survey, explanation: our suite lacks b cases}
  - {system: main, read: 2026-03-17, source: the vendor}
  - {system: elsewhere, read: 2026-03-18, source: a blog}
  - {system: cand, read: 2026-12-01, source: read after the audit's day}
"""


def test_external_calibration_explains_a_divergence_or_flags_it(tmp_path: Path) -> None:
    result = audit(load_suite(history(tmp_path, **{"external.yaml": EXTERNAL})))
    assert result.external is not None
    assert [c.standing for c in result.external] == [
        "unexplained",
        "explained",
        "agrees",
        "not_run",
    ]
    cand = result.external[0]
    assert (cand.score, cand.incumbent_score, cand.incumbent_run) == (0.6, 0.7, "h5")
    said = lines(result, "external")
    assert said[0].startswith("DIVERGE cand, read 2026-03-15: three teams run it; our suite says")
    assert "  why: our suite lacks b cases" in said
    assert to_json(result)["external"][1]["standing"] == "explained"


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        ("records: []\n", 1, "records"),
        ("records:\n  - {system: x, read: someday, source: s}\n", 2, "records.0.read"),
        ("records:\n  - {system: x, read: 2026-01-01}\n", 2, "records.0.source"),
        ("records:\n  - {system: x, read: 2026-01-01, source: s, why: y}\n", 2, "records.0.why"),
    ],
)
def test_a_bad_external_record_names_its_line_and_field(
    tmp_path: Path, text: str, line: int, field: str
) -> None:
    with pytest.raises(InputError) as error:
        load_suite(workspace(tmp_path, **{"external.yaml": text}))
    assert (error.value.line, error.value.field) == (line, field)


# --------------------------------------------------------------------------- typed figures


@pytest.mark.parametrize(
    ("period", "days"),
    [
        ("2026-Q1", (date(2026, 1, 1), date(2026, 3, 31))),
        ("2025-Q4", (date(2025, 10, 1), date(2025, 12, 31))),
        ("2026-H2", (date(2026, 7, 1), date(2026, 12, 31))),
        ("2026-02", (date(2026, 2, 1), date(2026, 2, 28))),
        ("2024-02", (date(2024, 2, 1), date(2024, 2, 29))),
        ("2026", (date(2026, 1, 1), date(2026, 12, 31))),
        ("Q1", None),
        ("2026-Q5", None),
    ],
)
def test_period_days(period: str, days: tuple[date, date] | None) -> None:
    assert period_days(period) == days


def test_a_typed_figure_rounds_from_half_a_unit_either_side() -> None:
    assert rounds_to(Fraction(875, 1000), 0.88) and rounds_to(Fraction(885, 1000), 0.88)
    assert not rounds_to(Fraction(8749, 10000), 0.88)
    assert rounds_to(Fraction(13, 15), 0.867)  # 0.8666...
    assert not rounds_to(Fraction(13, 15), 0.86)


PRODUCTION = """\
signals: {csat: {better: higher}}
periods:
  - {period: 2026-01, suite_pass_rate: 0.9, csat: 4.4}
  - {period: 2026-02, suite_pass_rate: 0.85, csat: 4.3}
  - {period: 2026-Q1, suite_pass_rate: 0.7, csat: 4.0, run: h5}
  - {period: 2026-04, suite_pass_rate: 0.7, csat: 3.9}
"""


def test_typed_pass_rates_are_checked_against_the_runs_of_their_period(tmp_path: Path) -> None:
    result = audit(load_suite(history(tmp_path, **{"production.yaml": PRODUCTION})))
    prod = result.production
    assert prod is not None
    typed = {t.period: t for t in prod.typed}
    assert typed["2026-01"].agrees_with == "h1"  # h1 0.9, h2 0.4
    assert typed["2026-02"].agrees_with is None  # h3 measured 0.8
    assert typed["2026-02"].measured == (("h3", 0.8),)
    assert typed["2026-Q1"].agrees_with == "h5"  # named
    assert not typed["2026-04"].checked  # no run then
    said = lines(result, "production")
    assert "TYPED 2026-02: typed 0.85, the period's runs measured h3 0.800" in said
    assert "2026-04: typed 0.7, no run of history/ in the period" in said
    assert to_json(result)["production"]["typed"][1]["agrees_with"] is None
    assert "**TYPED** 2026-02" in to_markdown(result)
