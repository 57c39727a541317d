"""promptfoo's output as far as flipgate reads it: models named and shaped like promptfoo's
published types (`EvaluateResult`, `GradingResult`, `AtomicTestCase`, `ProviderResponse`,
`CompletedPrompt`...; checked against promptfoo 0.121.20's `results.json` version 3 and `.jsonl`,
and the version 2 table of older releases).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from flipgate.core.importers.schema import Model


class Assertion(Model):
    type: str = "assertion"
    metric: str | None = None


class ComponentResult(Model):
    passed: bool = Field(alias="pass")
    reason: str | None = None
    assertion: Assertion | None = None


class GradingResult(Model):
    passed: bool = Field(alias="pass")
    reason: str | None = None
    componentResults: list[ComponentResult] | None = None  # promptfoo's name


class TokenUsage(Model):
    total: int | None = None


class ProviderResponse(Model):
    output: Any = None
    error: str | None = None
    cached: bool = False
    tokenUsage: TokenUsage | None = None


class AtomicTestCase(Model):
    description: str | None = None
    vars: dict[str, Any] = {}
    assert_: list[Any] | None = Field(default=None, alias="assert")
    metadata: dict[str, Any] = {}


class PromptRef(Model):
    raw: str = ""  # rendered with the row's vars
    label: str = ""


class ProviderRef(Model):
    id: str | None = None
    label: str | None = None


class EvaluateResult(Model):
    """One row of `results.results`, and one line of the `.jsonl` output."""

    testIdx: int = Field(ge=0)
    promptIdx: int = Field(ge=0)
    testCase: AtomicTestCase
    prompt: PromptRef = PromptRef()
    promptId: str | None = None  # promptfoo's digest of the prompt: the same in every row
    provider: ProviderRef | str = ProviderRef()
    response: ProviderResponse | None = None
    error: str | None = None
    success: bool
    failureReason: int = 0  # 0 ok, 1 an assertion failed, 2 the provider failed
    gradingResult: GradingResult | None = None
    latencyMs: float | None = None
    cost: float | None = None
    tokenUsage: TokenUsage | None = None


class CompletedPrompt(Model):
    """One column of the grid: a prompt on a provider."""

    id: str | None = None  # the `promptId` of its rows
    raw: str = ""  # the template
    label: str = ""
    provider: str = ""


class TableOutput(Model):
    """A cell of a version 2 table."""

    passed: bool = Field(alias="pass")
    text: Any = None
    error: str | None = None
    failureReason: int = 0
    gradingResult: GradingResult | None = None
    latencyMs: float | None = None
    cost: float | None = None
    tokenUsage: TokenUsage | None = None
    provider: str | None = None


class TableRow(Model):
    test: AtomicTestCase = AtomicTestCase()
    description: str | None = None
    outputs: list[TableOutput]


class TableHead(Model):
    prompts: list[CompletedPrompt] = []


class Table(Model):
    head: TableHead = TableHead()
    body: list[TableRow]


class EvaluateSummary(Model):
    version: int
    timestamp: str | None = None
    prompts: list[CompletedPrompt] = []
    results: list[EvaluateResult] | None = None  # version 3
    table: Table | None = None  # version 2


class ConfigPrompt(Model):
    id: str | None = None
    label: str | None = None


class GraderOptions(Model):
    provider: str | dict[str, Any] | None = None


class DefaultTest(Model):
    options: GraderOptions = GraderOptions()
    assert_: list[Any] | None = Field(default=None, alias="assert")


class Config(Model):
    description: str | None = None
    tests: list[AtomicTestCase | str] | str | None = None  # inline tests, or files holding them
    defaultTest: DefaultTest | str | None = None
    tags: dict[str, Any] | None = None


class Metadata(Model):
    promptfooVersion: str | None = None
    evaluationCreatedAt: str | None = None


class RuntimeOptions(Model):
    repeat: int | None = Field(default=None, ge=1)


class ResultsFile(Model):
    """`promptfoo eval -o results.json` (and `promptfoo export eval`)."""

    evalId: str | None = None
    results: EvaluateSummary
    config: Config = Config()
    metadata: Metadata = Metadata()
    runtimeOptions: RuntimeOptions = RuntimeOptions()
