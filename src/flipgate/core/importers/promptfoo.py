"""Read a promptfoo `results.json` (`promptfoo eval -o`, results versions 2 and 3) as a run.

What is a case. promptfoo lays results out as a grid: one row per test, one column per
(prompt, provider), and with `--repeat N` each test appears N times with a fresh `testIdx`. So a
test is told by its description and vars, never by `testIdx`, and its repeats are repetitions
(numbered in file order). A column dimension (prompt label, provider label) that takes several
values in the file is part of the case (`t01 stability [prompt=terse]`); one that takes a single
value describes the whole run and goes into the key (`prompt`, `model`) instead. Hence:

- a baseline file run with prompt v1 and a candidate file with prompt v2 pair test by test, and
  the key shows the prompt moved;
- a file holding two providers keeps them apart as separate cases;
- two prompts held in ONE file are compared by importing it twice with `select`:
  `{"prompt": "terse"}` for the baseline and `{"prompt": "guided"}` for the candidate. Selecting
  a column leaves one value of that dimension, which makes it a run dimension, so both arms get
  the same case ids and pair test by test, while their keys differ in `prompt`.

Each assertion (`gradingResult.componentResults`) is a rule: its metric, else its type, made
unique within the test. A provider error (`failureReason` 2) is an infra repetition.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    ImportedRun,
    Importer,
    ImportOptions,
    Option,
    short_digest,
    take_case_flags,
)

SUPPORTED_VERSIONS = (2, 3)
DIMENSIONS = ("prompt", "provider")  # column dimensions, in the order they appear in a case id
_PROVIDER_ERROR = 2  # failureReason: 0 ok, 1 an assertion failed, 2 the provider failed


@dataclass(frozen=True)
class _Cell:
    """One grid cell: one repeat of one test in one (prompt, provider) column."""

    test: Mapping[str, Any]  # the test case: description, vars, metadata
    column: Mapping[str, str]  # dimension -> label
    prompt_raw: str
    result: Mapping[str, Any]  # a v3 result row or a v2 table output

    @property
    def test_identity(self) -> tuple[str, str]:
        return (
            str(self.test.get("description") or ""),
            json.dumps(self.test.get("vars") or {}, sort_keys=True),
        )


def is_promptfoo_json(doc: Any) -> bool:
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), dict):
        return False
    summary = doc["results"]
    return "version" in summary and (
        "evalId" in doc or any(k in summary for k in ("results", "table", "prompts"))
    )


def imported_run(path: Path, doc: Mapping[str, Any], options: ImportOptions) -> ImportedRun:
    summary = doc["results"]
    version = summary.get("version")
    if version == 3:
        cells = list(_cells_v3(path, summary))
    elif version == 2:
        cells = list(_cells_v2(path, summary))
    else:
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise InputError(
            path,
            f"promptfoo results version {version!r} is not supported ({supported} are)",
            field="results.version",
        )
    cells = _select(path, cells, options.select)
    varying = [dim for dim in DIMENSIONS if len({cell.column[dim] for cell in cells}) > 1]
    test_names = _test_names(cells)
    reps: Counter[str] = Counter()
    records = []
    for cell in cells:
        case = test_names[cell.test_identity]
        if varying:
            case += " [" + ", ".join(f"{dim}={cell.column[dim]}" for dim in varying) + "]"
        records.append(_record(path, cell, case, reps[case]))
        reps[case] += 1
    return ImportedRun(
        source=path,
        tool="promptfoo",
        manifest=_manifest(path, doc, cells, test_names, options),
        records=records,
        notes=_cache_notes(records, reps),
    )


def _cells_v3(path: Path, summary: Mapping[str, Any]) -> Iterator[_Cell]:
    columns = summary.get("prompts") or []
    for i, row in enumerate(_list(path, summary, "results.results")):
        index = row.get("promptIdx")
        column = columns[index] if isinstance(index, int) and index < len(columns) else {}
        prompt = row.get("prompt") or {}
        provider = row.get("provider") or {}
        test = dict(row.get("testCase") or {})
        test.setdefault("vars", row.get("vars") or {})
        test.setdefault("description", row.get("description"))
        if not test.get("description") and not test.get("vars"):
            raise InputError(
                path,
                "a result with neither a test description nor vars",
                field=f"results.results[{i}]",
            )
        yield _Cell(
            test=test,
            column={
                "prompt": str(column.get("label") or prompt.get("label") or ""),
                "provider": str(
                    column.get("provider") or provider.get("label") or provider.get("id") or ""
                ),
            },
            prompt_raw=str(column.get("raw") or prompt.get("raw") or ""),
            result=row,
        )


def _cells_v2(path: Path, summary: Mapping[str, Any]) -> Iterator[_Cell]:
    table = summary.get("table")
    if not isinstance(table, dict):
        raise InputError(path, "a version 2 file needs a table", field="results.table")
    columns = (table.get("head") or {}).get("prompts") or []
    for i, row in enumerate(_list(path, table, "results.table.body")):
        test = dict(row.get("test") or {})
        test.setdefault("description", row.get("description"))
        outputs = row.get("outputs") or []
        if len(outputs) != len(columns):
            raise InputError(
                path,
                f"{len(outputs)} outputs for {len(columns)} prompt columns",
                field=f"results.table.body[{i}].outputs",
            )
        for column, output in zip(columns, outputs, strict=True):
            yield _Cell(
                test=test,
                column={
                    "prompt": str(column.get("label") or ""),
                    "provider": str(column.get("provider") or output.get("provider") or ""),
                },
                prompt_raw=str(column.get("raw") or ""),
                result=output,
            )


def _list(path: Path, mapping: Mapping[str, Any], field: str) -> list[dict[str, Any]]:
    """The list of objects at `field` (a dotted path whose last part is a key of `mapping`)."""
    items = mapping.get(field.rpartition(".")[2])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise InputError(path, "expected a list of objects", field=field)
    return items


def _select(path: Path, cells: list[_Cell], select: Mapping[str, str]) -> list[_Cell]:
    for dim, label in select.items():
        if dim not in DIMENSIONS:
            raise InputError(
                path,
                f"cannot select by {dim!r}; choose from: {', '.join(DIMENSIONS)}",
                field="select",
            )
        present = sorted({cell.column[dim] for cell in cells})
        if label not in present:
            raise InputError(
                path,
                f"no {dim} labelled {label!r}; the file holds: {', '.join(present)}",
                field=f"select.{dim}",
            )
        cells = [cell for cell in cells if cell.column[dim] == label]
    return cells


def _test_names(cells: list[_Cell]) -> dict[tuple[str, str], str]:
    """A readable, stable name per test: its description, plus a vars digest where ambiguous."""
    identities = list(dict.fromkeys(cell.test_identity for cell in cells))
    descriptions = Counter(description for description, _ in identities)
    names: dict[tuple[str, str], str] = {}
    for description, variables in identities:
        digest = short_digest(variables)
        if not description:
            names[description, variables] = f"vars@{digest}"
        elif descriptions[description] > 1:
            names[description, variables] = f"{description} #{digest}"
        else:
            names[description, variables] = description
    return names


def _record(path: Path, cell: _Cell, case: str, rep: int) -> dict[str, Any]:
    row = cell.result
    record: dict[str, Any] = {"case": case, "rep": rep}
    metadata = {k: v for k, v in (cell.test.get("metadata") or {}).items() if not k.startswith("_")}
    record.update(take_case_flags(metadata, path, case))
    response = row.get("response") or {}
    if row.get("failureReason") == _PROVIDER_ERROR:
        record["status"] = "infra"
        record["infra"] = str(row.get("error") or response.get("error") or "provider error")
    else:
        record.update(_assertions(row))
    output = response.get("output", row.get("text"))
    if output is not None:
        record["output"] = output if isinstance(output, str) else json.dumps(output)
    for source, target in (("latencyMs", "latency_ms"), ("cost", "cost_usd")):
        if isinstance(row.get(source), int | float):
            record[target] = row[source]
    usage = response.get("tokenUsage") or row.get("tokenUsage") or {}
    if isinstance(usage.get("total"), int):
        record["tokens"] = usage["total"]
    if response.get("cached"):
        record["cached"] = True
    record["vars"] = cell.test.get("vars") or {}
    if metadata:
        record["metadata"] = metadata
    return record


def _assertions(row: Mapping[str, Any]) -> dict[str, Any]:
    grading = row.get("gradingResult") or {}
    components = grading.get("componentResults") or []
    if not components:  # no assertions: the test's own verdict is the only check
        return {"passed": bool(row.get("success", row.get("pass")))}
    passed: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    for component in components:
        assertion = component.get("assertion") or {}
        base = str(assertion.get("metric") or assertion.get("type") or "assertion")
        rule, n = base, 1
        while rule in passed:
            n += 1
            rule = f"{base}#{n}"
        passed[rule] = bool(component.get("pass"))
        if component.get("reason"):
            reasons[rule] = str(component["reason"])
    return {"passed": passed, "reasons": reasons}


def _manifest(
    path: Path,
    doc: Mapping[str, Any],
    cells: list[_Cell],
    test_names: Mapping[tuple[str, str], str],
    options: ImportOptions,
) -> dict[str, Any]:
    summary = doc["results"]
    config = doc.get("config") or {}
    prompts = sorted({f"{c.column['prompt']}@{short_digest(c.prompt_raw)}" for c in cells})
    providers = sorted({cell.column["provider"] for cell in cells})
    version = (doc.get("metadata") or {}).get("promptfooVersion", "unknown")
    run_id = str(doc.get("evalId") or path.parent.name or path.stem)
    if options.select:  # two arms taken from one file must not share a run_id
        run_id += "".join(f":{dim}={label}" for dim, label in sorted(options.select.items()))
    details = {
        "eval_id": doc.get("evalId"),
        "description": config.get("description"),
        "results_version": summary.get("version"),
        "prompts": sorted({cell.column["prompt"] for cell in cells}),
        "providers": providers,
        "repeat": (doc.get("runtimeOptions") or {}).get("repeat"),
        "tags": config.get("tags"),
        "select": dict(options.select),
    }
    return {
        "run_id": run_id,
        "created": (doc.get("metadata") or {}).get("evaluationCreatedAt")
        or summary.get("timestamp"),
        "key": {
            "model": ", ".join(providers),
            "prompt": ", ".join(prompts),
            "judge": _judge(config),
            "eval_set": f"tests@{short_digest(json.dumps(sorted(test_names.values())))}",
            "harness": f"promptfoo@{version}",
        },
        "promptfoo": {k: v for k, v in details.items() if v not in (None, [], {})},
    }


def _judge(config: Mapping[str, Any]) -> str:
    """The grading provider of model-graded assertions, set in `defaultTest.options.provider`."""
    provider = ((config.get("defaultTest") or {}).get("options") or {}).get("provider")
    if isinstance(provider, dict):
        provider = provider.get("label") or provider.get("id")
    return str(provider) if provider else "none"


def _cache_notes(records: list[dict[str, Any]], reps: Mapping[str, int]) -> list[str]:
    cached: defaultdict[str, int] = defaultdict(int)
    for record in records:
        if record.get("cached") and reps[record["case"]] > 1:
            cached[record["case"]] += 1
    if not cached:
        return []
    names = sorted(cached)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return [
        f"promptfoo served {sum(cached.values())} repeats from its cache ({shown}): "
        "those repeats are not independent runs; rerun with --no-cache"
    ]


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
            "keep one column, e.g. provider=gpt-x or prompt=v2 (repeatable)",
            takes="values",
            read=_columns,
            metavar="DIM=LABEL",
        ),
    ),
    recognises=lambda file: is_promptfoo_json(file.document),
    read=lambda file, options: imported_run(file.path, file.document, options),
)
