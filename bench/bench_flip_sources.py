"""What the split of b and c into model and grader flips costs the gate (issue 23 item 1).

    python bench/bench_flip_sources.py [--cases 100000] [--reps 3] [--repeat 5] [--format parquet]

Times, as whole processes and in turns, `flipgate gate BASELINE CANDIDATE --format json` on the
pair bench/generate.py writes (5% of the cases flipping each way, 10% with split repetitions,
a stored output on every repetition), twice: as it is, and the same command without the split
(`flip_sources` not called: the outputs of the flipped cases' repetitions are then never read,
`core/runs/texts.py`). Both go through this file's `--child` so that they start the same way as the console
script (`flipgate.launch.run`). Target: the split adds at most 20% to the gate's CPU time (on a
shared machine the wall time waits for other jobs and the CPU time does not); the wall time's
median and minimum are printed beside it.

Exit status: 0 measured and under the target, 1 a command failed, 3 over the target.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from run_gate_bench import BENCH, ensure_data, time_commands

TARGET = 0.20  # at most 20% added to the gate's CPU time


def child(without: bool, argv: list[str]) -> None:
    """The console script on `argv`; `without`: the split taken out, as before it existed."""
    if without:
        import flipgate.core.gate.compare as compare

        compare.flip_sources = lambda *args, **kwargs: None  # type: ignore[assignment]
    from flipgate import launch

    sys.argv = ["flipgate", *argv]
    launch.run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    ensure_data(args.data, args.cases, args.reps)
    pair = args.data / args.format
    gate = ["gate", str(pair / "baseline"), str(pair / "candidate"), "--format", "json"]
    me = ["uv", "run", "--no-sync", "python", str(Path(__file__).resolve()), "--child"]
    commands = {
        "gate with the split": [*me, "with", *gate],
        "gate without": [*me, "without", *gate],
    }
    timings = time_commands(commands, args.repeat)
    print(f"{args.cases:,} cases x {args.reps} repetitions, {args.format}, {args.repeat} rounds")
    for label, timing in timings.items():
        codes = sorted({s.returncode for s in timing.samples})
        print(
            f"  {label:<20} wall median {timing.median_s:5.2f} s  min {timing.min_s:5.2f} s  "
            f"CPU {timing.cpu_median_s:5.2f} s  peak RSS {timing.peak_rss_bytes / 1e9:.2f} GB  "
            f"exit {codes}"
        )
    with_split, without = timings.values()
    if any(s.returncode not in (0, 1, 3, 4) for t in timings.values() for s in t.samples):
        print(with_split.samples[-1].stderr or without.samples[-1].stderr, file=sys.stderr)
        return 1
    cpu = with_split.cpu_median_s / without.cpu_median_s - 1
    wall = with_split.median_s / without.median_s - 1
    print(f"  the split adds {cpu:+.1%} CPU, {wall:+.1%} wall (target: at most {TARGET:+.0%} CPU)")
    return 0 if cpu <= TARGET else 3


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2] == "without", sys.argv[3:])
    else:
        raise SystemExit(main())
