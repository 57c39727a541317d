"""A request's inputs read once and kept for other processes to map, read-only: `flipgate serve`
reads the runs before it starts, and each browser tab's `flipgate open` takes them from here
rather than reading and checking every file again.

Each frame is an uncompressed Arrow IPC file that a tab maps (pyarrow's `memory_map`, then
`polars.from_arrow` without a copy; polars' own `read_ipc` copies every buffer): the pages come
from the one copy in the operating system's cache, shared by every tab, and a tab pays no parse.
On the 100,000-case pair, a tab's largest frame (71 MB) was mapped in 0.02 s adding 19 MB of its
own memory (its categories), where `read_ipc` took 0.18 s and 74 MB. The rest of the inputs (the
request, the spec, the lists, the manifests) is small and pickled beside them, each frame by its
file's number. The folder is private (mode 0700, made by the serving process), and only what that
process wrote there is ever unpickled.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import polars as pl
import pyarrow as pa

from flipgate.session.reading import CampaignInputs, GateInputs

Inputs = GateInputs | CampaignInputs
_INPUTS = "inputs.pickle"


def keep(inputs: Inputs, folder: Path) -> None:
    """Write `inputs` into `folder` (private, empty) for `kept` to map. A part that cannot be
    pickled (a ledger's open connection) raises `TypeError` or `pickle.PicklingError`."""
    frames: list[pl.DataFrame] = []

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: object) -> int | None:
            if not isinstance(obj, pl.DataFrame):
                return None
            frames.append(obj)
            return len(frames) - 1

    with (folder / _INPUTS).open("wb") as out:
        _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(inputs)
    for number, frame in enumerate(frames):
        frame.write_ipc(_frame(folder, number), compression="uncompressed")


def kept(folder: Path) -> Inputs:
    """The inputs `keep` wrote into `folder`, each frame mapped, not copied."""

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: object) -> pl.DataFrame:
            assert isinstance(pid, int)
            table = pa.ipc.open_file(pa.memory_map(str(_frame(folder, pid)))).read_all()
            frame = pl.from_arrow(table, rechunk=False)
            assert isinstance(frame, pl.DataFrame)
            return frame

    with (folder / _INPUTS).open("rb") as source:
        inputs = _Unpickler(source).load()
    assert isinstance(inputs, GateInputs | CampaignInputs)
    return inputs


def _frame(folder: Path, number: int) -> Path:
    return folder / f"frame-{number}.arrow"
