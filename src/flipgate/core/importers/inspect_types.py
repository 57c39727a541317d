"""Inspect AI's log as far as flipgate reads it: models named and shaped like Inspect's published
types (`inspect_ai.log.EvalLog`, `EvalSpec`, `EvalSample`, `EvalSampleLimit`, `ProvenanceData`,
`inspect_ai.model.ChatMessage`, `ModelEvent`...; checked against inspect-ai 0.3.285).

Only the fields an import uses are declared; the others (events' contents, `events_data`, the
store...) are skipped unread. Every declared field is typed as Inspect types it, strictly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from flipgate.core.importers.schema import Model

LOG_FORMAT_VERSIONS = (1, 2)  # `EvalLog.version`s read; a newer one is refused, not guessed at

Scalar = bool | int | float | str
Value = Scalar | list[Scalar] | dict[str, Scalar | None]  # Inspect's `scorer.Value`


class Score(Model):
    value: Value
    answer: str | None = None
    explanation: str | None = None


class ToolCall(Model):
    id: str
    function: str
    arguments: dict[str, Any] = {}


class ToolCallError(Model):
    type: str | None = None
    message: str


class Content(Model):
    """One part of a message: `text`, `reasoning`, or media (image, audio, document...)."""

    type: str
    text: str | None = None
    reasoning: str | None = None


class ChatMessage(Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[Content]
    tool_calls: list[ToolCall] | None = None  # assistant
    tool_call_id: str | None = None  # tool
    function: str | None = None  # tool
    error: ToolCallError | None = None  # tool


class ModelOutput(Model):
    completion: str = ""


class ModelUsage(Model):
    total_tokens: int = 0


class EvalError(Model):
    message: str


class EvalSampleLimit(Model):
    type: str  # context time working message token turn cost operator custom
    limit: float
    reason: str | None = None


class ProvenanceData(Model):
    """Who invalidated a sample (`inspect_ai.log.invalidate_samples`), when and why."""

    author: str
    timestamp: str | None = None
    reason: str | None = None


class Event(Model):
    """An event of the transcript, read for one thing: whether a model call hit the cache."""

    event: str
    cache: Any = None  # a model event's: "read", "write" or None; other events' are not read


class EvalSample(Model):
    id: int | str
    epoch: int = Field(ge=1)
    target: str | list[str] = ""
    messages: list[ChatMessage] = []
    output: ModelOutput = ModelOutput()
    scores: dict[str, Score] | None = None
    metadata: dict[str, Any] = {}
    events: list[Event] = []
    model_usage: dict[str, ModelUsage] = {}
    total_time: float | None = None
    error: EvalError | None = None
    limit: EvalSampleLimit | None = None
    invalidation: ProvenanceData | None = None
    attachments: dict[str, str] = {}


class EvalDataset(Model):
    name: str | None = None
    sample_ids: list[int | str] | None = None


class EvalConfig(Model):
    epochs: int | None = Field(default=None, ge=1)
    message_limit: int | None = None
    token_limit: int | None = None
    turn_limit: int | None = None
    cost_limit: float | None = None


class EvalScorer(Model):
    name: str


class EvalRevision(Model):
    commit: str | None = None
    dirty: bool | None = None


class EvalSpec(Model):
    task: str
    eval_id: str | None = None
    task_id: str | None = None
    run_id: str | None = None
    created: str | None = None
    task_version: int | str = 0
    task_args: dict[str, Any] = {}
    model: str = "unknown"
    model_roles: dict[str, Any] | None = None
    dataset: EvalDataset = EvalDataset()
    config: EvalConfig = EvalConfig()
    scorers: list[EvalScorer] | None = None
    packages: dict[str, str] = {}
    revision: EvalRevision | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None


class EvalPlanStep(Model):
    solver: str
    params_passed: dict[str, Any] = {}


class EvalPlan(Model):
    steps: list[EvalPlanStep] = []
    config: dict[str, Any] = {}


class LogVersion(Model):
    """What a log's format version is, read before anything else of it."""

    version: int


class EvalLogHeader(Model):
    """Everything of a log but its samples: `header.json` of a `.eval`, or a JSON log's top."""

    version: int
    status: Literal["started", "success", "cancelled", "error"] = "started"
    eval: EvalSpec
    plan: EvalPlan = EvalPlan()
    error: EvalError | None = None
    tags: list[str] = []
    metadata: dict[str, Any] = {}
