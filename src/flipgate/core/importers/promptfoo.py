"""Read promptfoo's output (`promptfoo eval -o results.json` or `.jsonl`; results versions 2
and 3) as a run, through promptfoo's own types (`promptfoo_types`).

What is a case. promptfoo lays results out as a grid: one row per test, one column per
(prompt, provider), and with `--repeat N` each test appears N times, the repeats of test *k*
numbered `testIdx` kN .. kN+N-1. So a test is its index *k*, named by its description, or when
it has none (or shares it) by its index and a digest of its vars and assertions: tests that share
their vars stay apart, and no name holds a prompt's text. Its repeats are its repetitions.

A column dimension (prompt, provider) that takes several values in the file is part of the case
(`camera crash [prompt=v1]`); one that takes a single value describes the whole run and goes
into the key (`prompt`, `model`) instead. A prompt is named by its label's short name: promptfoo
labels a prompt kept in a file `v1: prompts/prompt_v1.txt: <the whole prompt>`, which is `v1`
here, and `--select prompt=` takes the short name, the file's name or the whole label. Two prompts
held in ONE file are compared by importing it twice, with `--select prompt=v1` and
`--select prompt=v2`: one value left makes the prompt a run dimension, so both arms get the same
case ids and pair test by test, while their keys differ in `prompt`.

Each assertion (`gradingResult.componentResults`) is a rule: its metric, else its type, made
unique within the test. A provider error (`failureReason` 2) is an infra repetition.

The run's completeness: every test of the config's `tests` on every column, `repeat` times
(`runtimeOptions.repeat`); a `.jsonl` file holds neither, so there the plan is the tests it
holds, each as often as the most repeated.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    Option,
    check_unique,
    short_digest,
    take_case_flags,
)
from flipgate.core.importers.notes import CachedRepeats, ImportNote, RowsMissing
from flipgate.core.order import natural_key

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Completeness
    from flipgate.core.importers.promptfoo_types import (
        AtomicTestCase,
        CompletedPrompt,
        EvaluateResult,
        GradingResult,
        ResultsFile,
        TableOutput,
    )

SUPPORTED_VERSIONS = (2, 3)
DIMENSIONS = ("prompt", "provider")  # column dimensions, in the order they appear in a case id
_PROVIDER_ERROR = 2  # failureReason: 0 ok, 1 an assertion failed, 2 the provider failed
_SHORT_NAME = 60  # a label's part longer than this (or spanning lines) is prompt text, not a name
_JSONL_ROW = frozenset({"testIdx", "promptIdx", "testCase"})  # what marks a `.jsonl` line


@dataclass(frozen=True)
class Column:
    """One column of the grid: a prompt on a provider, with every name it answers to."""

    prompt: str  # the prompt's short name
    prompt_names: frozenset[str]
    prompt_digest: str  # of the prompt's content: promptfoo's own `promptId`, else its template
    provider: str
    provider_names: frozenset[str]

    def name(self, dim: str) -> str:
        return self.prompt if dim == "prompt" else self.provider

    def answers_to(self, dim: str, label: str) -> bool:
        return label in (self.prompt_names if dim == "prompt" else self.provider_names)


@dataclass(frozen=True)
class _Cell:
    """One grid cell: one repeat of one test in one column."""

    test: AtomicTestCase
    order: int  # the row's place among the test's repeats: testIdx, or the table row
    column: Column
    success: bool
    failure_reason: int
    error: str | None
    grading: GradingResult | None
    output: Any
    cached: bool
    latency_ms: float | None
    cost: float | None
    tokens: int | None

    @property
    def test_identity(self) -> str:
        return json.dumps(
            [self.test.description or "", self.test.vars, self.test.assert_], sort_keys=True
        )


def is_promptfoo_json(doc: Any) -> bool:
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), dict):
        return False
    summary = doc["results"]
    return "version" in summary and (
        "evalId" in doc or any(k in summary for k in ("results", "table", "prompts"))
    )


def is_promptfoo_jsonl(file: LogFile) -> bool:
    first = file.first_line
    return first is not None and first.keys() >= _JSONL_ROW


def _read(file: LogFile, options: ImportOptions) -> ImportedRun:
    from flipgate.core.importers.promptfoo_types import ResultsFile
    from flipgate.core.importers.schema import read_value

    if file.document is None:  # not one JSON document: the `.jsonl` output
        return _imported(file.path, None, list(_jsonl_cells(file.path)), options)
    version = file.document["results"].get("version")
    if version not in SUPPORTED_VERSIONS:
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise InputError(
            file.path,
            f"promptfoo results version {version!r} is not supported ({supported} are)",
            field="results.version",
        )
    doc = read_value(ResultsFile, file.document, file.path)
    cells = list(_cells_v3(file.path, doc) if version == 3 else _cells_v2(file.path, doc))
    return _imported(file.path, doc, cells, options)


def _cells_v3(path: Path, doc: ResultsFile) -> Iterator[_Cell]:
    columns = [_column(c.label, c.id or c.raw, c.provider) for c in doc.results.prompts]
    if doc.results.results is None:
        raise InputError(path, "expected a list of results", field="results.results")
    for i, row in enumerate(doc.results.results):
        if row.promptIdx < len(columns):
            column = columns[row.promptIdx]
        else:
            column = _column(
                row.prompt.label, row.promptId or row.prompt.label, _provider_label(row)
            )
        yield _row_cell(path, f"results.results[{i}]", row, column)


def _jsonl_cells(path: Path) -> Iterator[_Cell]:
    from flipgate.core.importers.promptfoo_types import EvaluateResult
    from flipgate.core.importers.schema import read_json

    columns: dict[tuple[str, str, str], Column] = {}
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            row = read_json(EvaluateResult, line, path, f"line {number}")
            names = (row.prompt.label, row.promptId or row.prompt.label, _provider_label(row))
            column = columns.setdefault(names, _column(*names))
            yield _row_cell(path, f"line {number}", row, column)


def _provider_label(row: EvaluateResult) -> str:
    provider = row.provider
    return provider if isinstance(provider, str) else provider.label or provider.id or ""


def _row_cell(path: Path, where: str, row: EvaluateResult, column: Column) -> _Cell:
    response = row.response
    test = row.testCase
    if not test.description and not test.vars:
        raise InputError(path, "a result with neither a test description nor vars", field=where)
    usage = (response.tokenUsage if response else None) or row.tokenUsage
    return _Cell(
        test=test,
        order=row.testIdx,
        column=column,
        success=row.success,
        failure_reason=row.failureReason,
        error=row.error or (response.error if response else None),
        grading=row.gradingResult,
        output=response.output if response else None,
        cached=response.cached if response else False,
        latency_ms=row.latencyMs,
        cost=row.cost,
        tokens=usage.total if usage else None,
    )


def _cells_v2(path: Path, doc: ResultsFile) -> Iterator[_Cell]:
    table = doc.results.table
    if table is None:
        raise InputError(path, "a version 2 file needs a table", field="results.table")
    heads = table.head.prompts
    for i, row in enumerate(table.body):
        if len(row.outputs) != len(heads):
            raise InputError(
                path,
                f"{len(row.outputs)} outputs for {len(heads)} prompt columns",
                field=f"results.table.body[{i}].outputs",
            )
        test = row.test
        if not test.description and row.description:
            test = test.model_copy(update={"description": row.description})
        for head, output in zip(heads, row.outputs, strict=True):
            yield _table_cell(
                test, i, _column(head.label, head.raw, _v2_provider(head, output)), output
            )


def _v2_provider(head: CompletedPrompt, output: TableOutput) -> str:
    return head.provider or output.provider or ""


def _table_cell(test: AtomicTestCase, order: int, column: Column, output: TableOutput) -> _Cell:
    return _Cell(
        test=test,
        order=order,
        column=column,
        success=output.passed,
        failure_reason=output.failureReason,
        error=output.error,
        grading=output.gradingResult,
        output=output.text,
        cached=False,
        latency_ms=output.latencyMs,
        cost=output.cost,
        tokens=output.tokenUsage.total if output.tokenUsage else None,
    )


def _column(label: str, content: str, provider: str) -> Column:
    """A column's names. promptfoo labels a prompt kept in a file `NAME: PATH: TEXT` (or
    `PATH: TEXT` without a name of its own); an inline prompt without a label is its text."""
    names = {label}
    parts = label.split(": ", 2)
    short = [part for part in parts[:-1] if "\n" not in part and len(part) <= _SHORT_NAME]
    names.update(short)
    names.update(PurePosixPath(part.removeprefix("file://")).name for part in short)
    if short:
        display = short[0]
    elif "\n" not in label and len(label) <= _SHORT_NAME:
        display = label
    else:
        display = f"prompt@{short_digest(label)}"
    return Column(
        prompt=display,
        prompt_names=frozenset(names - {""}),
        prompt_digest=short_digest(content),
        provider=provider,
        provider_names=frozenset({provider}),
    )


def _imported(
    path: Path, doc: ResultsFile | None, cells: list[_Cell], options: ImportOptions
) -> ImportedRun:
    from flipgate.core.importers.completeness import by_plan

    columns = _distinct([*_planned_columns(doc), *(cell.column for cell in cells)])
    cells = _select(path, [replace(c, column=columns[c.column]) for c in cells], options.select)
    planned = [c for c in dict.fromkeys(columns.values()) if _selected(c, options.select)]
    varying = [dim for dim in DIMENSIONS if len({c.name(dim) for c in planned}) > 1]
    repeat = (doc.runtimeOptions.repeat if doc else None) or _most_repeated(cells)
    ran = _tests(path, cells, repeat)
    plan = _planned_tests(doc)
    names = _test_names({**ran, **(plan or {})})  # the config names its tests; rows fill in
    records = [
        _record(
            path,
            cell,
            _case_id(names[cell.order // repeat], cell.column, varying),
            cell.order % repeat,
        )
        for cell in cells
    ]
    records.sort(key=lambda r: (natural_key(r["case"]), r["rep"]))
    check_unique(path, records, "test")
    cases = [_case_id(names[index], column, varying) for index in names for column in planned]
    completeness = by_plan(
        records,
        dict.fromkeys(cases, repeat),
        plan_known=plan is not None,
        when_missing="rows missing",
    )
    return ImportedRun(
        source=path,
        tool="promptfoo",
        manifest={
            **_manifest(path, doc, cells, names, options),
            "completeness": completeness.to_manifest(),
        },
        records=records,
        notes=_notes(records, completeness),
        completeness=completeness,
    )


def _planned_columns(doc: ResultsFile | None) -> list[Column]:
    if doc is None:
        return []
    table = doc.results.table
    heads = table.head.prompts if table is not None else doc.results.prompts
    return [_column(head.label, head.id or head.raw, head.provider) for head in heads]


def _distinct(columns: list[Column]) -> dict[Column, Column]:
    """Each column as it is named in case ids: two prompts whose short names clash keep them
    apart with a digest of their whole label."""
    labels: defaultdict[str, set[frozenset[str]]] = defaultdict(set)
    for column in columns:
        labels[column.prompt].add(column.prompt_names)
    clashing = {name for name, sets in labels.items() if len(sets) > 1}
    named = {}
    for column in columns:
        if column.prompt in clashing:
            full = max(column.prompt_names, key=len)
            named[column] = replace(column, prompt=f"{column.prompt}@{short_digest(full)}")
        else:
            named[column] = column
    return named


def _selected(column: Column, select: Mapping[str, str]) -> bool:
    return all(column.answers_to(dim, label) for dim, label in select.items())


def _select(path: Path, cells: list[_Cell], select: Mapping[str, str]) -> list[_Cell]:
    for dim, label in select.items():
        if dim not in DIMENSIONS:
            raise InputError(
                path,
                f"cannot select by {dim!r}; choose from: {', '.join(DIMENSIONS)}",
                field="select",
            )
        kept = [cell for cell in cells if cell.column.answers_to(dim, label)]
        if not kept or len({cell.column.name(dim) for cell in kept}) > 1:
            present = ", ".join(sorted({cell.column.name(dim) for cell in cells}))
            said = f"{label!r} names several" if kept else f"no {dim} labelled {label!r}"
            raise InputError(path, f"{said}; the file holds: {present}", field=f"select.{dim}")
        cells = kept
    return cells


def _most_repeated(cells: Sequence[_Cell]) -> int:
    """How often a test was run per column, where the file does not say: the most of any."""
    counts = Counter((cell.test_identity, cell.column) for cell in cells)
    return max(counts.values(), default=1)


@dataclass(frozen=True)
class _Test:
    index: int
    description: str | None
    digest: str  # of its vars and assertions

    @classmethod
    def of(
        cls, index: int, test: AtomicTestCase, default_asserts: list[Any] | None = None
    ) -> _Test:
        asserts = (
            [*(default_asserts or []), *(test.assert_ or [])] if default_asserts else test.assert_
        )
        return cls(
            index, test.description, short_digest(json.dumps([test.vars, asserts], sort_keys=True))
        )


def _tests(path: Path, cells: Sequence[_Cell], repeat: int) -> dict[int, _Test]:
    """Test index -> the test its rows ran (rows kN .. kN+N-1 are test k's N repeats)."""
    tests: dict[int, _Test] = {}
    identities: dict[int, str] = {}
    for cell in cells:
        index = cell.order // repeat
        if identities.setdefault(index, cell.test_identity) != cell.test_identity:
            raise InputError(
                path,
                f"the rows numbered {index * repeat} to {index * repeat + repeat - 1} hold more "
                f"than one test: they are not {repeat} repeats of one test",
                field="testIdx",
            )
        tests.setdefault(index, _Test.of(index, cell.test))
    return tests


def _planned_tests(doc: ResultsFile | None) -> dict[int, _Test] | None:
    """The tests the config lists, when it lists them inline; None when it does not say."""
    from flipgate.core.importers.promptfoo_types import AtomicTestCase, DefaultTest

    if doc is None or not isinstance(doc.config.tests, list):
        return None
    tests = [test for test in doc.config.tests if isinstance(test, AtomicTestCase)]
    if len(tests) < len(doc.config.tests):  # some are files of tests: the plan is not here
        return None
    default = doc.config.defaultTest
    asserts = default.assert_ if isinstance(default, DefaultTest) else None
    return {i: _Test.of(i, test, asserts) for i, test in enumerate(tests)}


def _test_names(tests: Mapping[int, _Test]) -> dict[int, str]:
    """A readable, stable name per test: its description; with its digest where the
    description is shared; its index and digest where it has none."""
    shared = Counter(test.description for test in tests.values() if test.description)
    names = {}
    for index, test in tests.items():
        if not test.description:
            names[index] = f"test {index} #{test.digest}"
        elif shared[test.description] > 1:
            names[index] = f"{test.description} #{test.digest}"
        else:
            names[index] = test.description
    return names


def _case_id(test_name: str, column: Column, varying: Sequence[str]) -> str:
    if not varying:
        return test_name
    return test_name + " [" + ", ".join(f"{dim}={column.name(dim)}" for dim in varying) + "]"


def _record(path: Path, cell: _Cell, case: str, rep: int) -> dict[str, Any]:
    record: dict[str, Any] = {"case": case, "rep": rep}
    metadata = {k: v for k, v in cell.test.metadata.items() if not k.startswith("_")}
    record.update(take_case_flags(metadata, path, case))
    if cell.failure_reason == _PROVIDER_ERROR:
        record["status"] = "infra"
        record["infra"] = cell.error or "provider error"
    else:
        record.update(_assertions(cell))
    if cell.output is not None:
        record["output"] = cell.output if isinstance(cell.output, str) else json.dumps(cell.output)
    if cell.latency_ms is not None:
        record["latency_ms"] = cell.latency_ms
    if cell.cost is not None:
        record["cost_usd"] = cell.cost
    if cell.tokens is not None:
        record["tokens"] = cell.tokens
    if cell.cached:
        record["cached"] = True
    record["vars"] = cell.test.vars
    if metadata:
        record["metadata"] = metadata
    return record


def _assertions(cell: _Cell) -> dict[str, Any]:
    components = cell.grading.componentResults if cell.grading else None
    if not components:  # no assertions: the test's own verdict is the only check
        return {"passed": cell.success}
    passed: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    for component in components:
        assertion = component.assertion
        base = (assertion.metric or assertion.type) if assertion else "assertion"
        rule, n = base, 1
        while rule in passed:
            n += 1
            rule = f"{base}#{n}"
        passed[rule] = component.passed
        if component.reason:
            reasons[rule] = component.reason
    return {"passed": passed, "reasons": reasons}


def _manifest(
    path: Path,
    doc: ResultsFile | None,
    cells: list[_Cell],
    names: Mapping[int, str],
    options: ImportOptions,
) -> dict[str, Any]:
    prompts = sorted({f"{c.column.prompt}@{c.column.prompt_digest}" for c in cells})
    providers = sorted({cell.column.provider for cell in cells})
    version = (doc.metadata.promptfooVersion if doc else None) or "unknown"
    run_id = (doc.evalId if doc else None) or path.parent.name or path.stem
    if options.select:  # two arms taken from one file must not share a run_id
        run_id += "".join(f":{dim}={label}" for dim, label in sorted(options.select.items()))
    details = {
        "eval_id": doc.evalId if doc else None,
        "description": doc.config.description if doc else None,
        "results_version": doc.results.version if doc else None,
        "output": path.suffix.lstrip("."),
        "prompts": sorted({cell.column.prompt for cell in cells}),
        "providers": providers,
        "repeat": doc.runtimeOptions.repeat if doc else None,
        "tags": doc.config.tags if doc else None,
        "select": dict(options.select),
    }
    created = (doc.metadata.evaluationCreatedAt or doc.results.timestamp) if doc else None
    return {
        "run_id": run_id,
        "created": created,
        "key": {
            "model": ", ".join(providers),
            "prompt": ", ".join(prompts),
            "judge": _judge(doc),
            "eval_set": f"tests@{short_digest(json.dumps(sorted(names.values())))}",
            "harness": f"promptfoo@{version}",
        },
        "promptfoo": {k: v for k, v in details.items() if v not in (None, [], {})},
    }


def _judge(doc: ResultsFile | None) -> str:
    """The grading provider of model-graded assertions, set in `defaultTest.options.provider`."""
    from flipgate.core.importers.promptfoo_types import DefaultTest

    default = doc.config.defaultTest if doc else None
    provider = default.options.provider if isinstance(default, DefaultTest) else None
    if isinstance(provider, dict):
        provider = provider.get("label") or provider.get("id")
    return str(provider) if provider else "none"


def _notes(records: list[dict[str, Any]], completeness: Completeness) -> list[ImportNote]:
    notes: list[ImportNote] = []
    totals = completeness.totals
    if totals.missing:
        notes.append(RowsMissing(totals.missing, totals.expected))
    reps = Counter(record["case"] for record in records)
    cached: Counter[str] = Counter(
        record["case"] for record in records if record.get("cached") and reps[record["case"]] > 1
    )
    if cached:
        notes.append(CachedRepeats(sum(cached.values()), tuple(sorted(cached))))
    return notes


def _columns(given: list[str]) -> dict[str, str]:
    """`--select` values, `DIM=LABEL` each, as the `select` mapping."""
    select: dict[str, str] = {}
    for item in given:
        dim, sep, label = item.partition("=")
        if not sep or dim not in DIMENSIONS or not label:
            raise ValueError(f"expected provider=LABEL or prompt=LABEL, not {item!r}")
        select[dim] = label
    return select


IMPORTER = Importer(
    name="promptfoo",
    title="promptfoo",
    options=(
        Option(
            "select",
            "keep one column: provider=LABEL, or prompt=LABEL (its label, short name or file "
            "name), e.g. prompt=v2 (repeatable)",
            takes="values",
            read=_columns,
            metavar="DIM=LABEL",
        ),
    ),
    recognises=lambda file: is_promptfoo_json(file.document) or is_promptfoo_jsonl(file),
    read=_read,
)
