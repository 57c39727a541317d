"""Read an Inspect AI log (`.eval` zip or `.json`) as a run, through Inspect's own data model.

Each sample is read as Inspect types it (`inspect_types`), never by searching its text; a `.eval`
and its `.json` twin give the same run. One sample (id, epoch) becomes one record (case = the
id, rep = epoch - 1):

- each scorer is a rule: a scorer whose target and answer are both labels of the run is a
  labelled decision (`expected`/`actual`), any other a pass/fail check (`passed`);
- a sample with an `error`, or stopped by a time or working-time limit, is an infra repetition
  (`timeout` for a limit); a score of NaN (a scorer that could not grade) makes it infra too
  (`unscored`), never a fail;
- a sample stopped by any other limit (message, token, turn, cost, context, custom) fails the
  check `limit`, whose reason says which ("stopped by the message limit (12)"), and keeps the
  limit as data (`limit: {type, limit, reason}`); a log where a limit can stop a sample gives
  every gradable record that check, so the arms ask the same questions;
- a sample Inspect's `invalidate_samples` took out is not a record: it is an exclusion of the
  run's completeness, with who excluded it and why;
- a model call served from Inspect's cache (a model event with `cache: "read"`) marks the
  repetition cached;
- the messages are the trajectory, with the text Inspect moved into `attachments` put back.

The run's completeness: finished when the log's `status` is `success`; every id of
`eval.dataset.sample_ids` planned `eval.config.epochs` times.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    PASS_THRESHOLD,
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    Option,
    check_unique,
    positive,
    short_digest,
    take_case_flags,
)
from flipgate.core.importers.notes import ImportNote, LogNotFinished
from flipgate.core.order import natural_key

if TYPE_CHECKING:
    from flipgate.core.importers.completeness import Exclusion
    from flipgate.core.importers.inspect_types import (
        ChatMessage,
        EvalLogHeader,
        EvalSample,
        EvalSampleLimit,
        EvalSpec,
        Score,
    )

_PASSING_LETTERS = {"C": True, "I": False, "N": False}  # `P` depends on ImportOptions
_GRADER_ROLE = "grader"  # the `model_roles` entry that grades: the judge
_TIMEOUTS = frozenset({"time", "working"})  # limits that mean the system never answered: infra
_OPERATOR = "operator"  # a person stopped the sample: no measurement either
LIMIT_RULE = "limit"  # the check a sample stopped by a limit fails
ATTACHMENT = "attachment://"


def is_inspect_json(doc: Any) -> bool:
    """An Inspect JSON log: a mapping with an integer `version` and an `eval` holding the task."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("version"), int)
        and isinstance(doc.get("eval"), dict)
        and "task" in doc["eval"]
    )


def _read(file: LogFile, options: ImportOptions) -> ImportedRun:
    from flipgate.core.importers.inspect_types import EvalLogHeader, EvalSample, LogVersion
    from flipgate.core.importers.inspect_zip import EvalArchive
    from flipgate.core.importers.schema import read_json, read_value

    path = file.path
    if file.is_zip:  # even a truncated one: the reader says what is wrong with it
        with EvalArchive(path, int(options.max_member_mb * 1e6)) as archive:
            name, raw = archive.header()
            _check_version(read_json(LogVersion, raw, path, name).version, path, name)
            header = read_json(EvalLogHeader, raw, path, name)
            samples = (
                read_json(EvalSample, data, path, member) for member, data in archive.samples()
            )
            return imported_run(path, header, samples, options)
    doc = file.document
    if not is_inspect_json(doc):
        raise InputError(path, "not an Inspect log: no `version` and `eval.task`")
    _check_version(read_value(LogVersion, doc, path).version, path, "version")
    header = read_value(EvalLogHeader, doc, path)
    listed = doc.get("samples") or []
    if not isinstance(listed, list):
        raise InputError(path, "expected a list", field="samples")
    return imported_run(
        path,
        header,
        (read_value(EvalSample, raw, path, _json_where(raw, i)) for i, raw in enumerate(listed)),
        options,
    )


