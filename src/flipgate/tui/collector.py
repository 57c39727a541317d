"""The cycle collector kept off the event loop while a worker builds something large.

Python's collector runs in whichever thread allocates when it is due, and holds every thread
meanwhile. A worker that builds the rows of a 50,000-turn trajectory makes a million objects,
and the full collections they trigger walk all of them: 80 ms, then 150, then 285 ms (measured,
bench/bench_drilldown.py), each a stall of the event loop the worker was meant to spare. So the
collector is paused while such a worker builds, and what it built is frozen out of the
collector's sight (`gc.freeze`, as the console script does for what its imports build): it holds
no cycle, and is freed by reference counting when the screen lets go of it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_building = 0  # workers inside `building`; the collector resumes when the last one leaves


@contextmanager
def building() -> Iterator[None]:
    """No collection while the block builds; what it built, frozen once it is done."""
    global _building
    with _lock:
        _building += 1
        gc.disable()
    try:
        yield
    finally:
        with _lock:
            _building -= 1
            if _building == 0:
                gc.freeze()
                gc.enable()
