"""Golden files: what a command printed, kept beside the tests and compared on every run.

JSON is compared as data, not as text: the same keys in the same order, the same strings, whole
numbers, booleans and nulls, and every float within a relative tolerance of `REL` (1e-9; `ABS`,
1e-12, for a float that should be zero). The 16th and 17th significant digits of a power or an
interval move with the CPU and the libraries' vectorised code paths (a sum taken in another
order); the ninth does not. Text and Markdown print their numbers rounded to at most four
digits, so they are compared exactly: a value a few ulps from a rounding boundary would show
as a one-digit change in the diff, to be read like any other.

`FLIPGATE_UPDATE_GOLDEN=1 uv run pytest ...` writes the output over a golden file that no longer
matches (one that matches within the tolerance is left alone, so regenerating on another machine
changes no file); read the diff before committing it.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import TypeAlias

REL = 1e-9
ABS = 1e-12

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"


def differences(actual: JSON, expected: JSON, where: str = "$") -> list[str]:
    """Where `actual` differs from `expected`, each as `path: actual != expected`."""
    if isinstance(expected, float) and isinstance(actual, float):
        close = math.isclose(actual, expected, rel_tol=REL, abs_tol=ABS)
        return [] if close else [f"{where}: {actual!r} != {expected!r} (rel {REL:g})"]
    if type(actual) is not type(expected):
        return [f"{where}: {actual!r} != {expected!r}"]
    if isinstance(expected, dict) and isinstance(actual, dict):
        if list(actual) != list(expected):
            return [f"{where}: keys {list(actual)} != {list(expected)}"]
        return [
            d for key in expected for d in differences(actual[key], expected[key], f"{where}.{key}")
        ]
    if isinstance(expected, list) and isinstance(actual, list):
        if len(actual) != len(expected):
            return [f"{where}: {len(actual)} items != {len(expected)}"]
        return [
            d
            for i, (got, want) in enumerate(zip(actual, expected, strict=True))
            for d in differences(got, want, f"{where}[{i}]")
        ]
    return [] if actual == expected else [f"{where}: {actual!r} != {expected!r}"]


def mismatches(out: str, golden: Path) -> list[str]:
    """How `out` differs from what `golden` holds: JSON within the tolerance, text exactly."""
    expected = golden.read_text(encoding="utf-8")
    if golden.suffix == ".json":
        return differences(json.loads(out), json.loads(expected))
    return [] if out == expected else [f"{golden.name}: the text differs"]


def assert_golden(out: str, golden: Path) -> None:
    if os.environ.get("FLIPGATE_UPDATE_GOLDEN") and (
        not golden.exists() or mismatches(out, golden)
    ):
        golden.write_text(out, encoding="utf-8")
    if golden.suffix != ".json":  # pytest shows a text's diff line by line
        assert out == golden.read_text(encoding="utf-8")
    found = mismatches(out, golden)
    assert not found, f"{golden.name} differs:\n" + "\n".join(found[:20])