def _check_version(version: int, path: Path, where: str) -> None:
    """A log of a format this reader does not know is refused before its fields are read: they
    may mean something else there."""
    from flipgate.core.importers.inspect_types import LOG_FORMAT_VERSIONS

    if version not in LOG_FORMAT_VERSIONS:
        raise InputError(
            path,
            f"an Inspect log of format version {version}; this flipgate reads versions "
            f"{', '.join(map(str, LOG_FORMAT_VERSIONS))} (a newer Inspect wrote it?)",
            field=where,
        )


def _json_where(raw: Any, index: int) -> str:
    if isinstance(raw, dict) and "id" in raw:
        return f"samples[{raw.get('id')!r}, epoch {raw.get('epoch')!r}]"
    return f"samples[{index}]"


def imported_run(
    path: Path, header: EvalLogHeader, samples: Iterable[EvalSample], options: ImportOptions
) -> ImportedRun:
    """Map a log (its header and its samples, read one at a time) onto run.yaml and
    results.jsonl, with the run's completeness."""
    from flipgate.core.importers.completeness import account

    spec = header.eval
    labels = {label.lower(): label for label in options.labels.values()}
    records: list[dict[str, Any]] = []
    exclusions: list[Exclusion] = []
    for sample in samples:
        if sample.invalidation is not None:
            exclusions.append(_exclusion(sample))
        else:
            records.append(_record(path, sample, labels, options))
    order = {str(sample_id): i for i, sample_id in enumerate(spec.dataset.sample_ids or [])}
    records.sort(key=lambda r: (order.get(r["case"], len(order)), natural_key(r["case"]), r["rep"]))
    check_unique(path, records, "sample")
    _ask_every_record_the_limit(spec, records)
    epochs = spec.config.epochs or 1
    completeness = account(
        records,
        dict.fromkeys(order, epochs),
        finished=header.status == "success",
        status=header.status,
        detail=header.error.message if header.error else None,
        exclusions=sorted(exclusions, key=lambda e: (order.get(e.case, 0), e.rep)),
    )
    manifest = _manifest(path, header, options)
    manifest["completeness"] = completeness.to_manifest()
    notes: list[ImportNote] = []
    if header.status != "success":
        totals = completeness.totals
        notes.append(LogNotFinished(header.status, totals.missing, totals.expected))
    return ImportedRun(path, "inspect", manifest, records, notes, completeness)


def _exclusion(sample: EvalSample) -> Exclusion:
    from flipgate.core.importers.completeness import Exclusion

    who = sample.invalidation
    assert who is not None
    return Exclusion(str(sample.id), sample.epoch - 1, who.author, who.reason, who.timestamp)


def _ask_every_record_the_limit(spec: EvalSpec, records: list[dict[str, Any]]) -> None:
    """Where a limit can fail a sample, every gradable record answers the `limit` check: a
    case's set of rules is the same whether or not a limit stopped it."""
    config = spec.config
    declared = any(
        limit is not None
        for limit in (
            config.message_limit,
            config.token_limit,
            config.turn_limit,
            config.cost_limit,
        )
    )
    if not declared and not any(LIMIT_RULE in r.get("passed", {}) for r in records):
        return
    for record in records:
        if record.get("status") != "infra":
            record.setdefault("passed", {}).setdefault(LIMIT_RULE, True)


def _manifest(path: Path, header: EvalLogHeader, options: ImportOptions) -> dict[str, Any]:
    spec = header.eval
    sample_ids = spec.dataset.sample_ids or []
    eval_set = (
        f"{spec.dataset.name or spec.task}"
        f"@{short_digest(json.dumps([str(i) for i in sample_ids]))}"
        f":v{spec.task_version}"
    )
    key: dict[str, Any] = {
        "model": spec.model,
        "prompt": f"plan@{_plan_digest(header)}",
        "judge": _judge(spec.model_roles or {}),
        "eval_set": eval_set,
        "harness": f"inspect_ai@{spec.packages.get('inspect_ai', 'unknown')}",
    }
    revision = spec.revision
    if revision is not None and revision.commit:
        key["code"] = f"git@{revision.commit[:12]}" + ("+dirty" if revision.dirty else "")
    inspect: dict[str, Any] = {
        "log": path.name,
        "status": header.status,
        "task": spec.task,
        "task_args": spec.task_args,
        "tags": spec.tags or header.tags,
        "metadata": spec.metadata or header.metadata,
        "epochs": spec.config.epochs,
        "scorers": [scorer.name for scorer in spec.scorers or []],
        "run_id": spec.run_id,
    }
    return {
        "run_id": spec.eval_id or spec.task_id or path.stem,
        "created": spec.created,
        "key": key,
        "labels": dict(options.labels),
        "inspect": {k: v for k, v in inspect.items() if v not in (None, [], {})},
    }


