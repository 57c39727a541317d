"""Where `flipgate gate`'s time and memory go, in one process (issue 25 item 1).

    uv run python bench/profile_gate.py BASELINE CANDIDATE [--top 25] [--no-profile]
    uv run python bench/profile_gate.py bench/data/parquet        (a folder holding both)

Runs the gate as a user does, `flipgate gate BASELINE CANDIDATE --format json` (the report
thrown away), twice:

1. Steps: the gate's steps, each timed where its caller calls it (`STEPS`: the module whose
   name the caller looks up, the name, a label), with wall and CPU seconds, the memory it
   faulted in (minor page faults x the page size: what it allocated and touched) and the peak
   RSS when it returned. The table is checked before anything runs: a step renamed or moved is
   named in a clear error (exit 2), never a silent zero. Steps nest (indented under the one
   that calls them); a step of the other format's path shows no calls.
2. By module: the same command under cProfile (CPU time), each function's own time summed by
   its module, and the functions with the most cumulative time: nothing here is named by hand,
   so it never goes stale. Profiling slows Python code more than Rust, so read its shares, not
   its seconds. `--no-profile` leaves it out.

Run it at several sizes (tests/reference/generate.py --cases N) to see a step that grows faster
than the input.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import importlib
import io
import os
import pstats
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAGE = os.sysconf("SC_PAGE_SIZE")

# (module, name, label, depth): `module.name` is what the caller looks up, so the wrapper sits
# where the call is made. Listed in the order the gate calls them.
STEPS: tuple[tuple[str, str, str, int], ...] = (
    ("flipgate.cli.gate", "read", "read both runs", 0),
    ("flipgate.core.runs.reading", "read_parquet", "Parquet: columns, tidy frames", 1),
    ("flipgate.core.runs.reading", "read_jsonl", "JSONL: parse, tidy frames", 1),
    ("flipgate.core.runs.reading", "validate", "value checks", 1),
    ("flipgate.session.gating", "compare", "compare()", 0),
    ("flipgate.core.gate.compare", "judge_arm", "judge each arm", 1),
    ("flipgate.core.gate.compare", "suite_changes", "edited / deleted / cached cases", 1),
    ("flipgate.core.gate.compare", "pair", "pair the arms", 1),
    ("flipgate.core.gate.compare", "flip_sources", "flip sources", 1),
    ("flipgate.core.gate.compare", "false_negative_test", "false negatives beyond noise", 1),
    ("flipgate.core.gate.compare", "check_budgets", "budgets", 1),
    ("flipgate.core.gate.compare", "gate_power", "power", 1),
    ("flipgate.session.gating", "priced", "the rerun plan's price (INCONCLUSIVE)", 0),
    ("flipgate.core.gate.rerun_price", "arm_usage", "each arm's usage", 1),
    ("flipgate.core.gate.rerun_price", "resolve_chance", "the chance to resolve", 1),
    ("flipgate.present.report", "to_json", "the JSON report", 0),
)


@dataclass
class Spent:
    calls: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    faulted: float = 0.0  # bytes
    peak: float = 0.0  # bytes: the process's peak RSS after the step's last call


def usage() -> tuple[float, float, float, float]:
    took = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), time.process_time(), took.ru_minflt * PAGE, took.ru_maxrss * 1024


def missing_steps() -> list[str]:
    """Each step whose module or name no longer exists, said so that the table can be mended."""
    gone = []
    for module_name, name, label, _ in STEPS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            gone.append(f"{label}: no module {module_name}")
            continue
        if not callable(getattr(module, name, None)):
            gone.append(f"{label}: {module_name} has no function {name}")
    return gone


def wrap_steps() -> dict[str, Spent]:
    """Wrap every step so that each call adds to its figures (in place, for this process)."""
    spent: dict[str, Spent] = {}
    for module_name, name, label, _ in STEPS:
        module = importlib.import_module(module_name)
        step = spent[label] = Spent()
        setattr(module, name, timed(getattr(module, name), step))
    return spent


def timed(function: Callable[..., Any], step: Spent) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        wall, cpu, faulted, _ = usage()
        try:
            return function(*args, **kwargs)
        finally:
            wall_end, cpu_end, faulted_end, peak = usage()
            step.calls += 1
            step.wall += wall_end - wall
            step.cpu += cpu_end - cpu
            step.faulted += faulted_end - faulted
            step.peak = peak

    return call


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """The report thrown away, as a CI log would keep it elsewhere."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def gate(pair: list[str]) -> int:
    from flipgate.cli import main

    with quiet():
        return main(["gate", *pair, "--format", "json"])


