"""SIGINT/SIGTERM outside grading: one line and the shell's exit code, never a traceback.

Installed first thing by both entry points (`waza-ci`, the action's entrypoint), before the heavy
imports, so an interrupt while Python starts up or the modules load does not print a
KeyboardInterrupt traceback. While grading runs, `cancellation.cancel_on_signals` takes over
(graders killed, context directories removed, then `Interrupted`); it puts this handler back
afterwards.
Outside grading nothing needs cleaning up: output files are renamed into place whole, so
stopping at once leaves either the old file or the complete new one.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

HANDLED = (signal.SIGINT, signal.SIGTERM)


def exit_on_signals() -> None:
    """Make SIGINT/SIGTERM end the process at once: one line on stderr, exit 128 + signal."""
    for signum in HANDLED:
        signal.signal(signum, _exit_now)


def _exit_now(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    os.write(2, f"waza-ci: interrupted by {name}; stopped\n".encode())
    os._exit(128 + signum)
