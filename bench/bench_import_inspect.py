"""Time our Inspect importer against inspect_ai's own reader on one large `.eval` log.

    uv run python bench/bench_import_inspect.py [--samples 10000] [--epochs 3]

The log (zstd members, as inspect_ai 0.3.285 writes) is generated once by gen_inspect_log.py.
inspect_ai is not a dependency of flipgate: its reader runs as a subprocess in a throwaway venv
(`uv venv /tmp/inspect-venv && uv pip install --python /tmp/inspect-venv inspect-ai==0.3.285`),
and its column is skipped with a message when that venv is missing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from gen_inspect_log import generate

from flipgate.core.importers import read_external

INSPECT_PYTHON = Path("/tmp/inspect-venv/bin/python")
# Times the import of inspect_ai and the read separately; prints "samples import_s read_s".
INSPECT_READ = """
import sys, time
t0 = time.perf_counter()
from inspect_ai.log import read_eval_log
t1 = time.perf_counter()
log = read_eval_log(sys.argv[1])
t2 = time.perf_counter()
print(len(log.samples), t1 - t0, t2 - t1)
"""


def time_ours(log: Path, repeats: int) -> tuple[int, float]:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run = read_external(log)
        best = min(best, time.perf_counter() - start)
    return len(run.records), best


def time_inspect(log: Path, python: Path) -> tuple[int, float, float] | None:
    if not python.exists():
        print(f"inspect_ai column skipped: no venv at {python} (see this file's docstring)")
        return None
    out = subprocess.run(
        [str(python), "-c", INSPECT_READ, str(log)], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]), float(out[1]), float(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--log", type=Path, help="default: /tmp/flipgate-bench/inspect-NxE.eval")
    parser.add_argument("--repeats", type=int, default=3, help="our reader: best of N")
    parser.add_argument("--inspect-python", type=Path, default=INSPECT_PYTHON)
    args = parser.parse_args()
    log = args.log or Path(f"/tmp/flipgate-bench/inspect-{args.samples}x{args.epochs}.eval")
    if not log.exists():
        log.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {log} ...", flush=True)
        generate(log, args.samples, args.epochs)
    print(f"log: {log} ({log.stat().st_size / 1e6:.1f} MB, {args.samples} x {args.epochs})")

    records, ours = time_ours(log, args.repeats)
    print(f"flipgate read_external          {records:>7} records  {ours:7.2f} s", end="")
    print(f" (best of {args.repeats})")
    theirs = time_inspect(log, args.inspect_python)
    if theirs is not None:
        samples, import_s, read_s = theirs
        print(
            f"inspect_ai.log.read_eval_log    {samples:>7} samples  {read_s:7.2f} s "
            f"(+ {import_s:.2f} s to import inspect_ai)"
        )
        print(f"ours is {read_s / ours:.1f}x faster")
        if ours >= read_s:
            sys.exit("our reader is not faster than inspect_ai's")


if __name__ == "__main__":
    main()
