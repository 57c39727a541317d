"""Read lm-evaluation-harness output (`lm_eval ... --log_samples`) as a run.

lm-eval writes, per run, `results_<time>.json` and one `samples_<task>_<time>.jsonl` per task
beside it. Either file may be given; the run is the results file and every samples file of the
same `<time>`. One document of one task is one case (`<task>/<doc_id>`, one repetition); each
metric under each filter is a rule (`exact_match,strict`: lm-eval's own name for it), which
passes when the document's value reaches the pass threshold (1 by default: a 0/1 metric passes
at 1), or stays under it for a metric where lower is better. A metric lm-eval only aggregates
over the corpus (bleu, perplexity...) has no per-document verdict, and is refused.

The key: the model and its arguments (`config.model`, `config.model_args`), the tasks' prompts
(their configs' digest), the tasks and their versions, lm-eval's version, and the git commit
lm-eval ran in (`git_hash`). The completeness: every task's `n-samples.effective` documents.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    PASS_THRESHOLD,
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    check_unique,
    short_digest,
)
from flipgate.core.importers.notes import DocumentsMissing, ImportNote
from flipgate.core.order import natural_key

if TYPE_CHECKING:
    from collections.abc import Iterator

    from flipgate.core.importers.lm_eval_types import ResultsFile

_RESULTS = re.compile(r"results_(?P<time>.+)\.json")
_SAMPLES = re.compile(r"samples_(?P<task>.+)_(?P<time>[^_]+)\.jsonl")
_CONFIG_NOISE = ("metadata",)  # a task config's parts that do not shape the prompt


def is_results(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("results"), dict)
        and "configs" in doc
        and ("lm_eval_version" in doc or "n-samples" in doc)
    )


def is_samples(file: LogFile) -> bool:
    first = file.first_line
    return (
        first is not None
        and {"doc_id", "metrics", "filter"} <= first.keys()
        and _SAMPLES.fullmatch(file.path.name) is not None
    )


def _read(file: LogFile, options: ImportOptions) -> ImportedRun:
    from flipgate.core.importers.lm_eval_types import ResultsFile
    from flipgate.core.importers.schema import read_json

    path = file.path
    if is_results(file.document):
        results_path = path
    else:  # a samples file: its results file has the same time
        named = _SAMPLES.fullmatch(path.name)
        assert named is not None  # recognised by its name
        results_path = path.with_name(f"results_{named['time']}.json")
        if not results_path.is_file():
            raise InputError(path, f"no {results_path.name} beside it: lm-eval writes both")
    match = _RESULTS.fullmatch(results_path.name)
    time = match["time"] if match else None
    results = read_json(ResultsFile, results_path.read_bytes(), results_path)
    records: list[dict[str, Any]] = []
    planned: dict[str, int] = {}
    for task in sorted(results.configs, key=natural_key):
        samples = results_path.with_name(f"samples_{task}_{time}.jsonl")
        if time is None or not samples.is_file():
            raise InputError(
                results_path,
                f"no samples_{task}_<time>.jsonl beside it: run lm_eval with --log_samples, "
                "and keep each samples file beside its results file",
                field=f"configs.{task}",
            )
        better = results.higher_is_better.get(task, {})
        records.extend(_task_records(samples, task, better, options))
        count = results.n_samples.get(task)
        for doc_id in range(count.effective if count else 0):
            planned[f"{task}/{doc_id}"] = 1
    records.sort(key=lambda r: natural_key(r["case"]))
    check_unique(results_path, records, "document")
    return _imported(results_path, results, records, planned)


def _imported(
    path: Path, results: ResultsFile, records: list[dict[str, Any]], planned: dict[str, int]
) -> ImportedRun:
    from flipgate.core.importers.completeness import by_plan

    completeness = by_plan(records, planned, plan_known=True, when_missing="documents missing")
    manifest = _manifest(path, results)
    manifest["completeness"] = completeness.to_manifest()
    notes: list[ImportNote] = []
    if not completeness.finished:
        notes.append(DocumentsMissing(completeness.totals.missing, completeness.totals.expected))
    return ImportedRun(path, "lm_eval", manifest, records, notes, completeness)


def _task_records(
    path: Path, task: str, better: dict[str, bool | None], options: ImportOptions
) -> Iterator[dict[str, Any]]:
    """One record per document: its lines (one per filter) joined."""
    from flipgate.core.importers.lm_eval_types import SampleLine
    from flipgate.core.importers.schema import read_json

    by_doc: dict[int, dict[str, Any]] = {}
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            where = f"line {number}"
            line = read_json(SampleLine, raw, path, where)
            record = by_doc.setdefault(
                line.doc_id, {"case": f"{task}/{line.doc_id}", "rep": 0, "task": task}
            )
            for metric in line.metrics:
                rule = f"{metric},{line.filter}"
                value = (line.model_extra or {}).get(metric)
                verdict = _passes(path, f"{where}.{metric}", value, better.get(metric), options)
                if verdict is None:
                    record.update(status="infra", infra="unscored")
                else:
                    record.setdefault("passed", {})[rule] = verdict
            record.setdefault("target", line.target)
            if isinstance(line.filtered_resps, list) and line.filtered_resps:
                record.setdefault("outputs", {})[line.filter] = line.filtered_resps[0]
    for record in by_doc.values():
        if record.get("status") == "infra":
            record.pop("passed", None)
        outputs = record.pop("outputs", {})
        first = next(iter(outputs.values()), None)
        if isinstance(first, str):
            record["output"] = first
        if len(outputs) > 1:
            record["filtered"] = outputs
        yield record


def _passes(
    path: Path, field: str, value: Any, higher_is_better: bool | None, options: ImportOptions
) -> bool | None:
    """A document's metric value as pass or fail; None for NaN (not graded)."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, int | float):
        raise InputError(
            path,
            f"{value!r} is no per-document score: a metric lm-eval only aggregates over the "
            "corpus cannot be gated case by case",
            field=field,
        )
    if math.isnan(value):
        return None
    if higher_is_better is False:
        return value <= options.pass_threshold
    return value >= options.pass_threshold


