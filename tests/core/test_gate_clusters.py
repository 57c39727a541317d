"""Cloned cases (SPEC 3.5 with `clusters: template`), the effect and the power in a gate result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from statistics import NormalDist

import pytest

from flipgate.core.errors import InputError
from flipgate.core.gate.bounds import CORRECTION
from flipgate.core.gate.changes import TemplateEdit
from flipgate.core.gate.compare import compare
from flipgate.core.gate.evidence import FlipsConcentrated
from flipgate.core.gate.invalid import CasesEdited
from flipgate.core.gate.mcnemar import mcnemar_p
from flipgate.core.gate.spec import default_spec, load_spec
from flipgate.core.gate.stats import ClusterReading, TemplateFlips, tango_interval
from flipgate.core.runs.model import Run
from flipgate.core.runs.reading import load_run
from flipgate.present.reasons import summary
from flipgate.present.reasons.warnings import clusters_line
from flipgate.present.report import to_json, to_markdown
from tests.conftest import RunWriter


def _suite(
    run_writer: RunWriter, broke: dict[str, int], fixed: int, cases: int = 200
) -> tuple[Run, Run]:
    """`broke`: template -> cases of it that break; `fixed` untemplated cases that get fixed."""
    base, cand = [], []
    number = 0

    def add(template: str | None, before: bool, after: bool) -> None:
        nonlocal number
        row = {"case": f"case-{number:03d}", "rep": 0}
        if template is not None:
            row["template"] = template
        base.append({**row, "passed": before})
        cand.append({**row, "passed": after})
        number += 1

    for template, n in broke.items():
        for _ in range(n):
            add(template, True, False)
    for _ in range(fixed):
        add(None, False, True)
    while number < cases:
        add(f"steady-{number % 7}", True, True)
    return (
        load_run(run_writer("baseline", base)),
        load_run(run_writer("candidate", cand, key={"model": "m1", "prompt": "p1"})),
    )


def test_fourteen_flips_from_three_templates(run_writer: RunWriter, tmp_path: Path) -> None:
    """The issue's example: by case the gate blocks; by template (the default) it cannot tell."""
    baseline, candidate = _suite(run_writer, {"refunds": 10, "returns": 2}, fixed=2)
    per_case = tmp_path / "per-case.yaml"
    per_case.write_text("clusters: none\n")
    by_case = compare(baseline, candidate, load_spec(per_case)).result
    assert (by_case.b, by_case.c) == (12, 2)
    assert by_case.verdict == "BLOCK" and by_case.p == pytest.approx(mcnemar_p(12, 2))
    clusters = by_case.clusters
    assert [(t.template, t.broke, t.fixed) for t in clusters.templates] == [
        ("refunds", 10, 0),
        ("returns", 2, 0),
    ]
    assert clusters.loose == (0, 2)
    # Nets +10, +2, -1, -1: a total of 10 or more needs +10, then 5 of the 8 signs of the rest.
    assert clusters.p_by_template == pytest.approx(5 / 16)
    assert clusters.concentrated is not None and clusters.concentrated.template == "refunds"
    p_case, p_template = clusters.p_by_case, clusters.p_by_template
    assert by_case.warnings == (
        FlipsConcentrated("refunds", 10, 0, 14, 4, p_case, p_template, "case"),
    )

    by_template = compare(baseline, candidate, default_spec()).result
    assert by_template.p == clusters.p_by_template
    assert by_template.verdict == "INCONCLUSIVE"
    assert by_template.p_by == "template"
    assert "p = 0.312 by template" in summary(by_template)
    data = to_json(compare(baseline, candidate, default_spec()))
    assert data["clusters"]["by"] == "template"
    assert data["clusters"]["templates"][0] == {
        "template": "refunds",
        "pass_to_fail": 10,
        "fail_to_pass": 0,
    }


def test_flips_of_one_template_are_said_in_the_singular(run_writer: RunWriter) -> None:
    baseline, candidate = _suite(run_writer, {"refunds": 4}, fixed=0, cases=40)
    clusters = compare(baseline, candidate, default_spec()).result.clusters
    assert clusters_line(clusters).startswith("4 flips from 1 template: p 0.062 counted by case")


