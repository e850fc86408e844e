"""What one supervised program run produced: exit, output kept, time, and why it stopped."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024  # per stream


@dataclass(frozen=True)
class ProgramOutcome:
    """What one program run produced; `exit_error` is None for exit 0, else Go's error text."""

    exit_error: str | None
    started: bool
    timed_out: bool
    stdout: str
    stderr: str
    stdout_dropped_bytes: int
    stderr_dropped_bytes: int
    duration_ms: int
    timeout_s: float | None = None
    """The limit the program ran under (shown in details when it was hit)."""
    output_cap_bytes: int = DEFAULT_OUTPUT_CAP_BYTES
    """How many bytes per stream were kept; more than that were counted and discarded."""
    cancelled: bool = False
    """Stopped (or never started) because `cancel_all` was called, e.g. on SIGTERM."""

    @property
    def passed(self) -> bool:
        return self.exit_error is None

    @property
    def is_grader_error(self) -> bool:
        """The program could not be judged at all: a failing exit is a grade, these are not."""
        return not self.started or self.timed_out or self.cancelled
