"""The speed benchmark of `flipgate gate` (issues 2 and 25): whole processes, side by side with a
bare read of the same two files.

    python bench/run_gate_bench.py [--cases 100000] [--reps 3] [--repeat 5]
                                   [--data bench/data/CASESxREPS] [--no-app]
                                   [--formats parquet,jsonl] [--before SRC] [--no-reference]

Generates the pair of runs if it is missing (tests/reference/generate.py), then runs each
command as a whole process, once untimed and then in --repeat rounds, each command in turn:
`flipgate gate B C --format json` on Parquet and on JSONL, each beside its floor, the bare read of
the same two files (bench/bare_read.py: `polars.read_parquet`, `pyarrow.json.read_json`). Reports
wall time (median and min), CPU time and peak RSS (from the rusage that os.wait4 returns for that
one process tree), and the ratios to the floor: time, the median of each round's gate / read (the
two ran side by side), and peak memory. `tests/reference/gate.py` (plain Python) runs once on the
JSONL: flipgate must agree with it on verdict, rule, b, c, p, cells, outcome counts, infra counts
and the flipped cases. Last, the app's first paint on the Parquet pair (bench/bench_app.py
--first-paint), and each format's row of bench/README.md's record (date, commit, load, size,
the gate's and the bare read's figures, the ratios), to paste there.

Targets (issue 25): the gate within 1.5x the bare read's wall time and 2x its peak memory, on
both formats (the CPU time's ratio beside it: on a busy machine the wall time waits).

Exit status: 0 all agree and every target is met, 1 the outputs disagree or flipgate failed,
2 `flipgate gate` is not available yet, 3 the outputs agree but a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
# The tests' references, run as scripts: the generator writes the data, the plain-Python gate is
# the yardstick (tests/reference/__init__.py says why they live there).
REFERENCE = ROOT / "tests" / "reference"
ARMS = ("baseline", "candidate")

FORMATS = ("Parquet", "JSONL")  # also the key of each data directory, lowered
TIME_RATIO = 1.5  # the gate's wall time over the bare read's, at most
MEMORY_RATIO = 2.0  # its peak RSS over the bare read's, at most
P_TOLERANCE = 1e-12
GATE_EXIT_CODES = {0, 1, 3, 4}  # PASS, BLOCK, INCONCLUSIVE, INVALID
FIVE = ("agreement", "false_negative", "false_positive", "inconclusive", "mirror")
CELLS = ("both_pass", "both_fail", "pass_to_fail", "fail_to_pass")


@dataclass(frozen=True)
class Sample:
    wall_s: float
    cpu_s: float  # user + system: on a busy machine wall time waits, CPU time does not
    peak_rss_bytes: int
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Timing:
    samples: list[Sample]

    @property
    def median_s(self) -> float:
        return statistics.median(s.wall_s for s in self.samples)

    @property
    def min_s(self) -> float:
        return min(s.wall_s for s in self.samples)

    @property
    def cpu_median_s(self) -> float:
        return statistics.median(s.cpu_s for s in self.samples)

    @property
    def peak_rss_bytes(self) -> int:
        return max(s.peak_rss_bytes for s in self.samples)


# As on a user's machine, imports use cached bytecode: with PYTHONDONTWRITEBYTECODE set (some
# sandboxes set it) every run would compile scipy and polars' Python from source again, seconds.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(cmd: list[str]) -> Sample:
    """Run one process to completion; wait4 gives the rusage of it and the children it reaped."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=CHILD_ENV, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Sample(
            wall_s=wall,
            cpu_s=usage.ru_utime + usage.ru_stime,
            peak_rss_bytes=usage.ru_maxrss * 1024,  # Linux reports kilobytes
            returncode=proc.returncode,
            stdout=out.read().decode(),
            stderr=err.read().decode(),
        )


def time_commands(commands: dict[str, list[str]], repeat: int) -> dict[str, Timing]:
    """Each command once untimed, to write bytecode caches and fill the page cache; then `repeat`
    rounds that run every command in turn. A VM's speed drifts within the hour (by a fifth
    here): taken in turns, the commands' medians come from the same stretch of it."""
    for cmd in commands.values():
        measure(cmd)
    samples: dict[str, list[Sample]] = {label: [] for label in commands}
    for _ in range(repeat):
        for label, cmd in commands.items():
            samples[label].append(measure(cmd))
            print(f"  {label}: {samples[label][-1].wall_s:.2f} s", file=sys.stderr)
    return {label: Timing(taken) for label, taken in samples.items()}


