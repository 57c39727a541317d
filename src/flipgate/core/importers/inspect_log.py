"""Read an Inspect AI log (`.eval` zip or `.json`) as a run, without depending on inspect_ai.

One Inspect sample (id, epoch) becomes one record (case = the id, rep = epoch - 1); each scorer
becomes a rule. A scorer whose target and answer are both labels of the run is a labelled
decision (`expected`/`actual`); any other scorer is a pass/fail check (`passed`). The sample's
messages become the record's trajectory (`messages`), with the text Inspect moved into the
sample's `attachments` (`attachment://<hash>`) put back in place.

Inspect >= 0.3.206 compresses `.eval` members with Zstandard (zip method 93), which the stdlib
`zipfile` reads only from Python 3.14, so those members are read raw through their local header
and decompressed with `zstandard`. Deflate members (older Inspect) go through plain `zipfile`.
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from flipgate.core.errors import InputError
from flipgate.core.importers.base import (
    ZIP_SIGNATURE,
    ImportedRun,
    Importer,
    ImportOptions,
    LogFile,
    Option,
    short_digest,
    take_case_flags,
)

ZIP_ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature .. name length, extra length

_DECODER = json.JSONDecoder()
_DRIVE = re.compile(r"[A-Za-z]:")  # `C:/...`: absolute on Windows
_SPACE_CHARS = " \t\n\r"
_SPACE = re.compile(f"[{_SPACE_CHARS}]*")
# What a record takes from a sample member, and from its summary.
_SAMPLE_HEAD = frozenset({"id", "epoch", "target", "messages", "output", "scores", "metadata"})
_SUMMARY_TAIL = ("model_usage", "total_time", "error")

# A model call Inspect served from its cache is logged as a model event with `"cache": "read"`.
# The events are not parsed (see `EvalMemberReader.sample`): the member's text is searched.
_CACHE_READ = re.compile(r'"cache"\s*:\s*"read"')
_CACHE_READ_FIELD = "flipgate:cache_read"  # what the search found, beside the sample's fields

_PASSING_LETTERS = {"C": True, "I": False, "N": False}  # `P` depends on ImportOptions
_GRADER_ROLE = "grader"  # the `model_roles` entry that grades: the judge
ATTACHMENT = "attachment://"


def read_eval_archive(path: Path, options: ImportOptions) -> ImportedRun:
    """Import a `.eval` log (a zip; a JSON log goes through `log_from_json`)."""
    header, samples = _read_eval_zip(path, int(options.max_member_mb * 1e6))
    return imported_run(path, header, samples, options)


def is_inspect_json(doc: Any) -> bool:
    """An Inspect JSON log: a mapping with an integer `version` and an `eval` holding the task."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("version"), int)
        and isinstance(doc.get("eval"), dict)
        and "task" in doc["eval"]
    )


