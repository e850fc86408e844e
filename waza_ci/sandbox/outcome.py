"""What one supervised program run produced: exit, output kept, time, and why it stopped."""

from __future__ import annotations

from dataclasses import dataclass

from waza_ci.sandbox.startcheck import StartProblem

DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024  # per stream


@dataclass(frozen=True)
class ProgramOutcome:
    """What one program run produced; `exit_error` is None for exit 0, else Go's error text."""

    exit_error: str | None
    started: bool
    timed_out: bool
    stdout: str
    """What was kept of stdout: all of it, or its head and tail around a cut line
    (capture.py) when it was longer than `output_cap_bytes`."""
    stderr: str
    stdout_dropped_bytes: int
    """Bytes left out between the head and the tail (0 when all was kept)."""
    stderr_dropped_bytes: int
    duration_ms: int
    timeout_s: float | None = None
    """The limit the program ran under (shown in details when it was hit)."""
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES
    """How many bytes per stream are kept at most: the first half and the last half; what
    lies between them is counted and discarded."""
    stdout_dropped_lines: int = 0
    stderr_dropped_lines: int = 0
    cancelled: bool = False
    """Stopped (or never started) because `cancel_all` was called, e.g. on SIGTERM."""
    start_problem: StartProblem | None = None
    """Not started, and the program's file shows why (CRLF line endings, no `#!` line, …)."""

    @property
    def passed(self) -> bool:
        return self.exit_error is None

    @property
    def is_grader_error(self) -> bool:
        """The program could not be judged at all: a failing exit is a grade, these are not."""
        return not self.started or self.timed_out or self.cancelled
