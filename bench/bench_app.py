"""Time to first draw of the gate overview on a big pair of runs, headless.

    uv run python bench/generate.py --cases 100000          # once: writes bench/data/
    uv run python bench/bench_app.py [bench/data/jsonl] [--size 140x45]

Measures, from the moment the app starts: the overview mounted and painted (which includes the
worker reading both runs and comparing them), then how long the app takes to answer a key press
and a theme switch once the overview is up. Then it opens the triage checklist, the reviewer
decision screen from it, and the flaky list (each computes in a worker) and leaving the flaky list
(the gate is applied again): for each, the time until the screen is complete, and the longest the
event loop went without answering, which is how long a key press or a repaint would have waited
(the UI thread's longest stall). Last, outside the app, the triage evidence alone
(`core.triage.evidence`, which the checklist's worker computes): its wall and CPU time, the best
of `--repeat` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from flipgate.core.gate.compare import Comparison
from flipgate.core.triage.evidence import evidence
from flipgate.tui.app import make_app
from flipgate.tui.screens.overview import OverviewScreen

DEFAULT = Path(__file__).resolve().parent / "data" / "jsonl"
TICK = 0.005  # how often the stall watcher asks the event loop for a turn


@asynccontextmanager
async def stall_watch() -> AsyncIterator[list[float]]:
    """Yields a list that holds, on exit, the longest gap between the event loop's turns."""
    longest = [0.0]

    async def watch() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(TICK)
            longest[0] = max(longest[0], time.perf_counter() - before - TICK)

    watcher = asyncio.create_task(watch())
    try:
        yield longest
    finally:
        watcher.cancel()


async def timed_keys(pilot: Pilot[Any], *keys: str) -> tuple[float, float]:
    """Seconds from the keys until every worker they started is done and drawn, and the stall."""
    start = time.perf_counter()
    async with stall_watch() as longest:
        await pilot.press(*keys)
        while pilot.app.workers:
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
        await pilot.pause()
    return time.perf_counter() - start, longest[0]


def time_evidence(comparison: Comparison, repeat: int) -> dict[str, float]:
    """The triage evidence's wall and CPU time (every thread of the process: polars' too)."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        evidence(comparison)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {
        "triage evidence, wall": min(walls),
        "triage evidence, CPU": min(cpus),
        "triage evidence, CPU median": statistics.median(cpus),
    }


async def measure(folder: Path, size: tuple[int, int], repeat: int) -> dict[str, float]:
    app = make_app(folder / "baseline", folder / "candidate")
    app.animation_level = "none"
    start = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        while not (isinstance(app.screen, OverviewScreen) and app.screen.is_mounted):
            if app.load_error is not None:
                raise SystemExit(f"could not open the runs: {app.load_error}")
            await asyncio.sleep(0.005)
        mounted = time.perf_counter()
        await pilot.pause()  # let the first frame paint
        painted = time.perf_counter()
        await pilot.press("tab")
        keyed = time.perf_counter()
        app.use_theme("light")
        await pilot.pause()
        themed = time.perf_counter()
        figures = {
            "overview mounted": mounted - start,
            "overview painted": painted - start,
            "key press answered": keyed - painted,
            "theme switched": themed - keyed,
        }
        steps = (
            ("triage", ("c",)),
            ("decision screen", ("d",)),
            ("flaky list", ("escape", "escape", "f")),
        )
        for name, keys in steps:
            figures[f"{name} complete"], figures[f"{name} longest stall"] = await timed_keys(
                pilot, *keys
            )
        regate = await timed_keys(pilot, "escape")
        figures["gate applied again"], figures["re-gate longest stall"] = regate
        assert isinstance(app.screen, OverviewScreen)
        comparison = app.screen.comparison
    return figures | time_evidence(comparison, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--size", default="140x45")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the triage evidence")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    figures = asyncio.run(measure(args.folder, (width, height), args.repeat))
    for name, seconds in figures.items():
        print(f"{name:<30} {seconds:8.3f} s")


if __name__ == "__main__":
    main()
