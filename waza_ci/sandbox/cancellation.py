"""The process-wide "stop every program now", and the signal handlers that request it.

Cancelling kills no process itself: every running program's supervisor (program.py) watches the
wake-up pipe and kills its own group, and `run_program` starts nothing once it is set.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator, Sequence


class _Cancellation:
    """A process-wide "stop every program now": an event for checks, and a pipe that every
    supervisor's selector watches, so a blocked select wakes at once."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._write_fd, False)
        self.signum: int | None = None

    def cancel(self, signum: int | None = None) -> None:
        if self.signum is None:
            self.signum = signum
        self._event.set()
        with contextlib.suppress(BlockingIOError):
            os.write(self._write_fd, b"x")  # stays readable: every selector sees it

    @property
    def requested(self) -> bool:
        return self._event.is_set()


_cancellation = _Cancellation()


def cancel_all(signum: int | None = None) -> None:
    """Kill every running program's group and start no new one (safe in a signal handler)."""
    _cancellation.cancel(signum)


def cancellation_signal() -> int | None:
    """The signal that cancelled grading, or None when it was not cancelled (or by no signal)."""
    return _cancellation.signum


def cancelled() -> bool:
    return _cancellation.requested


def wakeup_fd() -> int:
    """A descriptor that turns readable, and stays so, once grading is cancelled: a supervisor
    selects on it so that a blocked wait ends at once."""
    return _cancellation.read_fd


@contextlib.contextmanager
def cancel_on_signals(signums: Sequence[int] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM/SIGINT cancel all programs instead
    of killing us mid-way: their private context directories still get removed."""

    def handler(signum: int, _frame: object) -> None:
        cancel_all(signum)

    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