def log_from_json(doc: Any, path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    if not is_inspect_json(doc):
        raise InputError(path, "not an Inspect log: no `version` and `eval.task`")
    samples = doc.get("samples") or []
    if not isinstance(samples, list):
        raise InputError(path, "expected a list", field="samples")
    return doc, samples


def _read_eval_zip(path: Path, max_member: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(path, f"not a readable .eval archive ({exc})") from None
    with archive, path.open("rb") as raw:
        # A member written twice (a sample re-logged after a retry) appears twice: the last wins.
        members: dict[str, zipfile.ZipInfo] = {}
        for info in archive.infolist():
            _check_member_name(path, info.filename)
            members[info.filename] = info
        reader = EvalMemberReader(path, archive, raw, max_member)
        # A crashed or running eval has no header.json yet; its journal holds the same eval spec.
        header_info = members.get("header.json") or members.get("_journal/start.json")
        if header_info is None:
            raise InputError(path, "no header.json nor _journal/start.json: not an Inspect log")
        header = reader.json(header_info)
        if not is_inspect_json(header):
            raise InputError(path, "no `version` and `eval.task`", field=header_info.filename)
        summaries = _summaries(reader, members.get("summaries.json"))
        samples = [
            reader.sample(info, summaries)
            for name, info in members.items()
            if name.startswith("samples/") and name.endswith(".json")
        ]
    return header, samples


def _summaries(
    reader: EvalMemberReader, info: zipfile.ZipInfo | None
) -> dict[tuple[Any, Any], dict[str, Any]]:
    """The per-sample summaries by (id, epoch); none when the eval did not finish writing them."""
    if info is None:
        return {}
    summaries = reader.json(info)
    if not isinstance(summaries, list):
        raise InputError(reader.path, "expected a list", field=info.filename)
    return {(s.get("id"), s.get("epoch")): s for s in summaries if isinstance(s, dict)}


def leading_fields(text: str, wanted: frozenset[str]) -> tuple[dict[str, Any], bool]:
    """Parse the top-level fields of a JSON object in order, stopping once `wanted` are in.

    Returns the fields read and whether the whole object was read.
    """
    fields: dict[str, Any] = {}
    pos = _skip_space(text, 0)
    if text[pos] != "{":
        raise ValueError("not a JSON object")
    pos = _skip_space(text, pos + 1)
    if text[pos] == "}":
        return fields, True
    while True:
        key, pos = _DECODER.raw_decode(text, pos)
        if not isinstance(key, str):
            raise ValueError(f"expected a key at offset {pos}")
        pos = _skip_space(text, pos)
        if text[pos] != ":":
            raise ValueError(f"expected ':' at offset {pos}")
        fields[key], pos = _DECODER.raw_decode(text, _skip_space(text, pos + 1))
        if wanted <= fields.keys():
            return fields, False
        pos = _skip_space(text, pos)
        if text[pos] == "}":
            return fields, True
        if text[pos] != ",":
            raise ValueError(f"expected ',' or '}}' at offset {pos}")
        pos = _skip_space(text, pos + 1)


def _skip_space(text: str, pos: int) -> int:
    if text[pos] not in _SPACE_CHARS:  # Inspect writes compact JSON: the usual case
        return pos
    match = _SPACE.match(text, pos)
    return match.end() if match else pos


def _check_member_name(path: Path, name: str) -> None:
    member = PurePosixPath(name.replace("\\", "/"))
    if member.is_absolute() or ".." in member.parts or _DRIVE.match(name):
        raise InputError(path, f"archive member {name!r} points outside the archive")


class EvalMemberReader:
    """Decompress members of one `.eval` archive: zstd by hand, the rest through `zipfile`."""

    def __init__(
        self, path: Path, archive: zipfile.ZipFile, raw: BinaryIO, max_member: int
    ) -> None:
        self.path = path
        self._max_member = max_member
        self._archive = archive
        self._raw = raw
        import zstandard  # here, not at the top: the gate's start-up needs no importer's reader

        self._zstd = zstandard.ZstdDecompressor()
        self._corrupt = (zipfile.BadZipFile, zlib.error, zstandard.ZstdError, EOFError)

    def json(self, info: zipfile.ZipInfo) -> Any:
        data = self.read(info)
        try:
            return json.loads(data)
        except ValueError as exc:
            raise InputError(
                self.path, f"member is not JSON ({exc})", field=info.filename
            ) from None

    def sample(
        self, info: zipfile.ZipInfo, summaries: Mapping[tuple[Any, Any], Mapping[str, Any]]
    ) -> dict[str, Any]:
        """The fields of one sample member that a record needs.

        Three quarters of a sample's bytes are its `events`, which a record does not use. Inspect
        writes the fields a record takes from the sample itself (output, scores, metadata) before
        `events`, and the small ones after `events` (usage, time, error) into summaries.json,
        unabridged. So the sample is parsed only up to what it must give, and the rest is taken
        from its summary; without a summary the whole sample is parsed.
        """
        try:
            text = self.read(info).decode("utf-8")
            fields, complete = leading_fields(text, _SAMPLE_HEAD)
            summary = None if complete else summaries.get((fields.get("id"), fields.get("epoch")))
            # the attachments come last, after the events: read them only when a message needs them
            needs_attachments = ATTACHMENT in json.dumps(fields.get("messages"))
            if not complete and (summary is None or needs_attachments):
                fields = json.loads(text)
        except (ValueError, IndexError) as exc:
            raise InputError(
                self.path, f"member is not JSON ({exc})", field=info.filename
            ) from None
        if not isinstance(fields, dict):
            raise InputError(self.path, "expected a JSON object", field=info.filename)
        if summary is not None:
            fields.update((k, summary[k]) for k in _SUMMARY_TAIL if k in summary)
        fields[_CACHE_READ_FIELD] = _CACHE_READ.search(text) is not None
        return fields

    def read(self, info: zipfile.ZipInfo) -> bytes:
        """The member's bytes. Both decompressors stop at the size the archive declares, so a
        declared size within the bound bounds what a member takes: a 625 KB archive can hold a
        400 MB member (a zip bomb), and reading it took 893 MB."""
        if info.file_size > self._max_member:
            raise InputError(
                self.path,
                f"decompresses to {info.file_size / 1e6:,.0f} MB, past the bound of "
                f"{self._max_member / 1e6:,.0f} MB (raise it with --max-member-mb)",
                field=info.filename,
            )
        try:
            if info.compress_type != ZIP_ZSTANDARD:
                return self._archive.open(info).read()
            data = self._zstd.decompress(self._compressed(info), max_output_size=info.file_size)
        except self._corrupt as exc:
            raise InputError(self.path, f"corrupt member ({exc})", field=info.filename) from None
        except NotImplementedError as exc:
            raise InputError(self.path, str(exc), field=info.filename) from None
        if zlib.crc32(data) != info.CRC:
            raise InputError(self.path, "member fails its CRC check", field=info.filename)
        return data

    def _compressed(self, info: zipfile.ZipInfo) -> bytes:
        self._raw.seek(info.header_offset)
        header = self._raw.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size:
            raise EOFError("local file header is truncated")
        fields = _LOCAL_HEADER.unpack(header)
        if fields[0] != ZIP_SIGNATURE:
            raise zipfile.BadZipFile("bad local file header")
        name_length, extra_length = fields[-2], fields[-1]
        self._raw.seek(name_length + extra_length, 1)
        data = self._raw.read(info.compress_size)
        if len(data) != info.compress_size:
            raise EOFError("member data is truncated")
        return data


def imported_run(
    path: Path,
    header: Mapping[str, Any],
    samples: list[dict[str, Any]],
    options: ImportOptions,
) -> ImportedRun:
    """Map a parsed Inspect log (header + samples) onto run.yaml and results.jsonl."""
    spec = header["eval"]
    labels = {label.lower(): label for label in options.labels.values()}
    records = [_record(path, sample, labels, options) for sample in samples]
    order = {str(sample_id): i for i, sample_id in enumerate(_sample_ids(spec))}
    records.sort(key=lambda r: (order.get(r["case"], len(order)), r["case"], r["rep"]))
    _check_unique(path, records)
    notes = []
    status = header.get("status", "started")
    if status != "success":
        notes.append(f"the Inspect log's status is {status!r}: the run may be incomplete")
    return ImportedRun(
        source=path,
        tool="inspect",
        manifest=_manifest(path, header, options),
        records=records,
        notes=notes,
    )


def _sample_ids(spec: Mapping[str, Any]) -> list[Any]:
    dataset = spec.get("dataset") or {}
    return list(dataset.get("sample_ids") or [])


def _manifest(path: Path, header: Mapping[str, Any], options: ImportOptions) -> dict[str, Any]:
    spec = header["eval"]
    dataset = spec.get("dataset") or {}
    eval_set = (
        f"{dataset.get('name') or spec['task']}"
        f"@{short_digest(json.dumps([str(i) for i in _sample_ids(spec)]))}"
        f":v{spec.get('task_version', 0)}"
    )
    key: dict[str, Any] = {
        "model": spec.get("model", "unknown"),
        "prompt": f"plan@{_plan_digest(header.get('plan') or {})}",
        "judge": _judge(spec.get("model_roles") or {}),
        "eval_set": eval_set,
        "harness": f"inspect_ai@{(spec.get('packages') or {}).get('inspect_ai', 'unknown')}",
    }
    revision = spec.get("revision") or {}
    if revision.get("commit"):
        key["code"] = f"git@{revision['commit'][:12]}" + ("+dirty" if revision.get("dirty") else "")
    inspect: dict[str, Any] = {
        "log": path.name,
        "status": header.get("status", "started"),
        "task": spec["task"],
        "task_args": spec.get("task_args") or {},
        "tags": spec.get("tags") or header.get("tags") or [],
        "metadata": spec.get("metadata") or header.get("metadata") or {},
        "epochs": (spec.get("config") or {}).get("epochs"),
        "scorers": [scorer.get("name") for scorer in spec.get("scorers") or []],
        "run_id": spec.get("run_id"),
    }
    return {
        "run_id": spec.get("eval_id") or spec.get("task_id") or path.stem,
        "created": spec.get("created"),
        "key": key,
        "labels": dict(options.labels),
        "inspect": {k: v for k, v in inspect.items() if v not in (None, [], {})},
    }


def _plan_digest(plan: Mapping[str, Any]) -> str:
    """Digest of the solvers and the arguments the task passed them (the system prompt...).

    `params_passed`, not `params`: Inspect fills defaults into `params`, and those change between
    Inspect versions without the task changing.
    """
    steps = [(step.get("solver"), step.get("params_passed")) for step in plan.get("steps") or []]
    return short_digest(json.dumps([steps, plan.get("config")], sort_keys=True))


def _judge(model_roles: Mapping[str, Any]) -> str:
    config = model_roles.get(_GRADER_ROLE)
    if isinstance(config, dict) and config.get("model"):
        return str(config["model"])
    return config if isinstance(config, str) and config else "none"


def _record(
    path: Path, sample: Mapping[str, Any], labels: Mapping[str, str], options: ImportOptions
) -> dict[str, Any]:
    where = f"samples[{sample.get('id')!r}, epoch {sample.get('epoch')!r}]"
    epoch = sample.get("epoch")
    if sample.get("id") is None or not isinstance(epoch, int) or epoch < 1:
        raise InputError(path, "a sample needs an `id` and an `epoch` >= 1", field=where)
    record: dict[str, Any] = {"case": str(sample["id"]), "rep": epoch - 1}
    metadata = dict(sample.get("metadata") or {})
    record.update(take_case_flags(metadata, path, where))
    error = sample.get("error")
    if error:
        record["status"] = "infra"
        record["infra"] = (
            error.get("message", str(error)) if isinstance(error, dict) else str(error)
        )
    else:
        record.update(_decisions(path, where, sample, labels, options))
    output = sample.get("output") or {}
    if output.get("completion") is not None:
        record["output"] = output["completion"]
    messages = sample.get("messages")
    if isinstance(messages, list) and messages:
        record["messages"] = _turns(path, where, messages, sample.get("attachments") or {})
    if isinstance(sample.get("total_time"), int | float):
        record["latency_ms"] = round(sample["total_time"] * 1000)
    tokens = [usage.get("total_tokens", 0) for usage in (sample.get("model_usage") or {}).values()]
    if tokens:
        record["tokens"] = sum(tokens)
    if _served_from_cache(sample):
        record["cached"] = True
    if sample.get("target") not in (None, "", []):
        record["target"] = sample["target"]
    if metadata:
        record["metadata"] = metadata
    return record


def _served_from_cache(sample: Mapping[str, Any]) -> bool:
    """Whether a model call of the sample was read from Inspect's cache, not made live."""
    if _CACHE_READ_FIELD in sample:
        return bool(sample[_CACHE_READ_FIELD])
    events = sample.get("events")
    return isinstance(events, list) and any(
        isinstance(event, dict) and event.get("event") == "model" and event.get("cache") == "read"
        for event in events
    )


def _turns(
    path: Path, where: str, messages: list[Any], attachments: Mapping[str, str]
) -> list[dict[str, Any]]:
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
    for i, message in enumerate(resolved(messages)):
        if not isinstance(message, dict):
            raise InputError(path, "a message must be an object", field=f"{where}.messages[{i}]")
        turn: dict[str, Any] = {
            "role": message.get("role"),
            "content": _text(message.get("content")),
        }
        calls = message.get("tool_calls") or []
        if calls:
            turn["tool_calls"] = [
                {
                    "name": call.get("function"),
                    "arguments": call.get("arguments") or {},
                    "id": call.get("id"),
                }
                for call in calls
                if isinstance(call, dict)
            ]
        if message.get("role") == "tool":
            turn["tool_call_id"] = message.get("tool_call_id")
            turn["name"] = message.get("function")
            error = message.get("error")
            if error:
                turn["error"] = (
                    error.get("message", str(error)) if isinstance(error, dict) else str(error)
                )
        turns.append({k: v for k, v in turn.items() if v is not None})
    return turns


def _text(content: Any) -> str:
    """A message's content as text: a string as it is; of a list of parts, the text and reasoning
    parts, and a word for each part that is not text (an image, a file)."""
    if content is None or isinstance(content, str):
        return content or ""
    parts = []
    for part in content if isinstance(content, list) else [content]:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            parts.append(str(part.get("text", "")))
        elif kind == "reasoning":
            parts.append(f"(reasoning) {part.get('reasoning', '')}")
        else:
            parts.append(f"({kind or 'content'})")
    return "\n".join(parts)


def _decisions(
    path: Path,
    where: str,
    sample: Mapping[str, Any],
    labels: Mapping[str, str],
    options: ImportOptions,
) -> dict[str, Any]:
    scores = sample.get("scores") or {}
    if not scores:
        raise InputError(path, "the sample has neither scores nor an error", field=where)
    if not isinstance(scores, dict):
        raise InputError(path, "must map each scorer to its score", field=f"{where}.scores")
    for scorer, score in scores.items():
        if not isinstance(score, dict):
            raise InputError(
                path, "a score is an object with its value", field=f"{where}.scores.{scorer}"
            )
    output = sample.get("output") or {}
    if not isinstance(output, dict):
        raise InputError(path, "must be an object with the completion", field=f"{where}.output")
    expected_label = _as_label(sample.get("target"), labels)
    expected: dict[str, str] = {}
    actual: dict[str, str] = {}
    passed: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    completion = output.get("completion")
    for scorer, score in scores.items():
        answer_label = _as_label(score.get("answer"), labels)
        if expected_label is not None and answer_label is not None:
            expected[scorer], actual[scorer] = expected_label, answer_label
        else:
            for rule, value in _rule_values(scorer, score.get("value")):
                passed[rule] = _passes(path, f"{where}.scores.{rule}", value, options)
        explanation = score.get("explanation")
        if explanation and explanation not in (completion, score.get("answer")):
            reasons[scorer] = str(explanation)
    fields: dict[str, Any] = {}
    if expected:
        fields["expected"], fields["actual"] = expected, actual
    if passed:
        fields["passed"] = passed
    if reasons:
        fields["reasons"] = reasons
    return fields


def _as_label(value: Any, labels: Mapping[str, str]) -> str | None:
    """The run label that `value` names (targets may be a one-item list), else None."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    return labels.get(value.strip().lower()) if isinstance(value, str) else None


def _rule_values(scorer: str, value: Any) -> Iterator[tuple[str, Any]]:
    # A scorer may return a mapping of values (one per metric key): each key is its own rule.
    if isinstance(value, dict):
        for name, item in value.items():
            yield f"{scorer}/{name}", item
    else:
        yield scorer, value


def _passes(path: Path, field: str, value: Any, options: ImportOptions) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value >= options.pass_threshold
    if value == "P":
        return options.partial_passes
    if isinstance(value, str) and value in _PASSING_LETTERS:
        return _PASSING_LETTERS[value]
    raise InputError(path, f"score value {value!r} is not C/I/P/N, a number or a bool", field=field)


def _check_unique(path: Path, records: list[dict[str, Any]]) -> None:
    seen: set[tuple[str, int]] = set()
    for record in records:
        key = (record["case"], record["rep"])
        if key in seen:
            raise InputError(path, f"sample {key[0]!r} epoch {key[1] + 1} appears twice")
        seen.add(key)


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, not {text!r}")
    return number


def _positive(text: str) -> float:
    number = _finite(text)
    if number <= 0:
        raise ValueError(f"must be above 0, not {text!r}")
    return number


def _read(file: LogFile, options: ImportOptions) -> ImportedRun:
    if file.is_zip:  # even a truncated one: the reader says what is wrong with it
        return read_eval_archive(file.path, options)
    header, samples = log_from_json(file.document, file.path)
    return imported_run(file.path, header, samples, options)


IMPORTER = Importer(
    name="inspect",
    title="Inspect AI",
    options=(
        Option("partial_passes", "a `P` score passes"),
        Option(
            "pass_threshold",
            "numeric scores pass at this (default 1)",
            takes="value",
            read=_finite,
        ),
        Option(
            "max_member_mb",
            "refuse an .eval member that decompresses to more than this many MB "
            f"(default {ImportOptions.max_member_mb})",
            takes="value",
            read=_positive,
            metavar="MB",
        ),
    ),
    recognises=lambda file: file.is_zip or is_inspect_json(file.document),
    read=_read,
)
