"""One program run's outcome, and how waza's `program` grader reports it (feedback, details).

Pure: the texts are waza's, so a regraded results file reads as if waza had graded it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.sandbox.goexec import go_trim_space

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


def describe_outcome(
    outcome: ProgramOutcome,
    *,
    command: str,
    args: Sequence[str] | None,
    workspace_dir: str,
) -> tuple[str, dict[str, Any]]:
    """The feedback and details waza's program grader reports for this outcome."""
    stdout = go_trim_space(outcome.stdout)
    stderr = go_trim_space(outcome.stderr)
    details: dict[str, Any] = {
        "command": command,
        "args": None if args is None else list(args),
        "stdout": stdout,
        "stderr": stderr,
        "workspace_dir": workspace_dir,
    }
    if outcome.passed:
        feedback = stdout or "Program exited successfully"
    else:
        feedback = f"Program exited with error: {outcome.exit_error}"
        if stderr:
            feedback += f"; stderr: {stderr}"
        details["exit_error"] = outcome.exit_error
    return feedback, details


def outcome_notes(outcome: ProgramOutcome) -> tuple[str, ...]:
    """Facts about the run that waza's `details` has no key for: they go to waza-ci's own
    report, so the regraded results file keeps exactly waza's keys."""
    notes: list[str] = []
    if outcome.timed_out and outcome.timeout_s is not None:
        # Without this, "signal: killed" reads like something else killed the grader.
        notes.append(f"timed out after {_plain_number(outcome.timeout_s)} s")
    for stream, dropped in (
        ("stdout", outcome.stdout_dropped_bytes),
        ("stderr", outcome.stderr_dropped_bytes),
    ):
        if dropped:
            notes.append(
                f"{stream}: kept the first {outcome.output_cap_bytes} bytes; "
                f"{dropped} more were discarded"
            )
    return tuple(notes)


def _plain_number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
