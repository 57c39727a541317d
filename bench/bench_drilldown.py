"""How fast the red-case table paints and a case drill-down opens, on a 100,000-case pair.

    uv run python bench/bench_drilldown.py [--data DIR] [--repeat 5]

DIR holds baseline/ and candidate/ runs (default: /tmp/flipgate-bench/parquet, written by
bench/generate.py when missing). Everything runs headless (`App.run_test`) at 140x45. Each step is
timed from the key press to the last frame the app paints for it: headless, Textual still builds
every frame (the compositor renders each visible line) and only skips writing it to a terminal,
so the time up to the last frame is the time until the screen is complete and still.
Targets: a drill-down opens in under 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from rich.console import RenderableType
from textual.app import App
from textual.screen import Screen

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.present.casefile import CaseQuery, case_detail, red_table, select_cases
from flipgate.tui.screens.case import CaseScreen
from flipgate.tui.screens.red_cases import RedCasesScreen

DEFAULT_DATA = Path("/tmp/flipgate-bench")
SIZE = (140, 45)


def ensure_data(data: Path | None) -> Path:
    if data is not None:
        return data
    pair = DEFAULT_DATA / "parquet"
    if not (pair / "candidate").exists():
        generator = Path(__file__).with_name("generate.py")
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


async def measure(comparison: Comparison) -> dict[str, float]:
    app = Painted()
    app.frames = []
    async with app.run_test(size=SIZE) as pilot:

        async def settle() -> None:
            quiet = 0
            while quiet < QUIET_PAUSES:
                painted = len(app.frames)
                await pilot.pause()
                quiet = quiet + 1 if len(app.frames) == painted else 0

        async def timed(step: Callable[[], Awaitable[None]]) -> float:
            """From the start of `step` to the last frame it caused."""
            app.frames.clear()
            start = time.perf_counter()
            await step()
            await settle()
            return (max(app.frames, default=start) - start) * 1000

        async def open_table() -> None:
            await app.push_screen(RedCasesScreen(comparison))

        def key(*keys: str) -> Callable[[], Awaitable[None]]:
            return lambda: pilot.press(*keys)

        figures = {"red table first paint": await timed(open_table)}
        figures["filter pass→fail (key 1)"] = await timed(key("1"))
        figures["clear filter (key 1 again)"] = await timed(key("1"))
        await pilot.press("slash")
        figures["search keystroke"] = await timed(key("9"))
        await pilot.press("escape")
        await settle()
        figures["open drill-down (enter)"] = await timed(key("enter"))
        assert isinstance(app.screen, CaseScreen)
        figures["next case (n)"] = await timed(key("n"))
        figures["next rep (])"] = await timed(key("right_square_bracket"))
        figures["diff (d)"] = await timed(key("d"))
        figures["back to table (escape)"] = await timed(key("escape"))
        figures["open drill-down again"] = await timed(key("enter"))
    return figures


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
    for name in runs[0]:
        values = [run[name] for run in runs]
        print(
            f"  {name:<28} {statistics.median(values):7.0f}   ({min(values):.0f}-{max(values):.0f})"
        )


if __name__ == "__main__":
    main()
