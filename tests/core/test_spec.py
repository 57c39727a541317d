"""gate.yaml: defaults, and a typo is an error with its line, never a silent default."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from flipgate.core.errors import InputError
from flipgate.core.gate.spec import default_spec, load_spec


def test_defaults_are_the_spec_s() -> None:
    spec = default_spec()
    assert spec.alpha == 0.05
    assert (spec.set_rule("full").margin, spec.set_rule("full").flip_cap) == (2, 10)
    assert (spec.set_rule("smoke").margin, spec.set_rule("smoke").flip_cap) == (1, 4)
    assert spec.prices == {"false_negative": 400, "false_positive": 15, "inconclusive": 4}
    assert spec.fail_on == {"false_negative", "false_positive", "mirror", "inconclusive"}
    assert spec.limits.false_negative_max == "baseline"
    assert (spec.infra_max_share, spec.flaky_max_share, spec.escalation_runs) == (0.05, 0.05, 5)
    # SPEC 9: templates counted once wherever cases carry them; the exact test; alpha spent
    # half by half across looks; no safety bound; a reproducible permutation test for budgets.
    assert (spec.clusters, spec.test) == ("template", "exact")
    assert (spec.looks.rule, spec.looks.share) == ("spend", 0.5)
    assert [spec.boundary(k) for k in (1, 2, 3)] == pytest.approx([0.025, 0.0125, 0.00625])
    assert spec.safety_max_rate is None
    assert (spec.permutation_count, spec.permutation_seed) == (2000, 20261201)
    assert spec.family == "holm"  # the paths to BLOCK share each look's boundary


def test_the_statistical_settings_read_from_gate_yaml(tmp_path: Path) -> None:
    spec = load_spec(
        _spec(
            tmp_path,
            "test: mid_p\nclusters: none\nlooks: {rule: plain}\nsafety: {max_rate: 0.01}\n"
            "permutations: {count: 500, seed: 7}\nfamily: per_path\n",
        )
    )
    assert spec.family == "per_path"
    assert (spec.test, spec.clusters, spec.looks.rule, spec.safety_max_rate) == (
        "mid_p",
        "none",
        "plain",
        0.01,
    )
    assert [spec.boundary(k) for k in (1, 2, 5)] == [0.05, 0.05, 0.05]
    assert (spec.permutation_count, spec.permutation_seed) == (500, 7)


def _spec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gate.yaml"
    path.write_text(text)
    return path


def test_partial_file_overlays_defaults(tmp_path: Path) -> None:
    spec = load_spec(
        _spec(
            tmp_path,
            "alpha: 0.01\nsets:\n  full: {margin: 4}\noutcomes:\n  prices: {false_positive: 20}\n",
        )
    )
    assert (
        spec.alpha == 0.01
        and spec.set_rule("full").margin == 4
        and spec.set_rule("full").flip_cap == 10
    )
    assert spec.prices["false_positive"] == 20 and spec.prices["false_negative"] == 400


@pytest.mark.parametrize(
    ("text", "field", "line"),
    [
        ("alpah: 0.01\n", "alpah", 1),
        ("alpha: 0.05\noutcomes:\n  fail_on: [false_negative, oops]\n", "outcomes.fail_on", 3),
        ("infra:\n  max_shar: 0.1\n", "infra.max_shar", 2),
        ("alpha: high\n", "alpha", 1),
        ("alpha: 2\n", "alpha", 1),
        ("escalation: {runs: 0}\n", "escalation.runs", 1),
        ("outcomes:\n  prices: {mirror: 3}\n", "outcomes.prices.mirror", 2),
        ("aggregate: {ordinary: most}\n", "aggregate.ordinary", 1),
        # NaN passes every bound (each comparison is false): it switched rules off.
        ("infra: {max_share: .nan}\n", "infra.max_share", 1),
        ("alpha: .nan\n", "alpha", 1),
        ("outcomes:\n  prices: {false_negative: .nan}\n", "outcomes.prices.false_negative", 2),
        ("outcomes:\n  prices: {false_positive: .inf}\n", "outcomes.prices.false_positive", 2),
        (
            "outcomes:\n  limits: {inconclusive_max_share: .nan}\n",
            "outcomes.limits.inconclusive_max_share",
            2,
        ),
        ("outcomes:\n  fail_on: [[false_negative]]\n", "outcomes.fail_on", 2),
        ("escalation: {runs: 9223372036854775808}\n", "escalation.runs", 1),
        ("sets:\n  full: {margin: 1.0e+400}\n", "sets.full.margin", 2),
        ("alpha: 0.05\nalpha: 0.5\n", "alpha", 2),
        ("base: &b {max_share: 0.5}\ninfra: *b\n", "infra", 2),
        # A run's suite is smoke or full: a set named otherwise was kept and never applied.
        ("sets:\n  ful: {margin: 6}\n", "sets.ful", 2),
        ("test: midp\n", "test", 1),
        ("looks: {rule: pocock}\n", "looks.rule", 1),
        ("looks: {share: 0}\n", "looks.share", 1),
        ("looks: {share: 1.5}\n", "looks.share", 1),
        ("looks: {spend: 0.5}\n", "looks.spend", 1),
        ("safety: {max_rate: 0}\n", "safety.max_rate", 1),
        ("safety: {max_rate: 1}\n", "safety.max_rate", 1),
        ("safety: {max_rates: 0.01}\n", "safety.max_rates", 1),
        ("permutations: {count: 10}\n", "permutations.count", 1),
        ("permutations: {seed: -1}\n", "permutations.seed", 1),
        ("clusters: templates\n", "clusters", 1),
        ("family: bonferroni\n", "family", 1),
        (
            "outcomes:\n  limits: {false_negative_max: basline}\n",
            "outcomes.limits.false_negative_max",
            2,
        ),
    ],
)
def test_bad_specs(tmp_path: Path, text: str, field: str, line: int) -> None:
    with pytest.raises(InputError) as info:
        load_spec(_spec(tmp_path, text))
    assert (info.value.field, info.value.line) == (field, line)


def test_digest_changes_with_the_file(tmp_path: Path) -> None:
    a = load_spec(_spec(tmp_path, "alpha: 0.05\n")).digest
    b = load_spec(_spec(tmp_path, "alpha: 0.01\n")).digest
    assert a != b and a.startswith("sha256:")


@pytest.mark.parametrize("make", [lambda p: p.mkdir(), lambda p: os.mkfifo(p)])
def test_a_spec_that_is_no_regular_file_is_bad_input(
    tmp_path: Path, make: Callable[[Path], None]
) -> None:
    path = tmp_path / "gate.yaml"
    make(path)
    with pytest.raises(InputError, match=r"not a regular file|a directory"):
        load_spec(path)


def test_an_unreadable_spec_is_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _spec(tmp_path, "alpha: 0.05\n")

    def refuse(self: Path) -> bytes:  # chmod 0 does not stop root, who runs CI containers
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(InputError, match="cannot be read: Permission denied"):
        load_spec(path)
