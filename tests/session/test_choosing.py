"""What a signed choice records of the request it ranked with, and the request `verify` makes
again from it (session/choosing.py)."""

from __future__ import annotations

from pathlib import Path

from flipgate.core.importers import ImportOptions
from flipgate.session import GateRequest, ranking_seen
from flipgate.session.choosing import _request
from tests.conftest import copy_sample


def test_the_inputs_recorded_make_the_same_request_again(tmp_path: Path) -> None:
    campaign = copy_sample("winner-rule", tmp_path / "campaign")
    options = ImportOptions(select={"prompt": "terse"}, score_column=("score",), pass_threshold=0.5)
    request = GateRequest.of(
        [campaign],
        shape="ranking",
        gate=campaign / "gates" / "by-mean.yaml",
        change=["prompt"],
        import_options=options,
    )
    _, seen = ranking_seen(request)
    inputs = seen["inputs"]
    assert inputs == {
        "gate": "gates/by-mean.yaml",
        "flaky": "flaky.yaml",
        "suite": None,
        "change": ["prompt"],
        "allow_partial": False,
        # only the options that are not the defaults, a tuple as a list
        "import_options": {
            "pass_threshold": 0.5,
            "select": {"prompt": "terse"},
            "score_column": ["score"],
        },
        "base": None,
    }
    again = _request(campaign, inputs)
    assert again.import_options == options
    assert (again.gate, again.flaky) == (campaign / "gates/by-mean.yaml", campaign / "flaky.yaml")
    assert again.declared_change == request.declared_change
    _, seen_again = ranking_seen(again)
    assert seen_again == seen
