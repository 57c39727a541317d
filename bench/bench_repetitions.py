"""How fast every repetition of a long agent case opens and moves: 200 turns, ten repetitions an
arm (twenty columns), each repetition wording its answers its own way and the candidate's calls
changing after turn 120.

    uv run python bench/bench_repetitions.py [--repeat 5]

First the view's data alone (`present.repetitions.grid`: every repetition parsed and every pair
aligned, 190 alignments; what its worker computes), best of `--repeat`. Then, headless at
140x45 and 80x24 (bench_drilldown's timing: from the key to the last frame the app paints for
it, and the longest stall of the event loop meanwhile), opening the view from the drill-down
(`a`), moving down a turn, twenty turns, across every repetition, to the last turn and a page
back. The floor, in the same run: opening the view on a case of one 6-turn repetition an arm
(what pushing a screen costs on this machine at its load). Target: no step stalls the app more
than 100 ms beyond the floor's stall (the grid is built in a worker, only the cells on screen
are drawn, and a cell once drawn is kept).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from bench_drilldown import Figure, Timed, heavy_trajectory, presses, report, run_timed
from textual.app import App
from textual.pilot import Pilot

from flipgate.core.gate.compare import Comparison, compare
from flipgate.core.gate.spec import default_spec
from flipgate.core.runs.reading import load_run
from flipgate.present.casefile import case_detail
from flipgate.present.repetitions import grid, repetitions
from flipgate.tui.screens.case import CaseScreen

TURNS = 200
REPS = 10
STALL_MS = 100  # beyond the floor's: opening the view on a one-repetition case, same run
FLOOR = "floor: open a 6-turn case's (a)"
OPEN = "open every repetition (a)"


def trajectory(arm: str, rep: int, turns: int = TURNS) -> list[dict[str, object]]:
    """The drill-down bench's search agent, each repetition wording its notes its own way."""
    return heavy_trajectory(arm, turns, rep)[:turns]


def long_case(root: Path) -> tuple[Path, Path]:
    """Two runs: the long case, `REPS` repetitions an arm of `TURNS` turns each, and the floor,
    a case of one 6-turn repetition an arm."""
    paths = []
    for arm in ("baseline", "candidate"):
        rows = [
            {
                "case": "agent-001",
                "rep": rep,
                "passed": arm == "baseline" or rep % 3 == 0,
                "messages": trajectory(arm, rep),
            }
            for rep in range(REPS)
        ]
        rows.append(
            {"case": "tiny-001", "rep": 0, "passed": True, "messages": trajectory(arm, 0, 6)}
        )
        folder = root / arm
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(f"run_id: reps-{arm}\n")
        (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(folder)
    return paths[0], paths[1]


async def measure(comparison: Comparison, size: tuple[int, int]) -> dict[str, Figure]:
    async def steps(pilot: Pilot, timed: Timed) -> dict[str, Figure]:
        key = presses(pilot)
        app: App[None] = pilot.app

        async def open_view() -> None:
            await pilot.press("a")
            await app.workers.wait_for_complete()  # until the grid is built and shown

        await app.push_screen(CaseScreen(comparison, "tiny-001"))
        await app.workers.wait_for_complete()
        figures = {FLOOR: await timed(open_view)}
        await pilot.press("escape", "escape")
        await app.push_screen(CaseScreen(comparison, "agent-001"))
        await app.workers.wait_for_complete()
        figures[OPEN] = await timed(open_view)
        figures["next turn (j)"] = await timed(key("j"))
        figures["20 turns on (j x20)"] = await timed(key(*["j"] * 20))
        figures["across 19 reps (l x19)"] = await timed(key(*["l"] * 19))
        figures["last turn (end)"] = await timed(key("end"))
        figures["a page back (pageup)"] = await timed(key("pageup"))
        return figures

    return await run_timed(steps, size=size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        baseline, candidate = long_case(Path(tmp))
        comparison = compare(load_run(baseline), load_run(candidate), default_spec())
        detail = case_detail(comparison, "agent-001")
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            built = grid(repetitions(detail))
            best = min(best, time.perf_counter() - start)
        print(
            f"grid of {len(built.columns)} repetitions x {len(built.cells)} rows "
            f"(parse + every pair aligned): {best * 1000:.0f} ms, best of {args.repeat}; "
            f"{built.turns.said()}"
        )
        worst = 0.0
        for size in ((140, 45), (80, 24)):
            runs = [asyncio.run(measure(comparison, size)) for _ in range(args.repeat)]
            print(f"\nheadless at {size[0]}x{size[1]}, median of {args.repeat} (min-max), ms:")
            medians = report(runs)
            floor = medians[FLOOR][1]
            steps = [stall for name, (_, stall) in medians.items() if name != FLOOR]
            worst = max(worst, max(steps) - floor)
        verdict = "met" if worst <= STALL_MS else "MISSED"
        print(
            f"\nlongest median stall beyond the floor's {worst:.0f} ms; target <= {STALL_MS} ms: {verdict}"
        )


if __name__ == "__main__":
    main()
