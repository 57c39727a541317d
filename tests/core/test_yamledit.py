"""Edits of a YAML text that keep its layout (`core.io.yamledit`), through `suite retire`: in every
layout a manifest may take, the data after is exactly the data intended, every comment outside
the retired case stays, and the file is parsed once."""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import flipgate.core.io.yamlio as yamlio
from flipgate.core.io.yamledit import append_items, apply, drop_item
from flipgate.core.io.yamlio import parse_yaml
from flipgate.core.suite.manifest import retire
from flipgate.present.curation import done_words

TODAY = date(2026, 12, 1)
INTENTS = ["a", "billing question", "'colon: inside'", '"hash # inside"', "ünïcode"]


def case_item(i: int, style: str, indent: int, intent: str) -> str:
    pad = " " * indent
    if style == "flow":
        return (
            f"{pad}- {{case: c{i}, intent: {intent}, added: 2026-01-0{1 + i % 9}}}  # about c{i}\n"
        )
    lines = [f"{pad}- case: c{i}  # about c{i}", f"{pad}  intent: {intent}"]
    lines.append(f"{pad}  added: 2026-01-0{1 + i % 9}")
    if style == "nested":
        lines += [f"{pad}  endpoints:", f"{pad}    - GET /v1/c{i}", f"{pad}    - POST /v1/c{i}"]
    return "".join(line + "\n" for line in lines)


def archived_item(j: int, style: str, indent: int) -> str:
    pad = " " * indent
    fields = "intent: a, added: 2025-01-01, retired: 2025-02-01, reason: old"
    if style == "flow":
        return f"{pad}- {{case: a{j}, {fields}}}\n"
    block = fields.replace(", ", f"\n{pad}  ")
    return f"{pad}- case: a{j}\n{pad}  {block}\n"


@st.composite
def manifests(draw: st.DrawFn) -> tuple[str, str]:
    """A manifest in one of the layouts YAML allows, and a live case to retire."""
    n = draw(st.integers(1, 5))
    indent = draw(st.sampled_from([0, 2, 4]))
    notes = iter(range(100))
    cases = "cases:\n"
    for i in range(n):
        if draw(st.booleans()):
            cases += " " * draw(st.sampled_from([0, indent])) + f"# note {next(notes)}\n"
        style = draw(st.sampled_from(["flow", "block", "nested"]))
        cases += case_item(i, style, indent, draw(st.sampled_from(INTENTS)))
    archive_kind = draw(st.sampled_from(["absent", "empty", "[]", "list"]))
    archive = {"absent": "", "empty": "archive:\n", "[]": "archive: []  # none yet\n"}.get(
        archive_kind, ""
    )
    if archive_kind == "list":
        column = draw(st.sampled_from([0, 2]))
        styles = draw(st.lists(st.sampled_from(["flow", "block"]), min_size=1, max_size=3))
        archive = "archive:\n" + "".join(archived_item(j, s, column) for j, s in enumerate(styles))
    sections = [cases, archive] if draw(st.booleans()) else [archive, cases]
    end = draw(st.sampled_from(["", f"# note {next(notes)}\n", "...\n", "# the end\n...\n"]))
    text = "# the suite's record\nsuite: s\n" + "".join(sections) + "version: v1\n" + end
    return text, f"c{draw(st.integers(0, n - 1))}"


@given(manifests())
def test_retire_in_every_layout_keeps_the_rest_as_written(example: tuple[str, str]) -> None:
    text, case = example
    before: dict[str, Any] = yaml.safe_load(text)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "suite.yaml"
        path.write_text(text)
        done = retire(path, case, "gone", TODAY)
        after_text = path.read_text()
    assert done.layout_kept, after_text
    after = yaml.safe_load(after_text)
    moved = next(c for c in before["cases"] if c["case"] == case)
    assert after["cases"] == [c for c in before["cases"] if c["case"] != case]
    entry = {k: moved[k] for k in ("case", "intent", "added", "flags", "endpoints") if k in moved}
    assert after["archive"] == [
        *(before.get("archive") or []),
        entry | {"retired": TODAY, "reason": "gone"},
    ]
    assert {k: v for k, v in after.items() if k not in ("cases", "archive")} == {
        k: v for k, v in before.items() if k not in ("cases", "archive")
    }
    comments = [line.strip() for line in text.splitlines() if "#" in line and "hash" not in line]
    kept = [c.partition("#")[2] for c in comments if f"about {case}" not in c]
    assert all(c in after_text for c in kept)
    assert f"about {case}" not in after_text
    assert (done.manifest.live.height, done.manifest.archive.height) == (
        len(after["cases"]),
        len(after["archive"]),
    )


def test_retire_parses_the_manifest_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    real = yamlio.parse_yaml

    def counted(text: str, path: Path, *, outline: bool = False) -> Any:
        parsed.append(len(text))
        return real(text, path, outline=outline)

    monkeypatch.setattr(yamlio, "parse_yaml", counted)
    path = tmp_path / "suite.yaml"
    path.write_text("suite: s\ncases:\n" + "".join(case_item(i, "flow", 2, "a") for i in range(50)))
    retire(path, "c7", "gone", TODAY)
    assert len(parsed) == 1 and parsed[0] > 2000  # the whole file, once; the pieces are tiny


@pytest.mark.parametrize(
    "text",
    [
        "suite: s\ncases: [{case: c1, intent: a, added: 2026-01-02}, {case: c2, intent: a, added: 2026-01-02}]\n",
        "suite: s\ncases:\n  -\n    case: c1\n    intent: a\n    added: 2026-01-02\n  - {case: c2, intent: a, added: 2026-01-02}\n",
        "suite: s\ncases:\n  - {case: c1, intent: a, added: 2026-01-02}\n  - {case: c2, intent: a, added: 2026-01-02}\narchive: {}\n",
    ],
    ids=["a list on one line", "a dash on its own line", "an archive that is no list"],
)
def test_a_layout_it_cannot_keep_is_written_whole_with_the_same_data(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    if "archive: {}" in text:
        with pytest.raises(Exception, match="archive"):
            retire(path, "c1", "gone", TODAY)  # not a manifest: refused, not rewritten
        assert path.read_text() == text
        return
    done = retire(path, "c1", "gone", TODAY)
    assert not done.layout_kept and "comments dropped" in done_words(done)
    after = yaml.safe_load(path.read_text())
    assert [c["case"] for c in after["cases"]] == ["c2"]
    assert after["archive"][0]["case"] == "c1"


def test_a_cut_that_would_not_read_as_the_item_is_not_made() -> None:
    """A block scalar's line that looks like a comment is the item's text: the cut that took it
    for a comment would change the item, and is refused; the caller then writes the data whole."""
    text = "cases:\n  - case: c1\n    note: |\n      first\n      # second\n  - case: c2\n"
    data, lines = parse_yaml(text, Path("x.yaml"), outline=True)
    assert data["cases"][0]["note"] == "first\n# second\n"
    assert drop_item(text, lines.outline, data, "cases", 0) is None
    added = append_items(text, lines.outline, data, "cases", [{"case": "c3"}], "- case: c3\n")
    assert added is not None
    assert yaml.safe_load(apply(text, [added]) or "")["cases"] == [*data["cases"], {"case": "c3"}]
    assert apply(text, [added, None]) is None
