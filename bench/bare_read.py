"""The floor of the gate's benchmark: both results files read whole, and nothing else.

    python bench/bare_read.py {parquet,jsonl} BASELINE CANDIDATE

Parquet with `polars.read_parquet`, JSONL with `pyarrow.json.read_json` (the readers flipgate
uses), every column, one file after the other, both kept, as `flipgate gate` reads them. Prints
the rows.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    fmt, *runs = argv
    if fmt == "parquet":
        import polars as pl

        frames = [pl.read_parquet(Path(run) / "results.parquet") for run in runs]
        print(sum(frame.height for frame in frames))
    else:
        import pyarrow.json as pa_json

        tables = [pa_json.read_json(Path(run) / "results.jsonl") for run in runs]
        print(sum(table.num_rows for table in tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
