"""Editing a YAML document's text in place, so that comments and layout stay as a person wrote
them: items added to, or one dropped from, a block list under a top-level key. Each edit returns
None when the text has a shape it cannot keep; the caller then writes the data out whole.
"""

from __future__ import annotations

from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    """Plain YAML a person edits: no `&id001` anchors when two fields share one date object."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)  # `history:` items indented like `entries:` items


def dump_block(data: Any) -> str:
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1 << 20,
    )


def _dump_items(items: list[dict[str, Any]], indent: int) -> str:
    text = dump_block(items)
    pad = " " * indent
    return "".join(pad + line if line.strip() else line for line in text.splitlines(True))


def _root(text: str) -> yaml.MappingNode | None:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    return node if isinstance(node, yaml.MappingNode) and not node.flow_style else None


def _value_node(root: yaml.MappingNode, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    return next(((k, v) for k, v in root.value if k.value == key), None)


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _after_line(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _end_of(text: str, node: yaml.Node) -> int:
    """Where the text of `node` ends: after the line of its last scalar, or its closing bracket."""
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style:
        if not node.value:
            break
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    mark = node.end_mark
    return mark.index if mark.column == 0 else _after_line(text, mark.index)


def append_items(text: str, key: str, items: list[dict[str, Any]]) -> str | None:
    """`text` with `items` added to the block list under top-level `key`; None: not that shape."""
    root = _root(text) if text.strip() else None
    if root is None:
        return None
    found = _value_node(root, key)
    if found is None:
        body = text if text.endswith("\n") or not text else text + "\n"
        return body + f"{key}:\n" + _dump_items(items, 2)
    key_node, value = found
    if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
        first = value.value[0].start_mark
        line = text[_line_start(text, first.index) : first.index]
        dash = line.find("-")
        if dash < 0:
            return None
        at = _end_of(text, value)
        return text[:at] + _dump_items(items, dash) + text[at:]
    empty = (isinstance(value, yaml.SequenceNode) and not value.value) or (
        isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")
    )
    if not empty:
        return None
    end = value.end_mark.index
    if isinstance(value, yaml.ScalarNode):
        end = _after_line(text, key_node.end_mark.index) - 1
    block = _dump_items(items, key_node.start_mark.column + 2).rstrip("\n")
    return text[: key_node.end_mark.index] + ":\n" + block + text[end:]


def drop_item(text: str, key: str, index: int) -> str | None:
    """`text` without item `index` of the block list under top-level `key`."""
    root = _root(text)
    found = _value_node(root, key) if root is not None else None
    if found is None:
        return None
    key_node, value = found
    if not isinstance(value, yaml.SequenceNode) or value.flow_style:
        return None
    items = value.value
    start = _line_start(text, items[index].start_mark.index)
    if len(items) == 1:
        return text[: key_node.end_mark.index] + ": []\n" + text[_end_of(text, value) :]
    # Up to the end of the item's own text: a comment above the next item stays with that item.
    return text[:start] + text[_end_of(text, items[index]) :]
