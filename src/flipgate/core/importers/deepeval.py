"""Read a DeepEval local test run (`test_run_<time>.json`, written to `DEEPEVAL_RESULTS_FOLDER`
or `DisplayConfig(results_folder=...)`) as a run.

A test case is a case (its `name`), run once; each metric is a rule, which passes when DeepEval
says it succeeded (`success`, its score against its `threshold`). A metric that errored (`error`)
makes the repetition infra: it could not be graded. The judge is the metrics'
`evaluationModel`. A DeepEval run records neither the system under test nor a plan, so the key
holds what the file shows (the judges, the cases) and whether the run finished is not known.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    check_unique,
    short_digest,
)
from flipgate.core.order import natural_key

if TYPE_CHECKING:
    from flipgate.core.importers.deepeval_types import ApiTestCase, TestRun


def is_test_run(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("testCases"), list)
        and ("metricsScores" in doc or "testPassed" in doc)
    )


def _read(file: LogFile, _options: ImportOptions) -> ImportedRun:
    from flipgate.core.importers.completeness import by_plan
    from flipgate.core.importers.deepeval_types import TestRun
    from flipgate.core.importers.schema import read_value

    path = file.path
    run = read_value(TestRun, file.document, path)
    cases = [
        (f"{kind}[{i}]", case)
        for kind, listed in (
            ("testCases", run.testCases),
            ("conversationalTestCases", run.conversationalTestCases),
        )
        for i, case in enumerate(listed)
    ]
    records = [_record(path, where, case) for where, case in cases]
    records.sort(key=lambda r: natural_key(r["case"]))
    check_unique(path, records, "test case")
    completeness = by_plan(records, {}, plan_known=False, when_missing="")
    manifest = _manifest(path, run)
    manifest["completeness"] = completeness.to_manifest()
    return ImportedRun(path, "deepeval", manifest, records, [], completeness)


def _record(path: Path, where: str, case: ApiTestCase) -> dict[str, Any]:
    if not case.name:
        raise InputError(path, "a test case needs a name to be paired across runs", field=where)
    if not case.metricsData:
        raise InputError(path, "the test case has no metric", field=f"{where}.metricsData")
    record: dict[str, Any] = {"case": case.name, "rep": 0}
    errors = {m.name: m.error for m in case.metricsData if m.error is not None}
    if errors:
        record["status"] = "infra"
        record["infra"] = "; ".join(f"{name}: {error}" for name, error in errors.items())
    else:
        record["passed"] = {m.name: m.success for m in case.metricsData}
        reasons = {m.name: m.reason for m in case.metricsData if m.reason}
        if reasons:
            record["reasons"] = reasons
    record["scores"] = {
        m.name: {"score": m.score, "threshold": m.threshold} for m in case.metricsData
    }
    if isinstance(case.actualOutput, str):
        record["output"] = case.actualOutput
    for name, value in (("input", case.input), ("expected_output", case.expectedOutput)):
        if value is not None:
            record[name] = value
    return record


def _manifest(path: Path, run: TestRun) -> dict[str, Any]:
    cases = [*run.testCases, *run.conversationalTestCases]
    metrics = [m for case in cases for m in case.metricsData or []]
    judges = sorted({m.evaluationModel for m in metrics if m.evaluationModel})
    thresholds = sorted({(m.name, m.threshold, m.strictMode) for m in metrics})
    questions = sorted(
        (case.name or "", json.dumps(case.input, sort_keys=True, default=str)) for case in cases
    )
    return {
        "run_id": f"{run.identifier}:{path.stem}" if run.identifier else path.stem,
        "key": {
            "model": "unknown",  # DeepEval does not record the system under test
            "judge": ", ".join(judges) or "none",
            "eval_set": f"cases@{short_digest(json.dumps(questions))}",
            "rules": f"metrics@{short_digest(json.dumps(thresholds))}",
            "harness": "deepeval",
        },
        "deepeval": {
            k: v
            for k, v in {"file": path.name, "identifier": run.identifier}.items()
            if v is not None
        },
    }


IMPORTER = Importer(
    name="deepeval",
    title="DeepEval",
    options=(),
    recognises=lambda file: is_test_run(file.document),
    read=_read,
)