def _plan_digest(header: EvalLogHeader) -> str:
    """Digest of the solvers and the arguments the task passed them (the system prompt...).

    `params_passed`, not `params`: Inspect fills defaults into `params`, and those change between
    Inspect versions without the task changing.
    """
    steps = [(step.solver, step.params_passed) for step in header.plan.steps]
    return short_digest(json.dumps([steps, header.plan.config], sort_keys=True))


def _judge(model_roles: Mapping[str, Any]) -> str:
    config = model_roles.get(_GRADER_ROLE)
    if isinstance(config, dict) and config.get("model"):
        return str(config["model"])
    return config if isinstance(config, str) and config else "none"


def _record(
    path: Path, sample: EvalSample, labels: Mapping[str, str], options: ImportOptions
) -> dict[str, Any]:
    where = f"samples[{sample.id!r}, epoch {sample.epoch}]"
    record: dict[str, Any] = {"case": str(sample.id), "rep": sample.epoch - 1}
    metadata = dict(sample.metadata)
    record.update(take_case_flags(metadata, path, where))
    limit = sample.limit
    if limit is not None:
        record["limit"] = {k: v for k, v in limit.model_dump().items() if v is not None}
    if sample.error is not None:
        record.update(status="infra", infra=sample.error.message)
    elif limit is not None and limit.type in _TIMEOUTS:
        record.update(status="infra", infra="timeout")
    elif limit is not None and limit.type == _OPERATOR:
        record.update(status="infra", infra="stopped by an operator")
    else:
        record.update(_decisions(path, where, sample, labels, options))
        if limit is not None and record.get("status") != "infra":
            record.setdefault("passed", {})[LIMIT_RULE] = False
            record.setdefault("reasons", {})[LIMIT_RULE] = _stopped_by(limit)
    if sample.output.completion:
        record["output"] = sample.output.completion
    if sample.messages:
        record["messages"] = _turns(sample.messages, sample.attachments)
    if sample.total_time is not None:
        record["latency_ms"] = round(sample.total_time * 1000)
    if sample.model_usage:
        record["tokens"] = sum(usage.total_tokens for usage in sample.model_usage.values())
    if _served_from_cache(path, where, sample):
        record["cached"] = True
    if sample.target not in ("", []):
        record["target"] = sample.target
    if metadata:
        record["metadata"] = metadata
    return record


def _stopped_by(limit: EvalSampleLimit) -> str:
    value = int(limit.limit) if limit.limit.is_integer() else limit.limit
    return f"stopped by the {limit.type} limit ({value})"


def _served_from_cache(path: Path, where: str, sample: EvalSample) -> bool:
    """Whether a model call of the sample was read from Inspect's cache, not made live."""
    cached = False
    for i, event in enumerate(sample.events):
        if event.event != "model" or event.cache is None:
            continue
        if event.cache not in ("read", "write"):
            raise InputError(
                path, "must be read, write or null", field=f"{where}.events[{i}].cache"
            )
        cached = cached or event.cache == "read"
    return cached


