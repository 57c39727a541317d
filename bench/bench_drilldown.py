"""How fast the red-case table paints and a case drill-down opens, on a 100,000-case pair.

    uv run python bench/bench_drilldown.py [--data DIR] [--repeat 5]

DIR holds baseline/ and candidate/ runs (default: /tmp/flipgate-bench/parquet, written by
tests/reference/generate.py when missing). Everything runs headless (`App.run_test`) at 140x45. Each step is
timed from the key press to the last frame the app paints for it: headless, Textual still builds
every frame (the compositor renders each visible line) and only skips writing it to a terminal,
so the time up to the last frame is the time until the screen is complete and still.
Targets: a drill-down opens in under 200 ms.

Beside each figure, the longest stall of the event loop during the step: the longest time the app
could not have answered a key (a task that wakes every 5 ms notes the longest gap between its
wake-ups). A diff of long outputs is computed in a worker thread, so its step ends late but
stalls little.

Then one case built to be heavy: a stored output of 240 KB of JSON (about 9,700 lines indented)
and a trajectory of 200 turns in each arm, forking at turn 121. Target: no step (opening it, each
diff, scrolling to the end, moving along the turns, unfolding one, the turn-by-turn diff) stalls
the app for more than 500 ms: it does not freeze.

Last, a case whose trajectories are 50,000 turns an arm (a long agent run; issue 28 item 12: the
alignment took 163 s on the event loop). Target: opening it, until the turns are on screen, never
stalls the app for more than 100 ms: it is parsed, aligned and laid out in a worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.console import RenderableType
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import load_flaky
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.present.case_query import CaseQuery, select_cases
from flipgate.present.casefile import case_detail, red_table
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen

DEFAULT_DATA = Path("/tmp/flipgate-bench")
SIZE = (140, 45)


def ensure_data(data: Path | None) -> Path:
    if data is not None:
        return data
    pair = DEFAULT_DATA / "parquet"
    if not (pair / "candidate").exists():
        generator = Path(__file__).parents[1] / "tests" / "reference" / "generate.py"
        subprocess.run([sys.executable, str(generator), "--out", str(DEFAULT_DATA)], check=True)
    return pair


class Painted(App[None]):
    """Notes when each frame is painted."""

    frames: list[float]

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        if renderable is not None:
            self.frames.append(time.perf_counter())
        super()._display(screen, renderable)


QUIET_PAUSES = 5  # the app has settled when this many pauses in a row paint nothing
HEAVY_STEP_MS = 500  # the heavy case: no step may stall the app longer


async def measure(comparison: Comparison) -> dict[str, Figure]:
    async def steps(pilot: Pilot, timed: Timed) -> dict[str, Figure]:
        key = presses(pilot)

        async def open_table() -> None:
            await pilot.app.push_screen(RedCasesScreen(comparison))

        figures = {"red table first paint": await timed(open_table)}
        figures["filter pass→fail (key 1)"] = await timed(key("1"))
        figures["clear filter (key 1 again)"] = await timed(key("1"))
        await pilot.press("slash")
        figures["search keystroke"] = await timed(key("9"))
        await timed(key("escape"))  # untimed: the search closes
        figures["open drill-down (enter)"] = await timed(key("enter"))
        assert isinstance(pilot.app.screen, CaseScreen)
        figures["next case (n)"] = await timed(key("n"))
        figures["next rep (])"] = await timed(key("right_square_bracket"))
        figures["diff (d)"] = await timed(key("d"))
        figures["back to table (escape)"] = await timed(key("escape"))
        figures["open drill-down again"] = await timed(key("enter"))
        return figures

    return await run_timed(steps)


def heavy_output(arm: str, lines: int = 2_420) -> str:
    """About 240 KB of JSON, one verdict and reason per rule; the candidate rejects every 37th."""
    rng = random.Random(16)
    verdicts = {
        f"rule_{i}": {
            "verdict": "reject" if arm == "candidate" and i % 37 == 0 else "approve",
            "reason": "x" * rng.randint(20, 80),
        }
        for i in range(lines)
    }
    return json.dumps(verdicts)


def heavy_trajectory(arm: str, turns: int = 200, rep: int | None = None) -> list[dict[str, object]]:
    """A search agent's `turns` turns; the candidate's calls change after turn 120. With `rep`,
    that repetition words a note every tenth turn and its last answer its own way."""
    messages: list[dict[str, object]] = [{"role": "system", "content": "You research orders."}]
    messages.append({"role": "user", "content": "Find every late order of customer C-7."})
    while len(messages) < turns - 1:
        n = len(messages)
        late = not (arm == "candidate" and n > 120)
        call = {"id": f"c{n}", "name": "search_orders", "arguments": {"page": n, "late": late}}
        noted = rep is not None and n % 10 == 0
        note = f"Page {n} next, as planned in step {rep}." if noted else ""
        messages.append({"role": "assistant", "content": note, "tool_calls": [call]})
        result = "\n".join(f"order A-{n}{k}: late by {k} days" for k in range(12))
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    done = "Done." if rep is None else f"Done after {rep} checks."
    messages.append({"role": "assistant", "content": done})
    return messages


def heavy_pair(root: Path) -> tuple[Path, Path]:
    """Two runs of one case: a 240 KB JSON output and a 200-turn trajectory in each arm."""
    paths = []
    for arm in ("baseline", "candidate"):
        row = {
            "case": "heavy-001",
            "passed": arm == "baseline",
            "output": heavy_output(arm),
            "messages": heavy_trajectory(arm),
        }
        folder = root / arm
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(f"run_id: heavy-{arm}\n")
        (folder / "results.jsonl").write_text(json.dumps(row) + "\n")
        paths.append(folder)
    return paths[0], paths[1]


async def measure_heavy(comparison: Comparison) -> dict[str, Figure]:
    async def steps(pilot: Pilot, timed: Timed) -> dict[str, Figure]:
        key = presses(pilot)

        async def open_case() -> None:
            await pilot.app.push_screen(CaseScreen(comparison, "heavy-001"))

        figures = {"open the heavy case": await timed(open_case)}
        figures["next turn (j)"] = await timed(key("j"))
        figures["20 turns on (j x20)"] = await timed(key(*["j"] * 20))
        figures["unfold a turn (enter)"] = await timed(key("enter"))
        figures["turn-by-turn diff (D)"] = await timed(key("D"))
        figures["unified diff of outputs (d)"] = await timed(key("d"))
        figures["side-by-side diff (d)"] = await timed(key("d"))
        figures["outputs again (d)"] = await timed(key("d"))
        figures["scroll to the end (end)"] = await timed(key("end"))
        return figures

    return await run_timed(steps)


LONG_TURNS = 50_000
LONG_STEP_MS = 100  # the long trajectory: no step may stall the app longer


def long_pair(root: Path, turns: int = LONG_TURNS) -> tuple[Path, Path]:
    """Two runs of one case whose trajectories are `turns` turns an arm, forking at turn 30,001."""
    paths = []
    for arm in ("baseline", "candidate"):
        messages: list[dict[str, object]] = [{"role": "user", "content": "Reconcile the ledger."}]
        while len(messages) < turns:
            n = len(messages)
            tool = "post_entry" if arm == "candidate" and n > 30_000 else "check_entry"
            call = {"id": f"c{n}", "name": tool, "arguments": {"entry": n}}
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"entry {n}: ok"})
        row = {"case": "long-001", "passed": arm == "baseline", "messages": messages[:turns]}
        folder = root / arm
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(f"run_id: long-{arm}\n")
        (folder / "results.jsonl").write_text(json.dumps(row) + "\n")
        paths.append(folder)
    return paths[0], paths[1]


async def measure_long(comparison: Comparison) -> dict[str, Figure]:
    async def steps(pilot: Pilot, timed: Timed) -> dict[str, Figure]:
        async def open_case() -> None:
            await pilot.app.push_screen(CaseScreen(comparison, "long-001"))
            await pilot.app.workers.wait_for_complete()  # until the turns are aligned and shown

        figures = {"open the long case": await timed(open_case)}
        figures["next turn (j)"] = await timed(presses(pilot)("j"))
        figures["unfold a turn (enter)"] = await timed(presses(pilot)("enter"))
        return figures

    return await run_timed(steps)


Figure = tuple[float, float]  # ms until the last frame of a step, ms of its longest stall
Timed = Callable[[Callable[[], Awaitable[None]]], Awaitable[Figure]]
TICK = 0.005  # the stall watcher's sleep


def presses(pilot: Pilot) -> Callable[..., Callable[[], Awaitable[None]]]:
    """`key("j", "j")`: a step that presses those keys."""
    return lambda *keys: lambda: pilot.press(*keys)


async def run_timed(
    steps: Callable[[Pilot, Timed], Awaitable[dict[str, Figure]]],
    size: tuple[int, int] = SIZE,
) -> dict[str, Figure]:
    app = Painted()
    app.frames = []
    longest = [0.0]

    async def watch() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            longest[0] = max(longest[0], now - last - TICK)
            last = now

    async with app.run_test(size=size) as pilot:
        watcher = asyncio.create_task(watch())

        async def settle() -> None:
            quiet = 0
            while quiet < QUIET_PAUSES:
                painted = len(app.frames)
                await pilot.pause()
                quiet = quiet + 1 if len(app.frames) == painted else 0

        async def timed(step: Callable[[], Awaitable[None]]) -> Figure:
            """From the start of `step` to the last frame it caused, and its longest stall."""
            app.frames.clear()
            longest[0] = 0.0
            start = time.perf_counter()
            await step()
            await settle()
            return (max(app.frames, default=start) - start) * 1000, longest[0] * 1000

        try:
            return await steps(pilot, timed)
        finally:
            watcher.cancel()


def report(runs: list[dict[str, Figure]]) -> dict[str, Figure]:
    """Print each step's medians (and range); return the medians."""
    print(f"  {'':<30} {'done':>7} {'(min-max)':<13} {'stall':>6}")
    medians = {}
    for name in runs[0]:
        done, stall = ([run[name][i] for run in runs] for i in (0, 1))
        medians[name] = statistics.median(done), statistics.median(stall)
        spread = f"({min(done):.0f}-{max(done):.0f})"
        print(f"  {name:<30} {medians[name][0]:7.0f} {spread:<13} {medians[name][1]:6.0f}")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = ensure_data(args.data)

    start = time.perf_counter()
    comparison = compare(load_run(data / "baseline"), load_run(data / "candidate"), default_spec())
    print(f"load + compare: {time.perf_counter() - start:.2f} s, {comparison.cases.height:,} cases")
    start = time.perf_counter()
    table = red_table(comparison)
    print(f"red_table: {(time.perf_counter() - start) * 1000:.0f} ms, {table.height:,} red cases")
    start = time.perf_counter()
    select_cases(table, CaseQuery(kind="pass_to_fail", search="9", sort="worst"))
    print(f"select_cases (filter + search + sort): {(time.perf_counter() - start) * 1000:.1f} ms")
    start = time.perf_counter()
    case_detail(comparison, table["case"][0])
    print(f"case_detail (the drill-down's data): {(time.perf_counter() - start) * 1000:.1f} ms")

    runs = [asyncio.run(measure(comparison)) for _ in range(args.repeat)]
    print(f"\nheadless at {SIZE[0]}x{SIZE[1]}, median of {args.repeat} (min-max), ms:")
    opened = report(runs)["open drill-down (enter)"][0]

    with tempfile.TemporaryDirectory() as tmp:
        baseline, candidate = heavy_pair(Path(tmp))
        heavy = compare(load_run(baseline), load_run(candidate), default_spec(), load_flaky(None))
    output = len(heavy.run("candidate").texts.every(["output"])["output"][0].encode())
    print(f"\nthe heavy case: a {output / 1000:.0f} KB output, 200 turns an arm, ms:")
    heavy_runs = [asyncio.run(measure_heavy(heavy)) for _ in range(args.repeat)]
    slowest = max(stall for _, stall in report(heavy_runs).values())

    with tempfile.TemporaryDirectory() as tmp:
        baseline, candidate = long_pair(Path(tmp))
        long = compare(load_run(baseline), load_run(candidate), default_spec(), load_flaky(None))
    print(f"\nthe long case: {LONG_TURNS:,} turns an arm, ms:")
    long_runs = [asyncio.run(measure_long(long)) for _ in range(args.repeat)]
    long_stall = max(stall for _, stall in report(long_runs).values())
    met = opened < 200 and slowest < HEAVY_STEP_MS and long_stall < LONG_STEP_MS
    print(
        f"\ntargets: drill-down {opened:.0f} ms < 200, longest stall of the heavy case"
        f" {slowest:.0f} ms < {HEAVY_STEP_MS}, of the long case {long_stall:.0f} ms"
        f" < {LONG_STEP_MS}"
    )
    sys.exit(0 if met else 3)


if __name__ == "__main__":
    main()
