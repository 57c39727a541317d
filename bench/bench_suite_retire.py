"""Time `flipgate suite retire` on a 30,000-case manifest against reading that manifest once.

    uv run python bench/bench_suite_retire.py [--cases 30000] [--repeat 5]

A retirement reads and checks the manifest, cuts the case's lines, appends its archive entry and
writes the file under its lock: one parse (issue 28 item 15: it was five, 11 s at 30,000 cases).
The floor, timed in turns with it, is a process that only imports the manifest reader and reads
the file once. Each round copies the pristine manifest back before retiring (part of the time,
a few milliseconds). The workspace is written to bench/data/suite-<cases>x0/ once (git-ignored).

Exit status: 0 the retirement takes at most 1.5 times the floor, 1 a command failed, 3 it
takes longer.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys

from bench_suite_audit import ROOT, generate
from run_gate_bench import time_commands

RATIO_LIMIT = 1.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    folder = ROOT / "bench" / "data" / f"suite-{args.cases}x0"
    manifest, pristine = folder / "suite.yaml", folder / "suite.pristine.yaml"
    if not pristine.exists():
        print(f"generating {folder}", file=sys.stderr)
        generate(folder, args.cases, 0)
        shutil.copyfile(manifest, pristine)
    case = f"c{args.cases // 2:05d}"  # a live case in the middle of the list
    retire = (
        f"cp {shlex.quote(str(pristine))} {shlex.quote(str(manifest))} && "
        f"exec uv run --no-sync flipgate suite retire {case} --reason bench -w "
        f"{shlex.quote(str(folder))}"
    )
    read_once = (
        "from pathlib import Path; from flipgate.core.suite.manifest import load_manifest; "
        f"load_manifest(Path({str(pristine)!r}))"
    )
    timings = time_commands(
        {
            "suite retire": ["sh", "-c", retire],
            "the manifest read once": ["uv", "run", "--no-sync", "python", "-c", read_once],
        },
        args.repeat,
    )
    if any(s.returncode != 0 for t in timings.values() for s in t.samples):
        failed = next(s for t in timings.values() for s in t.samples if s.returncode != 0)
        print(failed.stderr, file=sys.stderr)
        return 1
    shutil.copyfile(pristine, manifest)
    retired, floor = timings["suite retire"], timings["the manifest read once"]
    ratio = retired.median_s / floor.median_s
    print(
        f"suite retire, {args.cases:,} cases, {args.repeat} rounds: wall median "
        f"{retired.median_s:.2f} s (CPU {retired.cpu_median_s:.2f} s); the manifest read once "
        f"{floor.median_s:.2f} s (CPU {floor.cpu_median_s:.2f} s); ratio {ratio:.2f} "
        f"(target: at most {RATIO_LIMIT:g})"
    )
    return 0 if ratio <= RATIO_LIMIT else 3


if __name__ == "__main__":
    raise SystemExit(main())