def steps_table(pair: list[str]) -> int:
    gone = missing_steps()
    if gone:
        print("bench/profile_gate.py: its STEPS name what the gate no longer has:", file=sys.stderr)
        for line in gone:
            print(f"  - {line}", file=sys.stderr)
        print("mend STEPS (the profile by module, --no-steps, needs no names)", file=sys.stderr)
        return 2
    spent = wrap_steps()
    start = usage()
    code = gate(pair)
    end = usage()
    whole = Spent(1, end[0] - start[0], end[1] - start[1], end[2] - start[2], end[3])
    print(f"{'step':<46} {'calls':>5} {'wall':>8} {'cpu':>8} {'faulted':>9} {'peak RSS':>9}")
    print(row("flipgate gate (after its imports)", whole))
    for _, _, label, depth in STEPS:
        print(row("  " * (depth + 1) + label, spent[label]))
    print(f"exit status {code}")
    return 0


def row(label: str, spent: Spent) -> str:
    if not spent.calls:
        return f"{label:<46} {0:>5} {'':>8} {'':>8} {'':>9} {'':>9}"
    return (
        f"{label:<46} {spent.calls:>5} {spent.wall:7.2f}s {spent.cpu:7.2f}s "
        f"{spent.faulted / 1e9:7.2f}GB {spent.peak / 1e9:7.2f}GB"
    )


def by_module(pair: list[str], top: int) -> None:
    """cProfile's CPU time of the whole command: each function's own time summed by module, and
    the flipgate functions with the most cumulative time."""
    profile = cProfile.Profile(time.process_time)
    profile.runcall(gate, pair)
    stats = pstats.Stats(profile)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]  # pstats keeps it untyped
    own: dict[str, float] = defaultdict(float)
    whole = 0.0
    for (filename, _, _), (_, _, tottime, _, _) in raw.items():
        own[module_of(filename)] += tottime
        whole += tottime
    print(f"\nunder cProfile: {whole:.2f} s CPU; own time by module")
    for module, seconds in sorted(own.items(), key=lambda item: -item[1])[:top]:
        print(f"  {seconds:7.2f} s {100 * seconds / whole:5.1f}%  {module}")
    print("flipgate's functions by cumulative time")
    ours = [
        (cumulative, f"{module_of(filename)}.{function}", calls)
        for (filename, _, function), (_, calls, _, cumulative, _) in raw.items()
        if "/flipgate/" in filename
    ]
    for cumulative, name, calls in sorted(ours, reverse=True)[:top]:
        print(f"  {cumulative:7.2f} s {100 * cumulative / whole:5.1f}%  {name} ({calls} calls)")


def module_of(filename: str) -> str:
    """A source file as a dotted module (flipgate's and site-packages'), else as given."""
    path = Path(filename)
    parts = path.with_suffix("").parts
    for root in ("flipgate", "site-packages"):
        if root in parts:
            at = parts.index(root)
            dotted = parts[at:] if root == "flipgate" else parts[at + 1 :]
            return ".".join(p for p in dotted if p != "__init__")
    return "built-in (polars' Rust, numpy's C, ...)" if filename == "~" else filename


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="BASELINE CANDIDATE, or their folder")
    parser.add_argument("--top", type=int, default=25, help="rows of the profile by module")
    parser.add_argument("--no-profile", action="store_true", help="the steps only")
    parser.add_argument("--no-steps", action="store_true", help="the profile by module only")
    args = parser.parse_args(argv)
    runs: list[Path] = args.runs
    if len(runs) == 1:
        runs = [runs[0] / "baseline", runs[0] / "candidate"]
    pair = [str(run) for run in runs]
    if not args.no_steps and (code := steps_table(pair)) != 0:
        return code
    if not args.no_profile:
        by_module(pair, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