def holds_size(run_yaml: Path, cases: int, reps: int) -> bool:
    if not run_yaml.exists():
        return False
    made = yaml.safe_load(run_yaml.read_text()).get("generator") or {}
    return (made.get("cases"), made.get("reps")) == (cases, reps)


def ensure_data(data: Path, cases: int, reps: int, formats: list[str]) -> None:
    """Generate the pair in `formats` unless each already holds one of this size (a million
    cases' JSONL is 2 GB an arm: a Parquet bench does not make it).

    In a child process: a fork of a big parent would count the parent's pages in the children's
    peak RSS, so this process stays small (no numpy, no polars).
    """
    metas = [data / fmt.lower() / arm / "run.yaml" for fmt in formats for arm in ARMS]
    if all(holds_size(m, cases, reps) for m in metas):
        return
    (data / "reference.json").unlink(missing_ok=True)  # the reference's answer on the old pair
    print(f"generating {cases} cases x {reps} reps under {data} ...", file=sys.stderr)
    start = time.perf_counter()
    generator = [sys.executable, str(REFERENCE / "generate.py"), f"--out={data}"]
    sizes = [f"--cases={cases}", f"--reps={reps}", f"--formats={','.join(formats).lower()}"]
    subprocess.run([*generator, *sizes], check=True)
    print(f"  generated in {time.perf_counter() - start:.1f} s", file=sys.stderr)


def flipgate_unavailable() -> str | None:
    """Why `flipgate gate` cannot be run yet, or None when it can."""
    probe = measure(["uv", "run", "--no-sync", "flipgate", "gate", "--help"])
    if probe.returncode == 0:
        return None
    reason = (probe.stderr.strip() or probe.stdout.strip()).splitlines()
    return reason[-1] if reason else f"exit status {probe.returncode}"


def five_counts(arm: dict[str, Any]) -> dict[str, Any]:
    """An arm's outcome figures, the counts flat or under `counts`, the cost a number or `total`."""
    counts = arm.get("counts", {})
    cost = arm.get("cost")
    if isinstance(cost, dict):
        cost = cost.get("total")
    return {k: counts.get(k, arm.get(k)) for k in (*FIVE, "decisions")} | {"cost": cost}


