"""Safe YAML reading that keeps the line of every mapping key, for errors that point at the line.

Every YAML file we read (run.yaml, gate.yaml, flaky.yaml, decisions, triage walks) is parsed
here, and held to what a hand-written settings file needs: no aliases (a 400-byte alias bomb
expands past a gigabyte, and a recursive alias never ends), no key given twice (the parser keeps
the last, a reader of the file sees the first), and no nesting deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from flipgate.core.errors import InputError
from flipgate.core.io.files import read_bytes

# libyaml's parser when PyYAML was built with it: the same documents, nodes and marks, parsed in C.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# And its emitter: the same text, written in C (a 10,000-case rerun plan: 1.0 s -> 0.2 s).
if TYPE_CHECKING:
    _Emitter = yaml.SafeDumper
else:
    _Emitter = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
MAX_DEPTH = 64  # mappings and lists inside one another; our own files need fewer than ten
STR_TAG = "tag:yaml.org,2002:str"
_NO_KEY = object()  # a mapping waiting for its next key


class SafeDumper(_Emitter):
    """Writes a value shared by two places in full at both: what we write, we read back."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any, *, width: int = 80) -> str:
    """`data` as block YAML: plain types only, keys in their order, Unicode as itself."""
    return yaml.dump(data, Dumper=SafeDumper, sort_keys=False, allow_unicode=True, width=width)


# What a YAML comment may not carry as itself: controls and line breaks (NEL, LS and PS end a line
# too) would end it, so that the text after it is read as settings, or make a file YAML refuses;
# format characters (a bidi override) would show the reviewer other text than the file holds.
_ESCAPED_IN_COMMENT = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def yaml_comment(text: str) -> str:
    """`# text` as one comment line: a character that would end the line, that YAML refuses or
    that hides what follows is written as its escape (`\\n`, `\\x1b`, `\\u202e`), never as itself."""
    return "# " + "".join(
        repr(char)[1:-1]
        if char != "\t" and unicodedata.category(char) in _ESCAPED_IN_COMMENT
        else char
        for char in text
    )


