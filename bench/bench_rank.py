"""The speed of `flipgate rank` (issue 15): ten candidates of 100,000 cases against a single gate.

    python bench/bench_rank.py [--cases 100000] [--reps 3] [--candidates 10] [--repeat 3]

Builds a campaign under DATA/rank/ from the pair tests/reference/generate.py writes (generated first when
missing): `baseline/` is the generated baseline, each `candidates/cNN/` the generated candidate
with the first NN x 0.5% of its cases answered right on every repetition, so that the candidates
differ and the ranking has a winner. Then times, as whole processes and in turns, `flipgate gate
BASELINE CANDIDATE --format json` (one candidate) and `flipgate rank DATA/rank --format json`
(all of them), on Parquet, and prints wall time (median, min), CPU time and peak RSS of each and
the ratios of the medians. Target: the ranking within a few times a single gate, taken on CPU
time (on a shared machine the wall time waits for other jobs and the CPU time does not); the
floor is reading the runs, eleven of them against two.

Exit status: 0 measured and under the target, 1 a command failed, 3 over the target.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import polars as pl
import yaml
from run_gate_bench import BENCH, ensure_data, time_commands

from flipgate.core.io.atomic import write_atomic

TARGET_RATIO = 5.0  # CPU time of rank on 10 candidates against one gate: "within a few times"
FIXED_SHARE = 0.005  # of the cases, per candidate number: c01 fixes 0.5%, c10 5%


def build_campaign(pair: Path, out: Path, candidates: int) -> None:
    """DATA/rank/: the pair's baseline, and `candidates` variants of its candidate."""
    results = pl.read_parquet(pair / "candidate" / "results.parquet")
    meta = yaml.safe_load((pair / "candidate" / "run.yaml").read_text())
    cases = results["case"].unique().sort()
    incumbent = out / "baseline"
    if not incumbent.exists():
        out.mkdir(parents=True, exist_ok=True)
        incumbent.symlink_to((pair / "baseline").resolve(), target_is_directory=True)
    for n in range(1, candidates + 1):
        fixed = cases.head(int(cases.len() * FIXED_SHARE * n)).implode()
        variant = results.with_columns(
            actual=pl.when(pl.col("case").is_in(fixed) & (pl.col("status") != "infra"))
            .then(pl.col("expected"))
            .otherwise(pl.col("actual"))
        )
        folder = out / "candidates" / f"c{n:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        variant.write_parquet(folder / "results.parquet")
        run = meta | {"run_id": f"{meta['run_id']}-c{n:02d}"}
        write_atomic(folder / "run.yaml", yaml.safe_dump(run, sort_keys=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--candidates", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=BENCH / "data")
    args = parser.parse_args(argv)
    ensure_data(args.data, args.cases, args.reps)
    pair, campaign = args.data / "parquet", args.data / "rank"
    if not (campaign / "candidates" / f"c{args.candidates:02d}").exists():
        print(f"building {args.candidates} candidates under {campaign} ...", file=sys.stderr)
        build_campaign(pair, campaign, args.candidates)
    flipgate = ["uv", "run", "--no-sync", "flipgate"]
    commands = {
        "gate (1 candidate)": [
            *flipgate,
            "gate",
            str(pair / "baseline"),
            str(campaign / "candidates" / "c01"),
            "--format",
            "json",
        ],
        f"rank ({args.candidates} candidates)": [
            *flipgate,
            "rank",
            str(campaign),
            "--format",
            "json",
        ],
    }
    timings = time_commands(commands, args.repeat)
    print(f"{args.cases:,} cases x {args.reps} repetitions, Parquet, {args.repeat} rounds")
    for label, timing in timings.items():
        codes = {s.returncode for s in timing.samples}
        print(
            f"  {label:<24} wall median {timing.median_s:5.2f} s  min {timing.min_s:5.2f} s  "
            f"CPU {timing.cpu_median_s:5.2f} s  peak RSS {timing.peak_rss_bytes / 1e9:.2f} GB  "
            f"exit {sorted(codes)}"
        )
    gate, ranking = timings.values()
    if any(s.returncode not in (0, 1, 3, 4) for s in gate.samples) or any(
        s.returncode not in (0, 1) for s in ranking.samples
    ):
        print(ranking.samples[-1].stderr or gate.samples[-1].stderr, file=sys.stderr)
        return 1
    wall, cpu = ranking.median_s / gate.median_s, ranking.cpu_median_s / gate.cpu_median_s
    print(
        f"  rank / gate: {wall:.1f}x wall, {cpu:.1f}x CPU (target: at most {TARGET_RATIO:g}x CPU)"
    )
    return 0 if cpu <= TARGET_RATIO else 3


if __name__ == "__main__":
    raise SystemExit(main())
