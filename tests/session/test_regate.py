"""The app's re-gate after an edit of the flaky list takes both arms as they were judged (the
judging depends on neither the list nor the retirements) and gives the answer of a gate read
afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from flipgate.core.gate import compare as compare_module
from flipgate.core.gate.compare import ArmResults
from flipgate.core.gate.spec import GateSpec
from flipgate.core.runs.model import Run
from flipgate.core.vocab import Arm
from flipgate.present.report import to_json
from flipgate.session import GateRequest, gate, gate_again, read, read_again
from tests.conftest import copy_sample

LISTED = """entries:
  - case: {case}
    owner: qa
    added: 2026-11-12
    reason: "flips under the same model"
    evidence: "flipped in 2 of 3 identical baseline runs"
"""


def test_the_gate_applied_again_after_an_edit_judges_no_arm_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = copy_sample("listing-reviewer", tmp_path / "ws")
    inputs = read(GateRequest.of([workspace]))
    first = gate(inputs)
    [(flipped, _cell), *_] = first.result.flipped
    (workspace / "flaky.yaml").write_text(LISTED.format(case=flipped))
    judged: list[str] = []
    real = compare_module.judge_arm

    def counted(arm: Arm, run: Run, spec: GateSpec) -> ArmResults:
        judged.append(arm)
        return real(arm, run, spec)

    monkeypatch.setattr(compare_module, "judge_arm", counted)
    again = gate_again(first, read_again(inputs))
    assert judged == []
    assert again.judged == first.judged
    assert again.result.flaky_listed == (flipped,)
    assert flipped not in dict(again.result.flipped)
    monkeypatch.undo()
    afresh = gate(read(GateRequest.of([workspace])))
    assert to_json(again) == to_json(afresh)


def test_arms_judged_on_other_runs_are_judged_again(tmp_path: Path) -> None:
    """After the reruns the comparison's runs are new: nothing judged before is taken for them."""
    workspace = copy_sample("listing-reviewer", tmp_path / "ws")
    inputs = read(GateRequest.of([workspace]))
    first = gate(inputs)
    other = read(GateRequest.of([workspace]))  # the same files, read again: other runs
    again = gate_again(first, read_again(other))
    assert [a.run for a in again.judged] == [first.baseline, first.candidate]
    with pytest.raises(ValueError, match="judged_candidate was judged on another run"):
        compare_module.compare(
            other.baseline, other.candidate, other.terms.spec, judged_candidate=first.judged[1]
        )