class LineIndex:
    """Line numbers (1-based) of the keys of a YAML document, by dotted path (`outcomes.prices`)."""

    def __init__(
        self,
        node: yaml.Node | None = None,
        *,
        text: str | None = None,
        outline: Outline | None = None,
    ) -> None:
        # Walked on the first question: most files are read without an error to point at, and
        # a 10,000-case suite manifest holds 100,000 nodes. Given the `text` instead, it is
        # composed into nodes only then.
        self._root, self._text = node, text
        self.outline = outline  # where the top-level parts lie, when the reader asked for it
        self._lines: dict[str, int] | None = None

    def _walk(self, node: yaml.Node, prefix: str, lines: dict[str, int]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                path = f"{prefix}{key_node.value}"
                lines[path] = key_node.start_mark.line + 1
                self._walk(value_node, path + ".", lines)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[f"{prefix}{i}"] = item.start_mark.line + 1
                self._walk(item, f"{prefix}{i}.", lines)

    def line(self, path: str) -> int | None:
        """The line of `path`, or of its nearest enclosing key."""
        if self._lines is None:
            self._lines = {}
            if self._root is None and self._text is not None:
                loader = SafeLoader(self._text)
                try:  # the text was read already: it composes
                    self._root = loader.get_single_node()
                finally:
                    loader.dispose()
            if self._root is not None:
                self._walk(self._root, "", self._lines)
        while path:
            if path in self._lines:
                return self._lines[path]
            path = path.rpartition(".")[0]
        return None


@dataclass(frozen=True)
class Section:
    """A top-level key of a block mapping, and where the text of its value lies."""

    key_start: int
    key_end: int  # just past the key's text
    key_column: int
    value_end: (
        int  # just past a scalar or a flow collection (a block one ends where the next begins)
    )
    block_list: bool  # the value is a list in block style, its items on lines of their own
    items: tuple[int, ...]  # where each item of a list starts


@dataclass(frozen=True)
class Outline:
    """Where the top-level parts of a document whose root is a block mapping lie in its text,
    for edits of the text that keep everything else as written (`core.io.yamledit`)."""

    sections: dict[str, Section]  # by the key's text
    column: int  # the column the mapping starts at: its keys'
    end: int  # where the mapping's text ends: before a `...`, else at the end of the text


class _Outliner:
    """Gathers an `Outline` from the parser's events, at the root's depth and the next."""

    def __init__(self) -> None:
        self.block = False
        self.column = 0
        self.end = -1
        self.key: tuple[str, int, int, int] | None = None  # text, start, end, column
        self.open: dict[str, Any] | None = None
        self.sections: dict[str, dict[str, Any]] = {}

    def see(self, stack: list[_Open], event: yaml.Event) -> None:
        """`event`, met with `stack` open (before it is applied)."""
        depth, start, end = len(stack), event.start_mark, event.end_mark
        assert start is not None and end is not None  # the parser marks every event
        wants_key = bool(stack) and stack[-1].wants_key
        if depth == 0:
            self.block = isinstance(event, yaml.MappingStartEvent) and not event.flow_style
            self.column = start.column
        elif depth == 1:
            if isinstance(event, yaml.MappingEndEvent):
                self.end = start.index
            elif wants_key:
                text = str(getattr(event, "value", ""))
                self.key = (text, start.index, end.index, start.column)
            elif self.key is not None:
                text, key_start, key_end, column = self.key
                block_list = isinstance(event, yaml.SequenceStartEvent) and not event.flow_style
                self.open = self.sections[text] = {
                    "key_start": key_start,
                    "key_end": key_end,
                    "key_column": column,
                    "value_end": end.index,
                    "block_list": block_list,
                    "items": [],
                }
        elif self.open is not None:
            if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                self.open["value_end"] = end.index
            elif isinstance(stack[-1].value, list):
                self.open["items"].append(start.index)

    def outline(self) -> Outline | None:
        if not self.block:
            return None
        sections = {
            text: Section(**{**parts, "items": tuple(parts["items"])})
            for text, parts in self.sections.items()
        }
        return Outline(sections, self.column, self.end)


def load_yaml(
    path: Path, data: bytes | None = None, *, outline: bool = False
) -> tuple[Any, LineIndex]:
    """Read and parse `path` (see `parse_yaml`). `data` is the file's content read elsewhere (at a
    git revision, or under the file's lock): `path` then only names it."""
    if data is None:
        data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None
    return parse_yaml(text, path, outline=outline)


def parse_yaml(text: str, path: Path, *, outline: bool = False) -> tuple[Any, LineIndex]:
    """Parse with the safe loader: tags that would build objects, aliases, keys given twice and
    deep nesting are input errors naming the line. With `outline`, the same pass also notes where
    the document's top-level parts lie (`LineIndex.outline`), for an edit of its text."""
    outliner = _Outliner() if outline else None
    try:
        data = _plain_document(text, outliner)
    except _NotPlain:
        return parse_nodes(text, path, outline=outline)
    return data, LineIndex(text=text, outline=outliner.outline() if outliner else None)


def parse_nodes(text: str, path: Path, *, outline: bool = False) -> tuple[Any, LineIndex]:
    """`parse_yaml` the full way, through the node tree: what a document that is not plain needs,
    and the reference the plain reading is tested against."""
    node: yaml.Node | None = None
    found: Outline | None = None
    loader = SafeLoader(text)
    try:  # one parse: the node tree gives the lines, and the data is constructed from it
        node = loader.get_single_node()
        if node is not None:
            _check_tree(node, path)
            found = _outline_of(node) if outline else None  # before merge keys are flattened
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        problem = " ".join(str(exc.problem).split())
        raise InputError(path, f"not valid YAML: {problem}", line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(path, f"not valid YAML: {exc}") from None
    except ValueError:  # PyYAML builds dates itself and raises on `2026-13-45`
        raise _impossible_date(path, node) from None
    finally:
        loader.dispose()
    return data, LineIndex(node, outline=found)


def _outline_of(root: yaml.Node) -> Outline | None:
    """The `Outline` the events would give, from the node tree."""
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        return None
    sections = {}
    for key, value in root.value:
        listed = value.value if isinstance(value, yaml.SequenceNode) else []
        sections[str(key.value)] = Section(
            key_start=key.start_mark.index,
            key_end=key.end_mark.index,
            key_column=key.start_mark.column,
            value_end=value.end_mark.index,
            block_list=isinstance(value, yaml.SequenceNode) and not value.flow_style,
            items=tuple(item.start_mark.index for item in listed),
        )
    return Outline(sections, root.start_mark.column, root.end_mark.index)


class _NotPlain(Exception):
    """The document needs the full reading: nodes, their checks and the errors they name."""


def _plain_document(text: str, outliner: _Outliner | None = None) -> Any:
    """The data of a plain document, built from the parser's events without composing nodes.

    A 10,000-case suite manifest reads in a third of the time (0.9 s -> 0.3 s of CPU): composing
    builds a Python object and two marks for each of its 110,000 nodes. Plain means what our own
    files are made of: untagged mappings, lists and scalars, no anchor or alias, no merge key, a
    scalar for each key and no key twice, not nested near `MAX_DEPTH`. Anything else (a YAML
    error, an impossible date) is `_NotPlain`, and `parse_yaml` reads the document the full way,
    which gives the same data or names what is wrong with it.
    """
    loader = SafeLoader(text)
    try:
        return _build(loader, outliner)
    except (yaml.YAMLError, ValueError):
        raise _NotPlain from None
    finally:
        loader.dispose()


class _Open:
    """A mapping or list being built; a mapping's raw keys so far, and the key awaiting a value."""

    __slots__ = ("key", "keys", "value")

    def __init__(self, value: dict[Any, Any] | list[Any], keys: set[str] | None) -> None:
        self.value, self.keys, self.key = value, keys, _NO_KEY

    @property
    def wants_key(self) -> bool:
        return self.keys is not None and self.key is _NO_KEY


def _build(loader: yaml.SafeLoader, outliner: _Outliner | None = None) -> Any:
    next_event: Callable[[], yaml.Event] = loader.get_event
    resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = loader.resolve
    constructors = loader.yaml_constructors
    built: dict[tuple[str, str], Any] = {}  # (tag, text) -> value: dates and numbers repeat
    stack: list[_Open] = []
    value: Any = None
    next_event()  # the stream's start
    if isinstance(next_event(), yaml.StreamEndEvent):
        return None  # no document
    while True:
        event = next_event()
        if outliner is not None and len(stack) <= 2:
            outliner.see(stack, event)
        plain = getattr(event, "anchor", None) is None and getattr(event, "tag", None) is None
        if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            value = stack.pop().value
        elif isinstance(event, yaml.ScalarEvent) and plain:
            raw = event.value
            tag = resolve(yaml.ScalarNode, raw, event.implicit)
            if tag == STR_TAG:
                value = raw
            elif (tag, raw) in built:
                value = built[tag, raw]
            elif (construct := constructors.get(tag)) is not None:
                value = built[tag, raw] = construct(loader, yaml.ScalarNode(tag, raw))
            else:  # a merge key, `=`: a tag the safe constructor leaves undefined
                raise _NotPlain
            if stack and (top := stack[-1]).wants_key:
                assert top.keys is not None
                if raw in top.keys:
                    raise _NotPlain  # a key given twice
                top.keys.add(raw)
                top.key = value
                continue
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent) and plain:
            if len(stack) + 2 > MAX_DEPTH or (stack and stack[-1].wants_key):
                raise _NotPlain  # deep, or a collection as a key
            mapping = isinstance(event, yaml.MappingStartEvent)
            stack.append(_Open({}, set()) if mapping else _Open([], None))
            continue
        else:  # an alias, an anchor or a tag
            raise _NotPlain
        if not stack:
            break
        top = stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        else:
            top.value[top.key] = value
            top.key = _NO_KEY
    next_event()  # the document's end
    if not isinstance(next_event(), yaml.StreamEndEvent):
        raise _NotPlain  # more than one document
    return value


def _check_tree(root: yaml.Node, path: Path) -> None:
    """Refuse aliases, repeated keys and deep nesting, walking each node once (no recursion).

    The composer resolves an alias to the node it names, so an alias is a node met twice: in
    document order, after its anchor."""
    seen: set[int] = set()
    todo: list[tuple[yaml.Node, str, int, int]] = [(root, "", 1, root.start_mark.line + 1)]
    while todo:
        node, where, depth, line = todo.pop()
        field = where or None
        if id(node) in seen:
            raise InputError(
                path,
                "a YAML alias (*name): write the value out in full",
                line=line,
                field=field,
            )
        seen.add(id(node))
        if depth > MAX_DEPTH:
            top = where.partition(".")[0] or None
            raise InputError(path, f"nested deeper than {MAX_DEPTH} levels", line=line, field=top)
        if isinstance(node, yaml.MappingNode):
            keys: set[object] = set()
            children = []
            for key, value in node.value:
                name = f"{where}.{key.value}" if where else str(key.value)
                key_line = key.start_mark.line + 1
                if isinstance(key, yaml.ScalarNode):
                    if key.value in keys:
                        raise InputError(path, "this key is given twice", line=key_line, field=name)
                    keys.add(key.value)
                children.append((value, name, depth + 1, key_line))
            todo.extend(reversed(children))
        elif isinstance(node, yaml.SequenceNode):
            todo.extend(
                (item, f"{where}.{i}" if where else str(i), depth + 1, line)
                for i, item in reversed(list(enumerate(node.value)))
            )


def _impossible_date(path: Path, root: yaml.Node | None) -> InputError:
    """Name the first scalar that looks like a date but is none (month 13, day 45)."""

    def walk(node: yaml.Node, where: str) -> InputError | None:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":timestamp"):
            try:
                yaml.safe_load(node.value)
            except ValueError:
                line = node.start_mark.line + 1
                return InputError(
                    path, f"not a date (YYYY-MM-DD): {node.value!r}", line=line, field=where
                )
        children: list[tuple[str, yaml.Node]] = []
        if isinstance(node, yaml.MappingNode):
            children = [(str(k.value), v) for k, v in node.value]
        elif isinstance(node, yaml.SequenceNode):
            children = [(str(i), v) for i, v in enumerate(node.value)]
        for name, child in children:
            found = walk(child, f"{where}.{name}" if where else name)
            if found is not None:
                return found
        return None

    found = walk(root, "") if root is not None else None
    return found or InputError(path, "holds a value YAML cannot read")
