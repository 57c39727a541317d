"""The typed reading every importer shares: a tool's fields declared as models, read strictly.

Each importer declares the fields it reads as `Model`s shaped like the tool's published types
(Inspect's `EvalSample`, promptfoo's `EvaluateResult`...): unknown fields are ignored, a value of
the wrong type is refused. Strict means no guessing: `"false"` is not a bool, `"1"` is not an
int, `1` is not a string. A refusal is an `InputError` naming the file, the record (a sample, a
row, a line) and the field, so bad input exits 2 and never becomes a verdict.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from flipgate.core.errors import InputError

_M = TypeVar("_M", bound="Model")
_SHOWN = 40  # characters of a refused value quoted in the message
# The parts of a pydantic error location that name a branch of a union, not a field.
_BRANCH = re.compile(r"[a-z][a-z0-9_-]*\[.*\]|int|float|str|bool|list|dict|none|literal|json")


class Model(BaseModel):
    """A record of a tool's log, as far as an importer reads it."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, populate_by_name=True)
    _names: ClassVar[set[str]] = set()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Model._names.add(cls.__name__)


def read_json(model: type[_M], data: bytes | str, path: Path, where: str = "") -> _M:
    """`data` (JSON text) as a `model`; bad JSON or a field of the wrong type is an InputError."""
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        raise refusal(exc, path, where) from None


def read_value(model: type[_M], value: Any, path: Path, where: str = "") -> _M:
    """An already parsed JSON value as a `model` (same rules as JSON text: strict, no guesses)."""
    try:
        return model.model_validate(value, strict=True)
    except ValidationError as exc:
        raise refusal(exc, path, where) from None


def refusal(exc: ValidationError, path: Path, where: str) -> InputError:
    """The first of a validation's errors as an InputError: its field, what was wanted and what
    was there."""
    error = min(exc.errors(include_url=False), key=lambda e: len(e["loc"]))
    if error["type"] == "json_invalid":
        return InputError(path, f"not JSON ({error['msg']})", field=where or None)
    field = where
    for part in error["loc"]:
        if isinstance(part, int):
            field += f"[{part}]"
        elif not (_BRANCH.fullmatch(part) or part in Model._names):
            field += f".{part}" if field else part
    message = error["msg"]
    if error["type"] != "missing":
        message += f" (not {_shown(error.get('input'))})"
    return InputError(path, message, field=field or None)


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