def disagreements(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """Where flipgate's JSON differs from the reference's on what both must compute alike."""
    found = [
        f"{field}: flipgate {got.get(field)!r}, reference {want[field]!r}"
        for field in ("verdict", "rule", "b", "c")
        if got.get(field) != want[field]
    ]
    # The reference reads p by case; the gate by template where the runs have templates
    # (`clusters: template`, the default), and gives its p by case beside it. Against another
    # gate's answer (`--before`), p is p.
    by_case = "clusters" not in want
    p = (got.get("clusters") or {}).get("p_by_case") if by_case else got.get("p")
    if not isinstance(p, int | float) or abs(p - want["p"]) > P_TOLERANCE:
        found.append(f"p: flipgate {p!r}, reference {want['p']!r}")
    cells = {k: (got.get("cells") or {}).get(k) for k in CELLS}
    if cells != want["cells"]:
        found.append(f"cells: flipgate {cells}, reference {want['cells']}")
    for arm in ARMS:
        mine = five_counts((got.get("outcomes") or {}).get(arm) or {})
        theirs = five_counts(want["outcomes"][arm])
        cost_ok = (
            isinstance(mine["cost"], int | float) and abs(mine["cost"] - theirs["cost"]) < 1e-6
        )
        if {**mine, "cost": None} != {**theirs, "cost": None} or not cost_ok:
            found.append(f"outcomes.{arm}: flipgate {mine}, reference {theirs}")
        count = ((got.get("infra") or {}).get(arm) or {}).get("count")
        if count != want["infra"][arm]["count"]:
            found.append(
                f"infra.{arm}.count: flipgate {count!r}, reference {want['infra'][arm]['count']}"
            )
    if "flipped" in got:
        flips = {(f["case"], f["direction"]) for f in got["flipped"]}
        if flips != {(f["case"], f["direction"]) for f in want["flipped"]}:
            found.append("flipped: the lists of flipped cases differ")
    return found


def verdict_line(result: dict[str, Any]) -> str:
    """The answer in a line; a gate's p read by template says so, with its p by case beside it
    (the reference's reading, which `disagreements` compares)."""
    clusters = result.get("clusters") or {}
    p = f"p={result['p']:.6g}"
    if clusters.get("by") == "template":
        p += f" by template (by case {clusters['p_by_case']:.6g})"
    return (
        f"{result['verdict']} ({result['rule']}), b={result['b']} c={result['c']} "
        f"{p}, cells {result['cells']}"
    )


def row(what: str, measured: str, limit: str, ok: bool | None) -> str:
    mark = "" if ok is None else ("PASS" if ok else "FAIL")
    return f"{what:<40} {measured:<44} {limit:<9} {mark}"


def timing_cell(t: Timing) -> str:
    return (
        f"{t.median_s:.2f} s ({t.min_s:.2f} s), cpu {t.cpu_median_s:.2f} s, "
        f"{t.peak_rss_bytes / 1e9:.2f} GB"
    )


def ratio_in_turns(gate: Timing, floor: Timing, cpu: bool = False) -> float:
    """The median of each round's ratio: the two ran one after the other, on the same machine."""
    return statistics.median(
        (g.cpu_s / f.cpu_s) if cpu else (g.wall_s / f.wall_s)
        for g, f in zip(gate.samples, floor.samples, strict=True)
    )


def first_paint(folder: Path) -> str:
    """The app's overview, painted from the start, on the pair (bench/bench_app.py)."""
    app = measure(
        [
            "uv",
            "run",
            "--no-sync",
            "python",
            str(BENCH / "bench_app.py"),
            str(folder),
            "--first-paint",
        ]
    )
    if app.returncode != 0:
        return f"failed: {(app.stderr.strip().splitlines() or ['?'])[-1]}"
    painted = next(
        (line for line in app.stdout.splitlines() if line.startswith("overview painted")), None
    )
    if painted is None:
        return "no figure"
    return f"{painted.split()[-2]} s, {app.peak_rss_bytes / 1e9:.2f} GB"


def commit(src: Path) -> str:
    """The commit a checkout's `src/` is at (with `+` when its files differ from it)."""
    git = ["git", "-C", str(src)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "?"
    changed = subprocess.run([*git, "status", "--porcelain", "."], capture_output=True, text=True)
    return head.stdout.strip() + ("+" if changed.stdout.strip() else "")


def record_row(gate: Timing, floor: Timing, at: str, load: str, cases: int, fmt: str) -> str:
    """One row of bench/README.md's record, the ratios taken round by round."""
    figures = [
        f"{t.median_s:.2f} s | {t.cpu_median_s:.2f} s | {t.peak_rss_bytes / 1e9:.2f} GB"
        for t in (gate, floor)
    ]
    ratios = (
        f"{ratio_in_turns(gate, floor):.2f}x | {ratio_in_turns(gate, floor, cpu=True):.2f}x | "
        f"{gate.peak_rss_bytes / floor.peak_rss_bytes:.2f}x"
    )
    day = time.strftime("%Y-%m-%d", time.gmtime())
    return f"| {day} | {at} | {load} | {cases:,} | {fmt} | {figures[0]} | {figures[1]} | {ratios} |"


def reference_answer(data: Path, jsonl: list[str], cases: int, reps: int) -> dict[str, Any]:
    """tests/reference/gate.py's answer on the JSONL pair, kept beside it: at a million cases the
    plain-Python reference takes minutes, and the pair does not change."""
    kept = data / "reference.json"
    size = {"cases": cases, "reps": reps}
    if kept.exists() and (found := json.loads(kept.read_text())).get("size") == size:
        return dict(found["answer"])
    print("the reference's answer ...", file=sys.stderr)
    ran = measure(["uv", "run", "--no-sync", "python", str(REFERENCE / "gate.py"), *jsonl])
    answer = json.loads(ran.stdout)
    kept.write_text(json.dumps({"size": size, "answer": answer}))
    return dict(answer)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each command")
    parser.add_argument(
        "--data",
        type=Path,
        help="where the pair is, or is generated (default bench/data/CASESxREPS: one per size)",
    )
    parser.add_argument("--no-app", action="store_true", help="leave out the app's first paint")
    parser.add_argument(
        "--formats",
        type=lambda text: [f for f in FORMATS if f.lower() in text.lower().split(",")],
        default=list(FORMATS),
        help="parquet,jsonl (default both)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout's src/: its `flipgate gate` timed too, in the same rounds",
    )
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="skip the plain-Python reference (minutes at a million cases): the answers are "
        "then checked against --before's",
    )
    args = parser.parse_args(argv)
    if args.data is None:
        args.data = BENCH / "data" / f"{args.cases}x{args.reps}"
    load_at_start = os.getloadavg()[0]

    formats: list[str] = args.formats
    wanted = formats if args.no_reference else list({*formats, "JSONL"})  # the reference's
    ensure_data(args.data, args.cases, args.reps, wanted)
    pair = {fmt: [str(args.data / fmt.lower() / arm) for arm in ARMS] for fmt in formats}
    python = ["uv", "run", "--no-sync", "python"]
    want = None
    if not args.no_reference:
        jsonl = [str(args.data / "jsonl" / arm) for arm in ARMS]
        want = reference_answer(args.data, jsonl, args.cases, args.reps)
    if missing := flipgate_unavailable():
        print(f"`flipgate gate` is not available yet: {missing}")
        return 2

    commands = {}
    for fmt in formats:
        gating = ["uv", "run", "--no-sync", "flipgate", "gate", *pair[fmt], "--format", "json"]
        commands[f"gate, {fmt}"] = gating
        if args.before is not None:
            commands[f"gate before, {fmt}"] = ["env", f"PYTHONPATH={args.before}", *gating]
        commands[f"bare read, {fmt}"] = [
            *python,
            str(BENCH / "bare_read.py"),
            fmt.lower(),
            *pair[fmt],
        ]
    timings = time_commands(commands, args.repeat)
    print(f"\n{args.cases:,} cases x {args.reps} reps, {args.repeat} timed runs of each command")
    if want is not None:
        print(f"{'reference:':<19}{verdict_line(want)}")
    problems: list[str] = []
    answers: dict[str, dict[str, Any]] = {}
    for label in (label for label in timings if label.startswith("gate")):
        last = timings[label].samples[-1]
        if last.returncode not in GATE_EXIT_CODES:
            problems.append(f"{label}: exited {last.returncode}: {last.stderr.strip()}")
            continue
        answers[label] = got = json.loads(last.stdout)
        print(f"{label + ':':<19}{verdict_line(got)}")
        if want is not None:
            problems += [f"{label}: {d}" for d in disagreements(got, want)]
    for fmt in formats:  # with no reference, the answer must not move from --before's
        now, before = answers.get(f"gate, {fmt}"), answers.get(f"gate before, {fmt}")
        if want is None and now is not None and before is not None:
            problems += [f"{fmt}: {d}" for d in disagreements(now, before)]

    print()
    print(row("what", "wall: median (min), cpu, peak RSS", "target", None) + "result")
    for label, timing in timings.items():
        print(row(label, timing_cell(timing), "", None))
    met = []
    for fmt in formats:
        gate, floor = timings[f"gate, {fmt}"], timings[f"bare read, {fmt}"]
        ratio, cpu = ratio_in_turns(gate, floor), ratio_in_turns(gate, floor, cpu=True)
        met.append(ratio <= TIME_RATIO)
        times = f"{ratio:.2f}x wall, {cpu:.2f}x cpu"
        print(row(f"gate / bare read, {fmt}: time", times, f"<= {TIME_RATIO:g}x", met[-1]))
        if (earlier := timings.get(f"gate before, {fmt}")) is not None:
            was = f"{ratio_in_turns(earlier, floor):.2f}x wall, "
            was += f"{ratio_in_turns(earlier, floor, cpu=True):.2f}x cpu"
            print(row(f"  before / bare read, {fmt}", was, "", None))
        memory = gate.peak_rss_bytes / floor.peak_rss_bytes
        met.append(memory <= MEMORY_RATIO)
        print(
            row(
                f"gate / bare read, {fmt}: memory",
                f"{memory:.2f}x",
                f"<= {MEMORY_RATIO:g}x",
                met[-1],
            )
        )
    if not args.no_app:
        print(row("app: overview painted, Parquet", first_paint(args.data / "parquet"), "", None))
    load = f"{load_at_start:.1f} -> {os.getloadavg()[0]:.1f}"
    print("\nbench/README.md's record (date, commit, load, size, format, the gate's and the bare")
    print("read's wall median, CPU median and peak RSS, the ratios: wall, CPU, memory):")
    for fmt in formats:
        floor = timings[f"bare read, {fmt}"]
        for label, src in ((f"gate, {fmt}", ROOT / "src"), (f"gate before, {fmt}", args.before)):
            if label in timings and src is not None:
                print(record_row(timings[label], floor, commit(src), load, args.cases, fmt))
    yardstick = "reference" if want is not None else "--before" if args.before else "nothing"
    print(row(f"answers agree with {yardstick}", "yes" if not problems else "NO", "", not problems))
    for problem in problems:
        print(f"  - {problem}")
    if problems:
        return 1
    return 0 if all(met) else 3


if __name__ == "__main__":
    raise SystemExit(main())
