"""Safe YAML reading that keeps the line of every mapping key, for errors that point at the line.

Every YAML file we read (run.yaml, gate.yaml, flaky.yaml, decisions, triage walks) is parsed
here, and held to what a hand-written settings file needs: no aliases (a 400-byte alias bomb
expands past a gigabyte, and a recursive alias never ends), no key given twice (the parser keeps
the last, a reader of the file sees the first), and no nesting deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

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


class SafeDumper(_Emitter):
    """Writes a value shared by two places in full at both: what we write, we read back."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def dump_yaml(data: Any, *, width: int = 80) -> str:
    """`data` as block YAML: plain types only, keys in their order, Unicode as itself."""
    return yaml.dump(data, Dumper=SafeDumper, sort_keys=False, allow_unicode=True, width=width)


class LineIndex:
    """Line numbers (1-based) of the keys of a YAML document, by dotted path (`outcomes.prices`)."""

    def __init__(self, node: yaml.Node | None) -> None:
        # Walked on the first question: most files are read without an error to point at, and
        # a 10,000-case suite manifest holds 100,000 nodes.
        self._root = node
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
            if self._root is not None:
                self._walk(self._root, "", self._lines)
        while path:
            if path in self._lines:
                return self._lines[path]
            path = path.rpartition(".")[0]
        return None


def load_yaml(path: Path) -> tuple[Any, LineIndex]:
    """Read and parse `path` (see `parse_yaml`)."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 text ({exc.reason})") from None
    return parse_yaml(text, path)


def parse_yaml(text: str, path: Path) -> tuple[Any, LineIndex]:
    """Parse with the safe loader: tags that would build objects, aliases, keys given twice and
    deep nesting are input errors naming the line."""
    node: yaml.Node | None = None
    loader = SafeLoader(text)
    try:  # one parse: the node tree gives the lines, and the data is constructed from it
        node = loader.get_single_node()
        if node is not None:
            _check_tree(node, path)
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
    return data, LineIndex(node)


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
