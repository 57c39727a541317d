"""Where the gate's time and memory go, step by step, in one process (issue 25 item 1).

    uv run python bench/profile_gate.py bench/data/parquet [--full]

Reads the pair as `flipgate gate` does (the gate's columns only; `--full`: every column, as the
app reads it), then applies the gate, and prints for each step its wall and CPU seconds and the
memory it faulted in (minor page faults x 4 KiB: what the step allocated and touched). Run it at
several sizes (tests/reference/generate.py --cases N) to see which step grows faster than the input.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flipgate.core.gate import compare as gate
from flipgate.core.gate import pairing
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.spec import load_spec
from flipgate.core.runs import reading

PAGE = 4096


@dataclass
class Spent:
    wall: float = 0.0
    cpu: float = 0.0
    faulted: float = 0.0  # bytes

    def add(self, other: Spent) -> None:
        self.wall += other.wall
        self.cpu += other.cpu
        self.faulted += other.faulted


def now() -> Spent:
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    return Spent(time.perf_counter(), time.process_time(), faults * PAGE)


def since(start: Spent) -> Spent:
    end = now()
    return Spent(end.wall - start.wall, end.cpu - start.cpu, end.faulted - start.faulted)


STEPS: dict[str, Spent] = {}


def timed(module: Any, name: str, label: str) -> None:
    """Wrap `module.name` so that every call adds to the step's figures."""
    wrapped: Callable[..., Any] = getattr(module, name)
    STEPS[label] = Spent()  # listed in this table's order

    def call(*args: Any, **kwargs: Any) -> Any:
        start = now()
        try:
            return wrapped(*args, **kwargs)
        finally:
            STEPS[label].add(since(start))

    setattr(module, name, call)


# What each step of the gate is, as compare.py and reading.py call it.
for module, name, label in (
    (reading, "read_parquet", "read: Parquet (columns, tidy frames)"),
    (reading, "read_jsonl", "read: JSONL (parse, tidy frames)"),
    (reading, "validate", "read: value checks"),
    (gate, "rep_results", "classify, per repetition"),
    (gate, "collapse", "collapse per case"),
    (gate, "summarize", "outcomes counted"),
    (gate, "pair", "pair the arms"),
    (pairing, "read_clusters", "  of which: p by case, by template"),
    (gate, "suite_changes", "edited / deleted / cached cases"),
    (gate, "false_negative_excess", "false negatives beyond noise"),
    (gate, "check_budgets", "budgets"),
    (gate, "gate_power", "power"),
):
    timed(module, name, label)


def row(label: str, spent: Spent) -> str:
    return f"{label:<38} {spent.wall:7.2f} s {spent.cpu:7.2f} s cpu {spent.faulted / 1e9:6.2f} GB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="holds baseline/ and candidate/")
    parser.add_argument("--full", action="store_true", help="read every column, as the app does")
    args = parser.parse_args()
    start = now()
    spec, flaky = load_spec(None), load_flaky(None)
    runs = [
        reading.load_run(args.folder / arm, lean=not args.full) for arm in ("baseline", "candidate")
    ]
    read = since(start)
    start = now()
    result = gate.compare(*runs, spec, flaky).result
    compared = since(start)
    print(row("both runs read", read))
    print(row("compare()", compared))
    for label, spent in STEPS.items():
        if spent.wall:  # a step of the other format's path is never called
            print(row(f"  {label}", spent))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(
        f"peak RSS {peak / 1e9:.2f} GB; {result.verdict}, b={result.b} c={result.c} p={result.p:.6g}"
    )


if __name__ == "__main__":
    main()
