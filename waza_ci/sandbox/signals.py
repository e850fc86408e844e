"""SIGINT/SIGTERM outside grading: one line and the shell's exit code, never a traceback; and the
process's end once everything is written (`end_process`).

Installed first thing by both entry points (`waza-ci`, the action's entrypoint), before the heavy
imports, so an interrupt while Python starts up or the modules load does not print a
KeyboardInterrupt traceback. While grading runs, `cancellation.cancel_on_signals` takes over
(graders killed, context directories removed, then `Interrupted`); it puts this handler back
afterwards.
Outside grading nothing needs cleaning up: output files are renamed into place whole, so
stopping at once leaves either the old file or the complete new one.

Graders start with the signal dispositions a program started by waza gets. An ignored signal
stays ignored across exec, so a waza-ci started as a background job or under `nohup` (SIGINT,
SIGQUIT or SIGHUP ignored) would pass that on to every grader, and a grader's own SIGQUIT
would not dump core. Go's runtime (runtime/signal_unix.go, initsig and sigInstallGoHandler)
installs a handler for every signal but SIGHUP and SIGINT when they were ignored at start, the
job-control signals (SIGTSTP, SIGCONT, SIGTTIN, SIGTTOU) and the C library's own (32 to 34);
a forked child resets every handled signal to the default before exec (clearSignalHandlers).
So under waza a grader inherits those few as they were, and gets every other signal at its
default. waza-ci does the same: every other ignored signal gets a handler that does nothing
(waza-ci still ignores it, but a handler does not survive exec). SIGINT has its own handler
here, as it has in a Go program that asks for it; SIGPIPE and SIGXFSZ, which Python ignores for
itself, `subprocess` resets in the child.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType
from typing import NoReturn

HANDLED = (signal.SIGINT, signal.SIGTERM)


def exit_on_signals() -> None:
    """Make SIGINT/SIGTERM end the process at once: one line on stderr, exit 128 + signal;
    and let graders start with the signals waza-ci's parent ignored at their defaults."""
    for signum in HANDLED:
        signal.signal(signum, _exit_now)
    unignore_for_children()


# Kept as they are: what Go leaves alone (see above), and SIGPIPE and SIGXFSZ, which Python
# ignores for itself and subprocess (restore_signals) resets in the child.
_KEPT = frozenset(
    (
        signal.SIGHUP,
        signal.SIGINT,
        signal.SIGTSTP,
        signal.SIGCONT,
        signal.SIGTTIN,
        signal.SIGTTOU,
        *range(32, 35),
        signal.SIGPIPE,
        signal.SIGXFSZ,
    )
)


def unignore_for_children() -> None:
    """Replace SIG_IGN with a handler that does nothing, for every signal but `_KEPT`: this
    process goes on ignoring it, and a program it starts gets the default, as under waza. Only
    from the main thread (Python's rule for signal handlers)."""
    for signum in signal.valid_signals():
        if signum in _KEPT or signal.getsignal(signum) != signal.SIG_IGN:
            continue
        try:
            signal.signal(signum, _ignore)
        except (OSError, ValueError):  # not catchable (SIGKILL, SIGSTOP)
            continue


def _ignore(_signum: int, _frame: FrameType | None) -> None:
    """Nothing: a signal waza-ci's parent ignored is still ignored here."""


def _exit_now(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    os.write(2, f"waza-ci: interrupted by {name}; stopped\n".encode())
    os._exit(128 + signum)


EXIT_UNFLUSHED = 120
"""What CPython exits with when flushing the standard streams at exit fails."""


def end_process(code: int) -> NoReturn:
    """Both entry points' last step: flush stdout and stderr and exit with `code` at once.

    Everything is written by then (output files are renamed into place whole, grading has
    joined its threads and removed every context directory), so the interpreter's own teardown
    would only free every loaded object one by one and walk them with the cyclic collector
    (its cost: benchmarks/README.md, "Per run"). A stream that
    cannot be flushed (a closed pipe) turns a passing exit into CPython's 120, as it would."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # started with the descriptor closed: nothing was written to it
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe, or a stream closed by its reader
            code = code or EXIT_UNFLUSHED
    os._exit(code)
