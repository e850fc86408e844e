"""The cyclic garbage collector, kept out of the way of loading, grading and writing.

waza-ci allocates millions of containers (a results file's JSON, its validated models, the
verdicts) and frees almost none of them before the process ends; none of them form cycles
worth collecting. The collector would walk all of them again at every collection: measured,
it more than doubled a merge's time, added a quarter to in-process grading, 0.12 s to loading
100 MB of results, and 10 ms to importing the modules a grading needs (benchmarks/README.md).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside the block; the collector runs again afterwards if it ran before
    (a library caller's process keeps its collector)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def off_for_this_process() -> None:
    """For the two entry points, first thing: the process grades once and ends with
    `os._exit` (sandbox.signals.end_process), so nothing it allocates needs collecting, not
    even what importing the engine allocates."""
    gc.disable()
