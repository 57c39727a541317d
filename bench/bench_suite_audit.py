"""Time `flipgate suite audit` on a 10,000-case suite with a 20-run history (target: under 5 s).

    uv run python bench/bench_suite_audit.py [--cases 10000] [--runs 20] [--repeat 5]

Writes the workspace to bench/data/suite-<cases>x<runs>/ once (git-ignored), then times the whole
command as a process, as `bench/run_gate_bench.py` times the gate (once untimed, then --repeat
rounds, with cached bytecode as on a user's machine): start-up, reading the manifest, traffic,
registry, every history run and the baseline, the diagnostics, the text report.

Exit status: 0 the target is met, 1 the audit failed, 3 the target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import date, timedelta
from pathlib import Path

from run_gate_bench import time_commands

ROOT = Path(__file__).resolve().parent.parent
LABELS = ("resolve", "refuse", "handoff")
WALL_LIMIT_S = 5.0  # issue 14


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    folder = ROOT / "bench" / "data" / f"suite-{args.cases}x{args.runs}"
    if not (folder / "baseline" / "results.jsonl").exists():
        print(f"generating {folder}", file=sys.stderr)
        generate(folder, args.cases, args.runs)
    command = ["uv", "run", "--no-sync", "flipgate", "suite", "audit", str(folder)]
    (timing,) = time_commands({"suite audit": command}, args.repeat).values()
    if any(s.returncode != 0 for s in timing.samples):
        print(timing.samples[-1].stderr, file=sys.stderr)
        return 1
    print(
        f"suite audit, {args.cases:,} cases, {args.runs} history runs, {args.repeat} rounds: "
        f"wall median {timing.median_s:.2f} s, min {timing.min_s:.2f} s; "
        f"CPU median {timing.cpu_median_s:.2f} s; peak RSS {timing.peak_rss_bytes / 1e9:.2f} GB "
        f"(target: wall under {WALL_LIMIT_S:g} s)"
    )
    return 0 if timing.median_s < WALL_LIMIT_S else 3


if __name__ == "__main__":
    raise SystemExit(main())
