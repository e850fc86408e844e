"""Descriptors of removed context entries, closed in batches on a thread of their own.

Closing the last descriptor of a removed directory is when the file system frees its block,
and on a disk mounted with `discard` (online TRIM) that waits for the device: about a
millisecond on the project's machine, for every grader. A grading thread that waited there
left its core idle between one grader's exit and the next one's start. The entries are
already gone from the file system by then (privatedir.py removes them on the grading thread,
and reports any failure there), so nothing depends on when the descriptors close.

Handing a descriptor over costs a list append under a lock, and the closer wakes at most once
per `BATCH_S`, not once per descriptor: a wake-up and a GIL hand-off per grader cost more than
the close itself when the disk is fast (commit 601e4d7).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable

BATCH_S = 0.02
"""How long the closer lets descriptors gather before it closes them all."""

MAX_PENDING = 256
"""Beyond this many descriptors waiting, the caller closes its own: never a descriptor shortage."""


class DeferredCloser:
    """Closes descriptors soon, on a daemon thread; `flush` closes every one handed over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._has_work = threading.Condition(self._lock)
        self._closing = threading.Lock()  # one batch at a time: flush waits for the one in flight
        self._pending: list[int] = []
        self._thread: threading.Thread | None = None

    def close_soon(self, descriptors: tuple[int, ...]) -> None:
        """Close `descriptors` (each exactly once) within about BATCH_S."""
        with self._lock:
            if len(self._pending) < MAX_PENDING:
                was_empty = not self._pending
                self._pending.extend(descriptors)
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._work, name="waza-ci-closer", daemon=True
                    )
                    self._thread.start()
                if was_empty:
                    self._has_work.notify()
                return
        _close_all(descriptors)

    def flush(self) -> None:
        """Return once every descriptor handed over so far is closed."""
        self._close_pending()

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._has_work.wait()
                # Let the batch gather: the next graders' descriptors join this one wake-up.
                self._has_work.wait(BATCH_S)
            self._close_pending()

    def _close_pending(self) -> None:
        with self._closing:
            with self._lock:
                pending, self._pending = self._pending, []
            _close_all(pending)


def _close_all(descriptors: Iterable[int]) -> None:
    for fd in descriptors:
        with contextlib.suppress(OSError):
            os.close(fd)


CLOSER = DeferredCloser()
