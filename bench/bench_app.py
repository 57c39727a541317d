"""Time to first draw of the gate overview on a big pair of runs, headless.

    uv run python bench/generate.py --cases 100000          # once: writes bench/data/
    uv run python bench/bench_app.py [bench/data/jsonl] [--size 140x45]

Measures, from the moment the app starts: the overview mounted and painted (which includes the
worker reading both runs and comparing them), then how long the app takes to answer a key press
and a theme switch once the overview is up.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from flipgate.tui.app import make_app
from flipgate.tui.screens.overview import OverviewScreen

DEFAULT = Path(__file__).resolve().parent / "data" / "jsonl"


async def measure(folder: Path, size: tuple[int, int]) -> dict[str, float]:
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
    return {
        "overview mounted": mounted - start,
        "overview painted": painted - start,
        "key press answered": keyed - painted,
        "theme switched": themed - keyed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--size", default="140x45")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))
    figures = asyncio.run(measure(args.folder, (width, height)))
    for name, seconds in figures.items():
        print(f"{name:<20} {seconds:8.3f} s")


if __name__ == "__main__":
    main()
