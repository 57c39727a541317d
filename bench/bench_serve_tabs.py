"""What a `flipgate serve` tab pays for its inputs: read (every file parsed and checked, as a tab
did before) against mapped from what serve read once and kept (`session/kept.py`).

    flock /work/wt/bench.lock uv run python bench/bench_serve_tabs.py /work/benchdata/1m/parquet

Serve's one `keep` is timed in this process; each tab is a fresh process, read then mapped, for
`--rounds` rounds: its wall time and the memory it holds of its own (RssAnon: the mapped
frames' pages are the page cache's, which every tab shares).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def own_memory_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("RssAnon"):
                return int(line.split()[1]) / 1e3
    return 0.0


def tab(how: str, where: Path) -> None:
    """One tab's inputs, `read` from the pair at `where` or `kept` in the folder `where`."""
    from flipgate.session import GateRequest, read
    from flipgate.session.kept import kept

    before, start = own_memory_mb(), time.perf_counter()
    if how == "read":
        read(GateRequest.of([where / "baseline", where / "candidate"]))
    else:
        kept(where)
    took = time.perf_counter() - start
    print(f"{how:5} {took:.2f} s, own memory +{own_memory_mb() - before:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pair", type=Path, help="a folder with baseline/ and candidate/")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tab", choices=("read", "kept"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tab is not None:
        tab(args.tab, args.pair)
        return
    from flipgate.session import GateRequest, read
    from flipgate.session.kept import keep

    folder = Path(tempfile.mkdtemp(prefix="flipgate-bench-"))
    try:
        inputs = read(GateRequest.of([args.pair / "baseline", args.pair / "candidate"]))
        start = time.perf_counter()
        keep(inputs, folder)
        size = sum(f.stat().st_size for f in folder.iterdir()) / 1e9
        print(f"keep  {time.perf_counter() - start:.2f} s once, {size:.2f} GB")
        del inputs
        for _ in range(args.rounds):
            for how, where in (("read", args.pair), ("kept", folder)):
                command = [sys.executable, __file__, str(where), "--tab", how]
                subprocess.run(command, check=True)
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
