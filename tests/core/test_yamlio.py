"""The YAML reader's two ways: from the parser's events for a plain document, through the node
tree for anything else. Both must give the same data, the same lines and the same errors."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from flipgate.core.errors import InputError
from flipgate.core.io.yamlio import dump_yaml, parse_nodes, parse_yaml

PATH = Path("suite.yaml")


def both(text: str) -> tuple[Any, Any]:
    """What each reading makes of `text`: (data, lines of every key) or the error's parts."""

    def read(parse: Any) -> Any:
        try:
            data, lines = parse(text, PATH)
        except InputError as error:
            return ("error", str(error), error.line, error.field)
        return (data, [lines.line(key) for key in _keys(data)])

    return read(parse_yaml), read(parse_nodes)


def _keys(data: Any, prefix: str = "") -> list[str]:
    if isinstance(data, dict):
        return [
            k for key, v in data.items() for k in (f"{prefix}{key}", *_keys(v, f"{prefix}{key}."))
        ]
    if isinstance(data, list):
        return [k for i, v in enumerate(data) for k in (f"{prefix}{i}", *_keys(v, f"{prefix}{i}."))]
    return []


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN, and of the same types all the way down."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.dates(),
    st.datetimes(timezones=st.sampled_from([None, UTC])),
    st.text(),
    st.sampled_from(["yes", "No", "~", "0x1F", "0o17", "1_000", "1:30", ".inf", "-.NaN", "=", ""]),
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(data=DOCUMENTS, flow=st.booleans())
def test_plain_documents_read_the_same_both_ways(data: Any, flow: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    fast, full = both(text)
    assert same(fast, full)


def outlines(text: str) -> tuple[Any, Any]:
    """Where each reading says the document's top-level parts lie."""
    return (
        parse_yaml(text, PATH, outline=True)[1].outline,
        parse_nodes(text, PATH, outline=True)[1].outline,
    )


@given(data=DOCUMENTS, flow=st.booleans(), width=st.sampled_from([10, 80]))
def test_plain_documents_are_outlined_the_same_both_ways(data: Any, flow: bool, width: int) -> None:
    text = yaml.safe_dump(
        data, default_flow_style=flow, allow_unicode=True, width=width, sort_keys=False
    )
    fast, full = outlines(text)
    assert fast == full
    if isinstance(data, dict) and data and not flow:
        assert fast is not None and list(fast.sections) == [str(k) for k in data]


@pytest.mark.parametrize(
    "text",
    [
        "cases:\n- a\n- b  # two\n# end\n",
        "# top\nsuite: s\ncases:\n  - {case: c1}\n\n  # between\n  - case: c2\n    x: [1]\n...\n",
        "a:\nb: []\nc: {}\nd: null\ne: |\n  text\n  # not a comment\n",
        "  indented: 1\n  list:\n    - x\n",
        "'quoted key': [1, 2]\n\"other\": 3",
    ],
)
def test_a_layout_is_outlined_the_same_both_ways(text: str) -> None:
    fast, full = outlines(text)
    assert fast == full and fast is not None


def test_an_outline_says_where_the_parts_lie() -> None:
    text = "suite: s\ncases:\n  - {case: c1}\n  - c2\narchive:\n...\n"
    (outline, _) = outlines(text)
    assert outline is not None and outline.column == 0 and text[outline.end :] == "...\n"
    cases, archive = outline.sections["cases"], outline.sections["archive"]
    assert [text[i : i + 5] for i in cases.items] == ["{case", "c2\nar"]
    assert cases.block_list and text[cases.key_start : cases.key_end] == "cases"
    assert not archive.block_list and archive.items == ()
    assert outlines("[1, 2]\n") == (None, None) and outlines("{a: 1}\n") == (None, None)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only a comment\n",
        "--- 42\n",
        "a: &x 1\nb: *x\n",
        "a: &x [1]\n",
        "base: {a: 1}\nmerged: {<<: {a: 2}, b: 3}\n",
        "a: !!str 2026-01-01\nb: !!int '7'\n",
        "a: !custom 1\n",
        "a: !!python/object/apply:os.system [echo]\n",
        "a: 1\nb: 2\na: 3\n",
        "'1': a\n1: b\n",
        "{[1, 2]: a}\n",
        "? {a: 1}\n: b\n",
        "a: =\n",
        "a: 2026-13-45\n",
        "cases:\n  - {case: c1, added: 2026-02-30}\n",
        "a: 1\n---\nb: 2\n",
        "a: [1, 2\n",
        "a: b: c\n",
        "a: " + "[" * 70 + "]" * 70 + "\n",
        "a: " + "{b: " * 62 + "1" + "}" * 62 + "\n",
        "a: " + "{b: " * 63 + "1" + "}" * 63 + "\n",
        "cases:\n  - case: c1\n    added: 2025-05-12\n    endpoints: [POST /v2/refunds]\n",
    ],
)
def test_what_is_not_plain_reads_as_the_full_way_reads_it(text: str) -> None:
    fast, full = both(text)
    assert same(fast, full)


def test_a_manifest_keeps_its_lines_read_the_plain_way() -> None:
    text = dump_yaml(
        {
            "suite": "s",
            "cases": [
                {"case": f"c{i}", "added": date(2025, 5, 1 + i), "when": datetime(2026, 1, 1)}
                for i in range(3)
            ],
        }
    )
    data, lines = parse_yaml(text, PATH)
    assert data["cases"][2]["added"] == date(2025, 5, 3)
    assert lines.line("cases.2.added") == text.splitlines().index("  added: 2025-05-03") + 1
    assert lines.line("cases.2.nothing") == lines.line("cases.2")
