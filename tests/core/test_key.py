"""The cache-key diff, one implementation for the gate, the reruns, triage, curation and the app."""

from __future__ import annotations

from flipgate.core.runs.key import ABSENT, key_components, moved_components


def test_every_component_of_either_key_sorted_and_what_moved() -> None:
    before = {"prompt": "p@1", "model": "m1", "judge": "j@1"}
    after = {"model": "m2", "prompt": "p@1", "tools": "t@9"}
    assert [c.name for c in key_components(before, after)] == ["judge", "model", "prompt", "tools"]
    moved = moved_components(before, after)
    assert [(c.name, c.shown_before, c.shown_after) for c in moved] == [
        ("judge", "j@1", ABSENT),
        ("model", "m1", "m2"),
        ("tools", ABSENT, "t@9"),
    ]
    assert moved_components(before, dict(before)) == ()
