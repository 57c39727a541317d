"""Editing a YAML document's text in place, so that comments and layout stay as a person wrote
them: an item dropped from, and items added to, block lists under top-level keys.

Each edit is worked out from the document's `Outline` (noted in the same pass that read its data:
the file is not parsed again) and checked on its own: the text cut out must read as exactly the
item dropped, the text after which items are added as exactly the list's last item, and the text
added as exactly the items. A layout an edit cannot keep (a list on one line, a dash on a line
of its own) makes it None, and the caller writes the data out whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

import yaml

from flipgate.core.io.yamlio import Outline, SafeLoader

Splice = tuple[int, int, str]  # text[start:end] becomes the string
_DASH = re.compile(r" *- +")  # what stands before a block list's item on its first line
_UNREADABLE = object()


class _Dumper(yaml.SafeDumper):
    """Plain YAML a person edits: no `&id001` anchors when two fields share one date object."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # `history:` items indented like `entries:` items


def dump_block(data: Any) -> str:
    """`data` as block YAML a person edits, each value on the line of its key."""
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1 << 20,
    )


def drop_item(
    text: str, outline: Outline | None, data: Mapping[str, Any], key: str, index: int
) -> Splice | None:
    """Cut item `index` of the block list under top-level `key`, from its dash to the end of its
    own text: a comment above the next item stays with that item. The last one leaves `[]`."""
    section = outline.sections.get(key) if outline else None
    if outline is None or section is None or not section.block_list:
        return None
    items = section.items
    if not 0 <= index < len(items):
        return None
    first = _item_line(text, items[index])
    if first is None:
        return None
    limit = items[index + 1] if index + 1 < len(items) else _after_section(outline, key)
    end = _own_end(text, items[index], limit)
    if _read(text[first:end]) != [data[key][index]]:
        return None
    if len(items) == 1:  # the list's `:` becomes `: []`; what stands between stays
        colon = text.index(":", section.key_end)
        return (colon, end, ": []" + text[colon + 1 : first])
    return (first, end, "")


def append_items(
    text: str,
    outline: Outline | None,
    data: Mapping[str, Any],
    key: str,
    items: list[Any],
    rendered: str,
) -> Splice | None:
    """Add `items`, `rendered` as a block list at column 0, after the last item of the list under
    top-level `key`, in that list's column; into an empty `key:` or `key: []`; or as a new
    `key:` at the end of the document (before a `...`), indented as the document's lists are."""
    if outline is None or _read(rendered) != items:
        return None
    section = outline.sections.get(key)
    if section is None:
        at = outline.end
        lead = "" if at == 0 or text[at - 1] == "\n" else "\n"
        head = " " * outline.column + f"{key}:\n"
        return (at, at, lead + head + _indented(rendered, _list_column(text, outline)))
    value = data.get(key)
    if value is None or value == []:
        block = _indented(rendered, section.key_column + 2).rstrip("\n")
        return (section.key_end, section.value_end, ":\n" + block)
    if not section.block_list or not isinstance(value, list):
        return None
    last = section.items[-1]
    first = _item_line(text, last)
    if first is None:
        return None
    end = _own_end(text, last, _after_section(outline, key))
    if _read(text[first:end]) != [value[-1]]:
        return None
    lead = "" if text[end - 1] == "\n" else "\n"
    return (end, end, lead + _indented(rendered, text.index("-", first) - first))


def apply(text: str, splices: Sequence[Splice | None]) -> str | None:
    """`text` with every splice made, or None when one could not be worked out (or two overlap)."""
    if any(splice is None for splice in splices):
        return None
    ordered = sorted((s for s in splices if s is not None), reverse=True)
    for (start, _, _), (_, end, _) in pairwise(ordered):
        if end > start:
            return None
    for start, end, new in ordered:
        text = text[:start] + new + text[end:]
    return text


def _item_line(text: str, start: int) -> int | None:
    """Where the line of the item that starts at `start` begins, when its dash stands on it."""
    line = text.rfind("\n", 0, start) + 1
    return line if _DASH.fullmatch(text, line, start) else None


def _after_section(outline: Outline, key: str) -> int:
    """Where the next top-level key starts, or the document's end."""
    start = outline.sections[key].key_start
    return min(
        (s.key_start for s in outline.sections.values() if s.key_start > start), default=outline.end
    )


def _own_end(text: str, start: int, limit: int) -> int:
    """Where the text of the item that starts at `start` ends, when the next thing starts at
    `limit`: after the last line before it with more than blanks or a comment."""
    end = limit if limit >= len(text) else text.rfind("\n", 0, limit) + 1
    first = text.find("\n", start)
    first = len(text) if first < 0 else first + 1
    while end > first:
        begin = text.rfind("\n", 0, end - 1) + 1
        line = text[begin:end].strip()
        if line and not line.startswith("#"):
            break
        end = begin
    return max(end, first)


def _list_column(text: str, outline: Outline) -> int:
    """The column of the dashes of the document's first block list, for a new one."""
    for section in outline.sections.values():
        if section.block_list and section.items:
            first = _item_line(text, section.items[0])
            if first is not None:
                return text.index("-", first) - first
    return outline.column + 2


def _indented(rendered: str, column: int) -> str:
    pad = " " * column
    lines = rendered.split("\n")  # only a newline ends a line here, as in the splices' indices
    return "\n".join(pad + line if line.strip() else line for line in lines)


def _read(fragment: str) -> Any:
    """What a piece of the text reads as on its own (`_UNREADABLE` when it does not read)."""
    try:
        return yaml.load(fragment, Loader=SafeLoader)
    except (yaml.YAMLError, ValueError):
        return _UNREADABLE
