"""DeepEval's local test run (`test_run_<time>.json`) as far as flipgate reads it: models named
and shaped like DeepEval's `TestRun`, `LLMApiTestCase` and `MetricData` (checked against
deepeval 4.3.1)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from flipgate.core.importers.schema import Model


class MetricData(Model):
    name: str
    threshold: float
    success: bool
    score: float | None = None
    reason: str | None = None
    strictMode: bool = False  # its score passes only at 1
    evaluationModel: str | None = None  # the judge
    error: str | None = None


class ApiTestCase(Model):
    name: str | None = None
    input: Any = None
    actualOutput: Any = None
    expectedOutput: Any = None
    success: bool | None = None
    metricsData: list[MetricData] | None = None
    order: int | None = Field(default=None, ge=0)


class TestRun(Model):
    testCases: list[ApiTestCase] = []
    conversationalTestCases: list[ApiTestCase] = []
    identifier: str | None = None
    testPassed: int | None = None
    testFailed: int | None = None
