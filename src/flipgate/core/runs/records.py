"""The line-by-line path: each JSONL line parsed on its own, which either accepts a mix of types
the columnar reader refuses or names the exact line and field that is wrong (bad JSON, a key
given twice, bytes that are not UTF-8, a field of the wrong type). Importers' records come
this way too.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from flipgate.core.errors import InputError
from flipgate.core.io.files import read_bytes
from flipgate.core.runs.checks import KNOWN_FIELDS, record_problem
from flipgate.core.runs.model import (
    CHECKS_SCHEMA,
    DECISIONS_SCHEMA,
    METRICS,
    REPS_SCHEMA,
    SINGLE_CHECK_RULE,
    SINGLE_DECISION_RULE,
    Frames,
)
from flipgate.core.runs.nesting import Lines
from flipgate.core.runs.texts import (
    TEXT_FIELDS,
    TEXTS_SCHEMA,
    HeldTexts,
    JsonlTexts,
    Stamp,
    Texts,
    stamp_unchanged,
)

_SURROGATE = re.compile("[\ud800-\udfff]")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ: `json` keeps the last of two, a reader sees the first."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return found


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def read_jsonl_lines(path: Path) -> tuple[Frames, Texts]:
    """The tidy frames of a JSONL run, its texts left in the file (parsed again by line)."""
    stamp = Stamp.of(path)
    data = read_bytes(path)
    octets = np.frombuffer(data, dtype=np.uint8)
    lines = Lines.scan(octets)
    problem = lines.nesting_problem(octets, path)
    if problem is not None:
        raise problem

    def records() -> Iterator[tuple[int, dict[str, Any]]]:
        for number, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw, object_pairs_hook=_unique_keys)
            except UnicodeDecodeError:
                raise InputError(path, "not UTF-8 text", line=number) from None
            except _DuplicateKey as twice:
                raise InputError(
                    path, "this key is given twice", line=number, field=twice.key
                ) from None
            except json.JSONDecodeError as exc:
                raise InputError(
                    path, f"not valid JSON ({exc.msg}, column {exc.colno})", line=number
                ) from None
            if not isinstance(record, dict):
                raise InputError(path, "each line must be a JSON object", line=number)
            yield number, record

    frames, _ = frames_from_records(records(), path, hold=False)
    stamp_unchanged(path, stamp)
    return frames, JsonlTexts(path, stamp, lines.newlines, parse=_texts_of_lines)


def _texts_of_lines(lines: list[tuple[int, bytes]]) -> pl.DataFrame:
    """The texts of lines the read checked, parsed again as it parsed them."""
    rows = [(number, *_texts(json.loads(raw))) for number, raw in lines]
    return pl.DataFrame(rows, schema=TEXTS_SCHEMA, orient="row")


def _texts(record: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """A line's output, trajectory and other fields, as its texts hold them."""
    extra = {k: v for k, v in record.items() if k not in KNOWN_FIELDS}
    return (
        record.get("output"),
        _json(record.get("messages")),
        json.dumps(extra, ensure_ascii=False) if extra else None,
    )


def frames_from_records(
    records: Iterable[tuple[int, dict[str, Any]]], path: Path, *, hold: bool = True
) -> tuple[Frames, HeldTexts]:
    """The tidy frames of records in the results.jsonl shape, and their texts held in memory
    (none where `hold` is false: the caller reads them where they are stored)."""
    reps: dict[str, list[Any]] = {name: [] for name in REPS_SCHEMA}
    texts: dict[str, list[Any]] = {name: [] for name in TEXTS_SCHEMA}
    decisions: dict[str, list[Any]] = {name: [] for name in DECISIONS_SCHEMA}
    checks: dict[str, list[Any]] = {name: [] for name in CHECKS_SCHEMA}

    for line, record in records:
        problem = record_problem(record)
        if problem is not None:
            name, message = problem
            raise InputError(path, message, line=line, field=name)
        case, rep = record["case"], record.get("rep", 0)
        expected = _by_rule(record.get("expected"), SINGLE_DECISION_RULE)
        actual = _by_rule(record.get("actual"), SINGLE_DECISION_RULE)
        passed = _by_rule(record.get("passed"), SINGLE_CHECK_RULE)
        reasons_given = record.get("reasons")
        if isinstance(reasons_given, str):
            reasons = dict.fromkeys((*expected, *actual, *passed), reasons_given)
        else:
            reasons = _by_rule(reasons_given, SINGLE_DECISION_RULE)

        for name, value in (
            ("case", case),
            ("rep", rep),
            ("line", line),
            ("status", "ok" if record.get("status") is None else record["status"]),
            ("infra", record.get("infra")),
            ("safety", record.get("safety", False) is True),
            ("cached", record.get("cached", False) is True),
            ("template", record.get("template")),
            *((name, _float(record.get(name))) for name in METRICS),
        ):
            reps[name].append(value)
        held = _texts(record)
        # Not held, a text is still refused where no column could hold it.
        if hold or any(isinstance(text, str) and _SURROGATE.search(text) for text in held):
            for name, value in zip(TEXT_FIELDS, held, strict=True):
                texts[name].append(value)
            texts["line"].append(line)
        for rule in sorted(set(expected) | set(actual)):
            for name, value in (
                ("case", case),
                ("rep", rep),
                ("rule", rule),
                ("expected", expected.get(rule)),
                ("actual", actual.get(rule)),
                ("reason", reasons.get(rule)),
                ("line", line),
            ):
                decisions[name].append(value)
        for rule in sorted(passed):
            for name, value in (
                ("case", case),
                ("rep", rep),
                ("rule", rule),
                ("passed", passed[rule]),
                ("reason", reasons.get(rule)),
                ("line", line),
            ):
                checks[name].append(value)

    try:
        frames = (
            pl.DataFrame(reps, schema=REPS_SCHEMA),
            pl.DataFrame(decisions, schema=DECISIONS_SCHEMA),
            pl.DataFrame(checks, schema=CHECKS_SCHEMA),
        )
        held_texts = pl.DataFrame(texts, schema=TEXTS_SCHEMA)
    except UnicodeEncodeError:  # `"\ud800"` parses as a lone surrogate, which no column holds
        raise _not_text(path, [reps, texts, decisions, checks]) from None
    return frames, HeldTexts(held_texts)


def _not_text(path: Path, tables: list[dict[str, list[Any]]]) -> InputError:
    """The first value that is not UTF-8 text, by line: only looked for once a table refused it."""
    found = []
    for columns in tables:
        for name, values in columns.items():
            for row, value in enumerate(values):
                if isinstance(value, str) and _SURROGATE.search(value):
                    field = name if "rule" not in columns else f"{name}.{columns['rule'][row]}"
                    found.append((columns["line"][row], field))
                    break
    line, field = min(found, key=lambda where: where[0])
    return InputError(
        path, "not UTF-8 text: a lone surrogate (\\ud800 to \\udfff)", line=line, field=field
    )


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _float(value: Any) -> float | None:
    """A metric as a float; an integer past a float's range as the infinity Arrow reads it as."""
    if value is None:
        return None
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _by_rule(value: Any, single: str) -> dict[str, Any]:
    """A checked field's value as rule -> value, without the rules it leaves empty."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {rule: item for rule, item in value.items() if item is not None}
    return {single: value}