def _turns(messages: list[ChatMessage], attachments: Mapping[str, str]) -> list[dict[str, Any]]:
    """Inspect's chat messages as the turns of a run's `messages` field (SPEC §2, README)."""

    def resolved(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(ATTACHMENT):
            return attachments.get(value.removeprefix(ATTACHMENT), value)
        if isinstance(value, dict):
            return {k: resolved(v) for k, v in value.items()}
        if isinstance(value, list):
            return [resolved(v) for v in value]
        return value

    turns = []
    for message in messages:
        turn: dict[str, Any] = {"role": message.role, "content": resolved(_text(message))}
        if message.tool_calls:
            turn["tool_calls"] = [
                {"name": call.function, "arguments": resolved(call.arguments), "id": call.id}
                for call in message.tool_calls
            ]
        if message.role == "tool":
            turn["tool_call_id"] = message.tool_call_id
            turn["name"] = message.function
            if message.error is not None:
                turn["error"] = resolved(message.error.message)
        turns.append({k: v for k, v in turn.items() if v is not None})
    return turns


def _text(message: ChatMessage) -> str:
    """A message's content as text: a string as it is; of a list of parts, the text and reasoning
    parts, and a word for each part that is not text (an image, a file)."""
    if isinstance(message.content, str):
        return message.content
    parts = []
    for part in message.content:
        if part.type == "text":
            parts.append(part.text or "")
        elif part.type == "reasoning":
            parts.append(f"(reasoning) {part.reasoning or ''}")
        else:
            parts.append(f"({part.type})")
    return "\n".join(parts)


def _decisions(
    path: Path,
    where: str,
    sample: EvalSample,
    labels: Mapping[str, str],
    options: ImportOptions,
) -> dict[str, Any]:
    if not sample.scores:
        raise InputError(path, "the sample has neither scores nor an error", field=where)
    expected_label = _as_label(sample.target, labels)
    expected: dict[str, str] = {}
    actual: dict[str, str] = {}
    passed: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    unscored: list[str] = []
    for scorer, score in sample.scores.items():
        answer_label = _as_label(score.answer, labels)
        if expected_label is not None and answer_label is not None:
            expected[scorer], actual[scorer] = expected_label, answer_label
        else:
            for rule, value in _rule_values(scorer, score):
                verdict = _passes(path, f"{where}.scores.{rule}", value, options)
                if verdict is None:
                    unscored.append(rule)
                else:
                    passed[rule] = verdict
        explanation = score.explanation
        if explanation and explanation not in (sample.output.completion, score.answer):
            reasons[scorer] = explanation
    if unscored:  # a scorer that could not grade: neither pass nor fail
        return {"status": "infra", "infra": "unscored", "unscored": unscored}
    fields: dict[str, Any] = {}
    if expected:
        fields["expected"], fields["actual"] = expected, actual
    if passed:
        fields["passed"] = passed
    if reasons:
        fields["reasons"] = reasons
    return fields


def _as_label(value: str | list[str] | None, labels: Mapping[str, str]) -> str | None:
    """The run label that `value` names (targets may be a one-item list), else None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return labels.get(value.strip().lower()) if isinstance(value, str) else None


def _rule_values(scorer: str, score: Score) -> Iterator[tuple[str, Any]]:
    # A scorer may return a mapping of values (one per metric key): each key is its own rule.
    if isinstance(score.value, dict) and score.value:
        for name, item in score.value.items():
            yield f"{scorer}/{name}", item
    else:  # an empty mapping is no verdict: `_passes` refuses it, rather than drop the scorer
        yield scorer, score.value


def _passes(path: Path, field: str, value: Any, options: ImportOptions) -> bool | None:
    """A score value as pass or fail; None for NaN (not graded)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return None if math.isnan(value) else value >= options.pass_threshold
    if value == "P":
        return options.partial_passes
    if isinstance(value, str) and value in _PASSING_LETTERS:
        return _PASSING_LETTERS[value]
    raise InputError(path, f"score value {value!r} is not C/I/P/N, a number or a bool", field=field)


IMPORTER = Importer(
    name="inspect",
    title="Inspect AI",
    options=(
        Option("partial_passes", "a `P` score passes"),
        PASS_THRESHOLD,
        Option(
            "max_member_mb",
            "refuse an .eval member that decompresses to more than this many MB "
            f"(default {ImportOptions.max_member_mb})",
            takes="value",
            read=positive,
            metavar="MB",
        ),
    ),
    recognises=lambda file: file.is_zip or is_inspect_json(file.document),
    read=_read,
)
