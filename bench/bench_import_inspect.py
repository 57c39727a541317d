"""Time and weigh our Inspect importer against inspect_ai's own reader on one large `.eval` log.

    uv run python bench/bench_import_inspect.py [--samples 200000] [--epochs 1] \
        [--inspect-python /tmp/inspect-venv/bin/python]

The log (zstd members, as inspect_ai 0.3.285 writes) is generated once by gen_inspect_log.py from
the real agent log of tests/fixtures/inspect/. Each reader runs in a process of its own, and the
figures are whole-process: the wall time from start to the log read (imports included), the CPU
time (user and system: on the shared machine the wall time is mostly the others' load) and the
peak resident memory. Ours is the import as `flipgate import` and `gate` do it: every sample read
through the typed models, mapped to records, and the records checked and turned into the run's
frames (`run_from_records`). inspect_ai is not a dependency of flipgate: its reader
(`read_eval_log`) runs in a throwaway venv

    uv venv /tmp/inspect-venv && VIRTUAL_ENV=/tmp/inspect-venv uv pip install inspect-ai==0.3.285

and its column is skipped with a message when that venv is missing. The target: ours within 2x
of inspect_ai's time and memory (it is far below both).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from gen_inspect_log import generate

INSPECT_PYTHON = Path("/tmp/inspect-venv/bin/python")
# Each prints "samples seconds cpu_seconds peak_kb": the whole process, from its start.
MEASURE = """
import resource, sys, time
start = time.perf_counter()
{read}
seconds = time.perf_counter() - start
used = resource.getrusage(resource.RUSAGE_SELF)
print(count, seconds, used.ru_utime + used.ru_stime, used.ru_maxrss)
"""
OURS = """
from pathlib import Path
from flipgate.core.importers import read_external
from flipgate.core.runs.reading import run_from_records
imported = read_external(Path(sys.argv[1]))
run = run_from_records(imported.manifest, imported.records, source=imported.source)
count = run.reps.height
"""
THEIRS = """
from inspect_ai.log import read_eval_log
count = len(read_eval_log(sys.argv[1]).samples)
"""


Figures = tuple[float, float, float]  # wall s, CPU s, peak MB


def measure(python: Path | str, read: str, log: Path) -> tuple[int, Figures]:
    code = MEASURE.format(read=read.strip())
    out = subprocess.run(
        [str(python), "-c", code, str(log)], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]), (float(out[1]), float(out[2]), int(out[3]) / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--log", type=Path, help="default: /tmp/flipgate-bench/inspect-NxE.eval")
    parser.add_argument("--repeats", type=int, default=3, help="each reader: best of N")
    parser.add_argument("--inspect-python", type=Path, default=INSPECT_PYTHON)
    args = parser.parse_args()
    log = args.log or Path(f"/tmp/flipgate-bench/inspect-{args.samples}x{args.epochs}.eval")
    if not log.exists():
        log.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {log} ...", flush=True)
        generate(log, args.samples, args.epochs)
    print(f"log: {log} ({log.stat().st_size / 1e6:.0f} MB, {args.samples} x {args.epochs})")

    readers = {"flipgate import": (sys.executable, OURS)}
    if args.inspect_python.exists():
        readers["inspect_ai read_eval_log"] = (str(args.inspect_python), THEIRS)
    else:
        print(f"inspect_ai column skipped: no venv at {args.inspect_python} (see the docstring)")
    best: dict[str, Figures] = {}
    for _ in range(args.repeats):  # interleaved, so that both see the same machine load
        for name, (python, read) in readers.items():
            count, figures = measure(python, read, log)
            was = best.get(name, figures)
            best[name] = (min(was[0], figures[0]), min(was[1], figures[1]), min(was[2], figures[2]))
            print(f"  {name:<26} {count:>7} samples {said(figures)}", flush=True)
    for name, figures in best.items():
        print(f"best {name:<26} {said(figures)} peak")
    if len(best) == 2:
        ours, theirs = best.values()
        wall, cpu, memory = (o / t for o, t in zip(ours, theirs, strict=True))
        print(f"ours / inspect_ai: wall {wall:.2f}x, CPU {cpu:.2f}x, memory {memory:.2f}x")
        if cpu > 2 or memory > 2:  # the wall time is the machine's load as much as ours
            sys.exit("the import is past 2x inspect_ai's own reader")


def said(figures: Figures) -> str:
    wall, cpu, peak = figures
    return f"{wall:8.1f} s wall {cpu:8.1f} s CPU {peak:8.0f} MB"


if __name__ == "__main__":
    main()
