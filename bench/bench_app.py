"""Time to first draw of the gate overview on a big pair of runs, and each screen after it, headless.

    uv run python tests/reference/generate.py --out bench/data   # once: 100,000 cases
    uv run python bench/bench_app.py [bench/data/jsonl] [--size 140x45] [--first-paint]

Measures, from the moment the app starts, the two frames `bench/README.md` calls painted: the
loading screen (the runs named, the step under way and its progress; `flipgate open` starts the
app before it reads anything), then the overview mounted and painted with the verdict (which
includes the worker reading both runs and comparing them), split into the app's start (until the loading worker's first step),
reading the spec, the flaky list and both runs (read and checked), `compare()` (until the
worker posts the comparison) and the rest (the overview built and painted); then how long the
app takes to answer a key press and a theme switch once the overview is up. Then it walks the
screens as a reviewer would: the case list (`r`), typing a case id into its search (`/`, a key
at a time), the search of the outputs and reasons (enter), the export of the list (`x`, into a
temporary folder), a case opened (enter), every case listed (`a`, back on the list), the rerun plan priced (`e`), the triage checklist
(`c`), the reviewer decision screen from it (`d`), and the flaky list (`f`) and leaving it (the
gate is applied again). For each: the time until the screen is complete (every worker it started
done and drawn), and the longest the event loop went without a turn, which is how long a key
press or a repaint would have waited (the UI thread's longest stall). Last, outside the app, the
triage evidence alone (`core.triage.evidence`, which the checklist's worker computes): its wall
and CPU time, the best of `--repeat` rounds, on the pair as it is and on the pair made to crowd
two steps (`crowded`).

The suite-health screen needs a suite workspace (`bench/bench_suite_audit.py` times the audit,
and its `generate` writes one): with `--suite FOLDER` this times, instead of the walk, the screen
as the overview opens it (the workspace read and audited in its worker, then the sections
mounted) until complete, and its longest stall.
The candidates screen needs a campaign: with `--campaign FOLDER` (`baseline/` and
`candidates/NAME/`, which may be links to the runs of a pair) this times, instead of the walk,
the candidates screen painted from the app's start (every run read, every candidate compared and
ranked), its longest stall, and the first candidate's overview opened from it (enter).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
from textual.message import Message
from textual.pilot import Pilot

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.flaky import FlakyEntry, FlakyList
from flipgate.core.runs.texts import HeldTexts
from flipgate.core.triage.evidence import evidence
from flipgate.core.vocab import FLIPS
from flipgate.session import GateRequest
from flipgate.tui.app import FlipgateApp
from flipgate.tui.factory import make_app
from flipgate.tui.messages import Loaded, Progress
from flipgate.tui.screens.candidates import CandidatesScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen
from flipgate.tui.screens.suite import SuiteScreen
from flipgate.tui.widgets.progress_line import ProgressLine

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


LISTED = 4000  # flipped cases `crowded` puts on the flaky list


def crowded(comparison: Comparison) -> Comparison:
    """The pair again, with every candidate output the baseline's under another judge (the grader
    step names every flip: the same output graded two ways) and the first flipped cases listed."""
    baseline, candidate = comparison.baseline, comparison.candidate
    ids = ("case", "rep", "line")
    outputs = baseline.texts.beside(baseline.reps.select(ids), ["output"]).drop("line")
    texts = candidate.reps.select(ids).join(outputs, on=["case", "rep"], how="left")
    regraded = replace(
        candidate,
        texts=HeldTexts(texts.select("line", "output", messages=None, extra=None)),
        key={**candidate.key, "judge": "bench-judge-2"},
    )
    flipped = comparison.cases.filter(pl.col("cell").is_in(FLIPS))["case"].head(LISTED)
    added = date(2026, 11, 1)
    listed = FlakyList(tuple(FlakyEntry(c, "bench", added, "noisy", "bench") for c in flipped))
    return compare(baseline, regraded, comparison.spec, listed)


def time_evidence(comparisons: dict[str, Comparison], repeat: int) -> dict[str, float]:
    """The triage evidence's wall and CPU time (every thread of the process: polars' too)."""
    figures = {}
    for name, comparison in comparisons.items():
        walls, cpus = [], []
        for _ in range(repeat):
            wall, cpu = time.perf_counter(), time.process_time()
            evidence(comparison)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        figures[f"triage evidence{name}, wall"] = min(walls)
        figures[f"triage evidence{name}, CPU"] = min(cpus)
    return figures


# The walk after the overview: (what is timed, the keys). The search types a case id that is
# in every generated pair; `x` writes into a temporary folder (see `measure`).
WALK: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("case list", ("r",)),
    ("search, case id typed", ("slash", *"case-00042")),
    ("search, outputs and reasons", ("enter",)),
    ("export of the case list", ("x",)),
    ("a case", ("escape", "enter")),  # escape clears the search, enter opens the case
    ("every case listed", ("escape", "a")),  # back on the case list, `a` lists every case
    ("rerun plan priced", ("escape", "e")),
    ("triage", ("escape", "c")),
    ("decision screen", ("d",)),
    ("flaky list", ("escape", "escape", "f")),
)


async def measure(
    folder: Path, size: tuple[int, int], repeat: int, first_paint: bool = False
) -> dict[str, float]:
    app = make_app(GateRequest.of([folder / "baseline", folder / "candidate"]))
    app.animation_level = "none"
    posted: dict[str, float] = {}  # the loading worker's first messages, by what they say

    def note(message: Message) -> None:
        if isinstance(message, Progress):
            posted.setdefault("read", time.perf_counter())
            if message.description.startswith("pairing"):
                posted.setdefault("compare", time.perf_counter())
        elif isinstance(message, Loaded):
            posted.setdefault("compared", time.perf_counter())

    start = time.perf_counter()
    async with app.run_test(size=size, message_hook=note) as pilot:
        while not isinstance(app.screen, LoadingScreen):
            await asyncio.sleep(0.001)
        await pilot.pause()
        loading = time.perf_counter()
        async with stall_watch() as loading_stall:
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
            "loading screen painted": loading - start,
            "overview mounted": mounted - start,
            "overview painted": painted - start,
            "  app started": posted["read"] - start,
            "  spec, flaky list, runs read": posted["compare"] - posted["read"],
            "  compare()": posted["compared"] - posted["compare"],
            "  overview built and painted": painted - posted["compared"],
            "  longest stall until painted": loading_stall[0],
            "key press answered": keyed - painted,
            "theme switched": themed - keyed,
        }
        if first_paint:
            return figures
        with tempfile.TemporaryDirectory() as exports:
            type(app).export_folder = property(lambda _: Path(exports))  # type: ignore[method-assign,assignment]
            for name, keys in WALK:
                figures[f"{name} complete"], figures[f"{name} longest stall"] = await timed_keys(
                    pilot, *keys
                )
        regate = await timed_keys(pilot, "escape")
        figures["gate applied again"], figures["re-gate longest stall"] = regate
        assert isinstance(app.screen, OverviewScreen)
        comparison = app.screen.comparison
    pairs = {"": comparison, " (crowded)": crowded(comparison)}
    return figures | time_evidence(pairs, repeat)


async def measure_campaign(folder: Path, size: tuple[int, int]) -> dict[str, float]:
    """The candidates screen painted, its longest stall, and the first candidate opened."""
    app = make_app(GateRequest.of([folder], shape="pair_or_campaign"))
    app.animation_level = "none"
    start = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        async with stall_watch() as stall:
            while not (isinstance(app.screen, CandidatesScreen) and app.screen.is_mounted):
                if app.load_error is not None:
                    raise SystemExit(f"could not open the campaign: {app.load_error}")
                await asyncio.sleep(0.005)
            await pilot.pause()
        painted = time.perf_counter() - start
        opened, opened_stall = await timed_keys(pilot, "enter")
        assert isinstance(app.screen, OverviewScreen)
    return {
        "candidates screen painted": painted,
        "candidates longest stall": stall[0],
        "a candidate's overview opened": opened,
        "a candidate's overview longest stall": opened_stall,
    }


class SuiteHealthApp(FlipgateApp):
    """The suite-health screen alone, auditing its workspace in its worker as when the overview
    opens it (`flipgate suite open` audits before the app starts)."""

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace

    def open_first_screen(self) -> None:
        self.push_screen(SuiteScreen(self.workspace))


async def measure_suite(folder: Path, size: tuple[int, int]) -> dict[str, float]:
    """The suite-health screen complete (read, audited, every section mounted) and its stall."""
    app = SuiteHealthApp(folder)
    app.animation_level = "none"
    start = time.perf_counter()
    async with app.run_test(size=size) as pilot:
        async with stall_watch() as stall:
            await pilot.pause()
            while app.workers or any(line.busy for line in app.screen.query(ProgressLine)):
                await app.workers.wait_for_complete()
                await pilot.pause()
        complete = time.perf_counter() - start
        screen = app.screen
        assert isinstance(screen, SuiteScreen) and screen.result is not None
    return {"suite health complete": complete, "suite health longest stall": stall[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--size", default="140x45")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of the triage evidence")
    parser.add_argument("--first-paint", action="store_true", help="stop once the overview is up")
    parser.add_argument("--campaign", action="store_true", help="FOLDER is a campaign workspace")
    parser.add_argument("--suite", action="store_true", help="FOLDER is a suite workspace")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    if args.campaign:
        figures = asyncio.run(measure_campaign(args.folder, (width, height)))
    elif args.suite:
        figures = asyncio.run(measure_suite(args.folder, (width, height)))
    else:
        figures = asyncio.run(measure(args.folder, (width, height), args.repeat, args.first_paint))
    for name, seconds in figures.items():
        print(f"{name:<36} {seconds:8.3f} s")


if __name__ == "__main__":
    main()