def test_the_effect_and_its_interval_in_every_output(run_writer: RunWriter) -> None:
    """Three singleton templates (no clone flipped with another) and an untemplated fix: the
    design effect is 1, and each bound is Tango's corrected one-sided at the first look's
    1 - 0.025 (95% two-sided)."""
    baseline, candidate = _suite(run_writer, {"a": 1, "b": 1, "c": 1}, fixed=1)
    comparison = compare(baseline, candidate, default_spec())
    effect = comparison.result.effect
    assert effect is not None
    low, high = tango_interval(3, 1, 200, NormalDist().inv_cdf(0.975), CORRECTION)
    assert (effect.points, effect.low, effect.high) == pytest.approx((-1.0, 100 * low, 100 * high))
    assert effect.design_effect == 1.0 and effect.level == pytest.approx(0.95)
    data = to_json(comparison)
    assert data["effect"]["method"] == "tango_score_cc_design_effect"
    assert data["effect"]["points"] == pytest.approx(-1.0)
    assert "-1.0 points (95% CI" in to_markdown(comparison)


def test_power_is_reported_and_a_pass_says_what_it_is_worth(run_writer: RunWriter) -> None:
    baseline, candidate = _suite(run_writer, {"a": 1, "b": 1}, fixed=1)
    comparison = compare(baseline, candidate, default_spec())
    result = comparison.result
    assert result.verdict == "PASS"
    power = to_json(comparison)["power"]
    assert [r["points"] for r in power["regressions"]] == [1, 2, 3, 5]
    assert power["cases"] == 200 and power["flip_share"] == pytest.approx(3 / 200)
    assert power["smallest_blocked"] is not None and power["target"] == 0.8
    # after a PASS: what it rules out (the lower bound) and how often a regression passes
    effect = result.effect
    assert effect is not None and effect.rules_out == pytest.approx(-effect.low)
    chance = next(c for c in result.power.chances if c.points == 5.0).passes
    assert (
        f"What this PASS is worth: rules out a regression beyond {effect.rules_out:.1f} points at "
        f"97.5% (the interval's lower bound); would have passed: a 3-point one"
    ) in to_markdown(comparison)
    assert f"a 5-point one {chance:.0%}" in to_markdown(comparison)


class CountedTemplates(tuple[TemplateFlips, ...]):
    """Templates that count how often they are summed over."""

    reads = 0

    def __iter__(self) -> Iterator[TemplateFlips]:
        CountedTemplates.reads += 1
        return super().__iter__()


def test_the_flips_by_template_are_summed_once_however_often_they_are_read() -> None:
    templates = CountedTemplates(TemplateFlips(f"t{i}", 3, 1) for i in range(1000))
    reading = ClusterReading(templates, (2, 1), p_by_case=0.01, p_by_template=0.2)
    before = CountedTemplates.reads
    for _ in range(50):  # a render asks for both, many times
        assert reading.flips == 4003
        assert reading.concentrated is None
    assert CountedTemplates.reads - before == 1


# --------------------------------------------------------------------------- templates are part of the case


def _templated(
    run_writer: RunWriter, base_template: str | None, cand_template: str | None
) -> tuple[Run, Run]:
    """200 cases, 40 of which break: by case a BLOCK at p 9e-13."""
    rows = []
    for arm, template in (("baseline", base_template), ("candidate", cand_template)):
        rows.append(
            [
                {"case": f"case-{i:03d}", "passed": arm == "baseline" or i >= 40}
                | ({} if template is None else {"template": template})
                for i in range(200)
            ]
        )
    return load_run(run_writer("b", rows[0])), load_run(run_writer("c", rows[1]))


