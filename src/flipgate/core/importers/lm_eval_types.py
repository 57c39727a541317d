"""lm-evaluation-harness's output as far as flipgate reads it: `results_<time>.json` and the
lines of `samples_<task>_<time>.jsonl` (checked against lm-eval 0.4.13's `EvaluationTracker`)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from flipgate.core.importers.schema import Model


class NSamples(Model):
    original: int = Field(ge=0)
    effective: int = Field(ge=0)


class RunConfig(Model):
    model: str | None = None
    model_args: dict[str, Any] | str | None = None


class ResultsFile(Model):
    """`results_<time>.json`, as far as it is read."""

    results: dict[str, dict[str, Any]]
    configs: dict[str, dict[str, Any]] = {}
    versions: dict[str, int | float | str | None] = {}
    n_samples: dict[str, NSamples] = Field(default={}, alias="n-samples")
    higher_is_better: dict[str, dict[str, bool | None]] = {}
    config: RunConfig = RunConfig()
    git_hash: str | None = None
    lm_eval_version: str | None = None
    date: float | None = None
    model_name: str | None = None


class SampleLine(Model):
    """One line of `samples_<task>_<time>.jsonl`: one document under one filter; each metric
    named in `metrics` is a field of its own."""

    model_config = ConfigDict(extra="allow")
    doc_id: int = Field(ge=0)
    filter: str = "none"
    metrics: list[str]
    target: Any = None
    filtered_resps: Any = None
