"""Time `flipgate suite audit` on a 10,000-case suite with a 20-run history (target: under 5 s).

    uv run python bench/bench_suite_audit.py [--cases 10000] [--runs 20] [--repeat 3]

Writes the workspace to bench/data/suite-<cases>x<runs>/ once (git-ignored), then times the whole
command as a process: start-up, reading the manifest, traffic, registry, every history run and
the baseline, the diagnostics, the text report.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("resolve", "refuse", "handoff")


def generate(folder: Path, cases: int, runs: int) -> None:
    rng = random.Random(14)
    intents = [f"intent_{i:02d}" for i in range(60)]
    start = date(2024, 1, 1)
    rows = []
    for n in range(cases):
        intent = intents[min(int(rng.expovariate(0.08)), len(intents) - 1)]
        added = start + timedelta(days=rng.randrange(900))
        endpoint = f"GET /v{1 + n % 3}/thing/{n % 40}"
        rows.append((f"c{n:05d}", intent, added, endpoint))
    lines = [
        "suite: bench\nversion: suite@v20\nintake: {sampled_per_month: 8, escalations_per_month: 6}\n",
        "cases:\n",
        *(
            f"  - {{case: {c}, intent: {i}, added: {a}, endpoints: [{e}]}}\n"
            for c, i, a, e in rows[: cases - cases // 50]
        ),
        "archive:\n",
        *(
            f"  - {{case: {c}, intent: {i}, added: {a}, endpoints: [{e}], retired: 2026-01-01, reason: gone}}\n"
            for c, i, a, e in rows[cases - cases // 50 :]
        ),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.yaml").write_text("".join(lines))
    shares = {i: round(0.9 / len(intents), 4) for i in intents}
    (folder / "traffic.yaml").write_text(
        "window: {from: 2026-05-01, to: 2026-07-31}\nintents:\n"
        + "".join(f"  {i}: {s}\n" for i, s in shares.items())
    )
    live = [f"GET /v{v}/thing/{t}" for v in (2, 3) for t in range(40)]
    (folder / "registry.yaml").write_text(f"flags: []\nendpoints: [{', '.join(live)}]\n")
    expected = {c: rng.choice(LABELS) for c, *_ in rows}
    for r in range(runs + 1):
        run = folder / ("baseline" if r == runs else f"history/run-{r:02d}")
        run.mkdir(parents=True, exist_ok=True)
        version = "suite@v20" if r >= runs - 2 else f"suite@v{r}"
        (run / "run.yaml").write_text(
            f"run_id: bench-{r}\ncreated: 2026-{1 + r % 12:02d}-15T00:00:00Z\n"
            f"key: {{model: m{r % 5}, eval_set: {version}}}\n"
            "labels: {negative: resolve, positive: refuse, abstain: handoff}\n"
        )
        with (run / "results.jsonl").open("w") as out:
            for c, *_ in rows:
                want = expected[c] if r >= 5 or rng.random() > 0.2 else rng.choice(LABELS)
                got = want if rng.random() > 0.13 else rng.choice(LABELS)
                out.write(json.dumps({"case": c, "expected": want, "actual": got}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = ROOT / "bench" / "data" / f"suite-{args.cases}x{args.runs}"
    if not (folder / "baseline" / "results.jsonl").exists():
        print(f"generating {folder}", file=sys.stderr)
        generate(folder, args.cases, args.runs)
    command = [sys.executable, "-m", "flipgate", "suite", "audit", str(folder)]
    subprocess.run(command, check=True, capture_output=True)  # warm the caches once
    # Wall time, and the child's CPU time: on a machine shared with other jobs the wall time
    # grows with the queue for the cores, the CPU time much less.
    walls, cpus = [], []
    for _ in range(args.repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        began = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        walls.append(time.perf_counter() - began)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print(
        f"suite audit, {args.cases:,} cases, {args.runs} history runs, {args.repeat} rounds "
        f"(target < 5 s): wall best {min(walls):.2f} s, worst {max(walls):.2f} s; "
        f"CPU best {min(cpus):.2f} s"
    )


if __name__ == "__main__":
    main()