def test_a_candidate_cannot_put_every_case_in_one_template(
    run_writer: RunWriter, tmp_path: Path
) -> None:
    """Issue 28 item 4: with no template in the baseline the candidate's decided the clusters,
    and one template for all 200 turned BLOCK (p 9e-13) into INCONCLUSIVE (p 0.5)."""
    gate = tmp_path / "gate.yaml"
    gate.write_text("clusters: template\n")
    baseline, candidate = _templated(run_writer, None, "everything")
    result = compare(baseline, candidate, load_spec(gate)).result
    assert (result.verdict, result.rule) == ("INVALID", "invalid")
    (edited,) = [r for r in result.invalid_reasons if isinstance(r, CasesEdited)]
    assert len(edited.cases) == 200
    assert edited.cases[0].edits == (TemplateEdit(None, "everything"),)
    assert summary(result).startswith(
        "INVALID: cases edited in the change under test: case-000 template: none in the "
        "baseline, everything in the candidate; "
    )
    # the same templates in both arms are no edit (one template counted once cannot block)
    base, cand = _templated(run_writer, "everything", "everything")
    same = compare(base, cand, default_spec()).result
    assert (same.verdict, same.changes.edited) == ("INCONCLUSIVE", {})


def test_a_moved_template_is_found_whatever_order_the_lines_are_written_in(
    run_writer: RunWriter,
) -> None:
    """The template per case is grouped in place when a run is written case by case, and hashed
    when not: both find the same edits, over gradable repetitions only (a template named on an
    infra line alone is no template)."""
    base_rows = [
        {"case": "a", "rep": 0, "passed": True, "template": "t"},
        {"case": "b", "rep": 0, "passed": True, "template": "t"},
        {"case": "c", "rep": 0, "status": "infra", "infra": "timeout", "template": "t"},
        {"case": "c", "rep": 1, "passed": True},
        {"case": "d", "rep": 0, "passed": True},
    ]
    cand_rows = [
        {"case": "a", "rep": 0, "passed": True, "template": "u"},
        {"case": "b", "rep": 0, "passed": True, "template": "t"},
        {"case": "c", "rep": 0, "passed": True},
        {"case": "c", "rep": 1, "passed": True},
        {"case": "d", "rep": 0, "passed": True, "template": "v"},
    ]
    expected = {"a": (TemplateEdit("t", "u"),), "d": (TemplateEdit(None, "v"),)}
    for step in (1, -1):  # as written, then last line first
        baseline = load_run(run_writer("b", base_rows[::step]))
        candidate = load_run(run_writer("c", cand_rows[::step]))
        assert compare(baseline, candidate, default_spec()).result.changes.edited == expected


@pytest.mark.parametrize(
    ("rows", "line", "message"),
    [
        (
            [{"template": ""}],
            1,
            "must be a non-empty string (leave it out for a case of no template)",
        ),
        (
            [{"template": " "}],
            1,
            "must be a non-empty string (leave it out for a case of no template)",
        ),
        (
            [{"template": "a"}, {"template": "b"}],
            2,
            "`template` differs between the lines of case c",
        ),
        (
            [{}, {"template": "a"}, {"template": "b"}],
            3,
            "`template` differs between the lines of case c",
        ),
    ],
)
def test_a_blank_or_mixed_template_is_bad_input(
    run_writer: RunWriter, rows: list[dict[str, str]], line: int, message: str
) -> None:
    run = run_writer(
        "r", [{"case": "c", "rep": i, "passed": True} | row for i, row in enumerate(rows)]
    )
    with pytest.raises(InputError) as refused:
        load_run(run)
    assert (refused.value.line, refused.value.field) == (line, "template")
    assert str(refused.value).endswith(message)


def test_a_line_that_names_no_template_says_nothing_against_the_others(
    run_writer: RunWriter,
) -> None:
    """An infra repetition often carries no metadata: the case keeps the template its other
    lines name."""
    rows = [{"case": "c", "rep": 0, "status": "infra"}, {"case": "c", "rep": 1, "passed": True}]
    rows[1]["template"] = "refunds"
    run = load_run(run_writer("r", [*rows, {"case": "d", "passed": True, "template": "refunds"}]))
    assert run.reps["template"].to_list() == [None, "refunds", "refunds"]
    # written case by case, the template named last may be the case before's: no mix
    rows = [
        {"case": "a", "passed": True, "template": "x"},
        {"case": "b", "rep": 0, "status": "infra"},
        {"case": "b", "rep": 1, "passed": True, "template": "y"},
    ]
    assert load_run(run_writer("s", rows)).reps["template"].to_list() == ["x", None, "y"]
