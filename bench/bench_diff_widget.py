"""Why the drill-down does not use textual-diff-view: the time it takes to show a 240 KB diff.

    uv run --with textual-diff-view==0.1.5 python bench/bench_diff_widget.py

The same two outputs as bench_drilldown.py's heavy case (about 240 KB of JSON each, indented as
the drill-down shows them: about 9,200 lines), in textual-diff-view's `DiffView`, headless at
140x45: the time from mounting to the first paint, and of one page down, for its split and unified
layouts, wrapped and not. Not a dependency of flipgate: `--with` brings it for this run only.
"""

from __future__ import annotations

import asyncio
import json
import time

from bench_drilldown import SIZE, heavy_output
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual_diff_view import DiffView


def indented(arm: str) -> str:
    return json.dumps(json.loads(heavy_output(arm)), indent=2)


async def timed(split: bool, wrap: bool, baseline: str, candidate: str) -> tuple[float, float]:
    class Diff(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield DiffView("baseline", "candidate", baseline, candidate, split=split, wrap=wrap)

    start = time.perf_counter()
    async with Diff().run_test(size=SIZE) as pilot:
        await pilot.pause()
        first = time.perf_counter() - start
        start = time.perf_counter()
        await pilot.press("pagedown")
        await pilot.pause()
        return first, time.perf_counter() - start


def main() -> None:
    baseline, candidate = indented("baseline"), indented("candidate")
    print(f"{len(candidate) / 1000:.0f} KB, {candidate.count(chr(10)) + 1:,} lines an output")
    for split in (True, False):
        for wrap in (True, False):
            first, page = asyncio.run(timed(split, wrap, baseline, candidate))
            layout = f"{'split' if split else 'unified'}, {'wrapped' if wrap else 'not wrapped'}"
            print(f"  {layout:<22} first paint {first:6.1f} s   page down {page:5.1f} s")


if __name__ == "__main__":
    main()