def _manifest(path: Path, results: ResultsFile) -> dict[str, Any]:
    config = results.config
    args = config.model_args
    if isinstance(args, dict):
        args = ",".join(f"{k}={v}" for k, v in sorted(args.items()))
    model = f"{config.model or 'unknown'}({args})" if args else config.model or "unknown"
    prompts = {
        task: {k: v for k, v in task_config.items() if k not in _CONFIG_NOISE}
        for task, task_config in results.configs.items()
    }
    versions = ", ".join(
        f"{task}@{results.versions.get(task, '?')}" for task in sorted(results.configs)
    )
    key: dict[str, Any] = {
        "model": model,
        "prompt": f"tasks@{short_digest(json.dumps(prompts, sort_keys=True, default=str))}",
        "judge": "none",
        "eval_set": versions,
        "harness": f"lm-eval@{results.lm_eval_version or 'unknown'}",
    }
    if results.git_hash:
        key["code"] = f"git@{results.git_hash}"
    created = (
        datetime.fromtimestamp(results.date, UTC).isoformat(timespec="seconds")
        if results.date is not None and math.isfinite(results.date)
        else None
    )
    return {
        "run_id": f"{path.parent.name}/{path.stem}",
        "created": created,
        "key": key,
        "lm_eval": {
            "results": path.name,
            "tasks": sorted(results.configs),
            "model_name": results.model_name,
        },
    }


IMPORTER = Importer(
    name="lm_eval",
    title="lm-evaluation-harness",
    options=(PASS_THRESHOLD,),
    recognises=lambda file: is_results(file.document) or is_samples(file),
    read=_read,
)
