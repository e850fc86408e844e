"""The `program` grader: run the grader's program in the sandbox with the agent's output on
stdin, `WAZA_WORKSPACE_DIR` and `WAZA_GRADING_CONTEXT`, and report it in waza's words.

The feedback and details texts are waza's, so a regraded results file reads as if waza had
graded it; what waza has no key for goes to waza-ci's own report as notes. An output longer
than the capture cap is its head and its tail around one cut line (sandbox/capture.py), in
`details` and `feedback` alike: waza keeps every byte, waza-ci keeps memory bounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from waza_ci.english import agreed
from waza_ci.golang.strings import go_trim_space
from waza_ci.graders.base import GraderJob, GraderResult, raw_verdict, regraded_verdict
from waza_ci.sandbox.capture import size_text
from waza_ci.sandbox.outcome import ProgramOutcome
from waza_ci.sandbox.privatedir import ContextFileError, create_context_file, verify_and_remove
from waza_ci.sandbox.program import run_program
from waza_ci.waza.scoring import (
    Diagnosis,
    Problem,
)
from waza_ci.waza.spec import PROGRAM_KIND, GraderSpec, ProgramConfig

WORKSPACE_ENV = "WAZA_WORKSPACE_DIR"
CONTEXT_ENV = "WAZA_GRADING_CONTEXT"


class ProgramGrader:
    """waza's `program` grader kind."""

    kind = PROGRAM_KIND
    needs_context = True
    in_process = False

    def configure(self, grader: GraderSpec) -> ProgramConfig:
        assert grader.program is not None, "the spec loader decodes a program grader's config"
        return grader.program

    def grade(self, job: GraderJob) -> GraderResult:
        program: ProgramConfig = job.config
        setup = job.setup
        try:
            context_file = create_context_file(job.context, setup.temp_dir)
        except ContextFileError as err:
            return _context_failure(job, str(err), details={}, duration_ms=0)
        env = {**setup.env, WORKSPACE_ENV: setup.workspace_dir, CONTEXT_ENV: context_file.path}
        try:
            outcome = run_program(
                (program.command, *(program.args or ())),
                stdin=job.run.final_output.encode("utf-8"),
                env=env,
                cwd=setup.working_directory,
                timeout_s=job.timeout_s,
            )
        finally:
            # Verified and removed whatever happened, so transcript data is never left behind.
            try:
                verify_and_remove(context_file)
                context_error = None
            except ContextFileError as err:
                context_error = str(err)
        feedback, details = describe_outcome(
            outcome, command=program.command, args=program.args, workspace_dir=setup.workspace_dir
        )
        diagnosis = outcome_diagnosis(outcome, job.timeout_source)
        if not outcome.passed:
            # Only a failure asks where its files are: a passing grading never loads this.
            from waza_ci.graders.programs.elsewhere import folder_that_has  # noqa: PLC0415

            words = (program.command, *(program.args or ()))
            found_from = folder_that_has(words, setup.working_directory, job.grader.location.file)
            diagnosis = replace(diagnosis, found_from=found_from)
        notes = outcome_notes(outcome)
        if context_error is not None:
            return _context_failure(
                job, context_error, details, outcome.duration_ms, notes, diagnosis=diagnosis
            )
        raw = raw_verdict(job.grader, outcome.passed, feedback, details, outcome.duration_ms)
        error = feedback if outcome.is_grader_error else None
        verdict = regraded_verdict(raw, error=error, notes=notes, diagnosis=diagnosis)
        return GraderResult(raw, verdict)

    def warnings(self, grader: GraderSpec, config: ProgramConfig) -> tuple[str, ...]:
        return ()

    def cancelled(self, job: GraderJob, message: str) -> GraderResult:
        return _context_failure(job, message, {}, 0, cancelled=True)


def outcome_diagnosis(
    outcome: ProgramOutcome, timeout_source: str, *, trimmed: bool = True
) -> Diagnosis:
    """What the report needs of a process's outcome: its problem (cancelled, not started, timed
    out), exit and output; `trimmed` as waza's program `details` keep the output."""
    problem = (
        Problem.CANCELLED
        if outcome.cancelled
        else Problem.NOT_STARTED
        if not outcome.started
        else Problem.TIMED_OUT
        if outcome.timed_out
        else None
    )
    # Trimmed as waza's `details` keeps them, so a merge of shards rebuilds the same report.
    return Diagnosis(
        exit_error=outcome.exit_error,
        stdout=go_trim_space(outcome.stdout) if trimmed else outcome.stdout,
        stderr=go_trim_space(outcome.stderr) if trimmed else outcome.stderr,
        problem=problem,
        timeout_s=outcome.timeout_s,
        timeout_source=timeout_source,
        start_problem=outcome.start_problem,
    )


def _context_failure(
    job: GraderJob,
    message: str,
    details: dict[str, Any],
    duration_ms: int,
    notes: tuple[str, ...] = (),
    *,
    diagnosis: Diagnosis | None = None,
    cancelled: bool = False,
) -> GraderResult:
    # The message is in the feedback; `details` keeps exactly waza's keys.
    feedback = f"Grading context error: {message}"
    raw = raw_verdict(job.grader, False, feedback, details, duration_ms)
    problem = Problem.CANCELLED if cancelled else Problem.CLEANUP
    diagnosis = replace(diagnosis or Diagnosis(exit_error=None), problem=problem)
    verdict = regraded_verdict(raw, error=feedback, notes=notes, diagnosis=diagnosis)
    return GraderResult(raw, verdict)


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
    half = size_text(outcome.output_cap_bytes // 2)
    for stream, dropped, lines in (
        ("stdout", outcome.stdout_dropped_bytes, outcome.stdout_dropped_lines),
        ("stderr", outcome.stderr_dropped_bytes, outcome.stderr_dropped_lines),
    ):
        if dropped:
            notes.append(
                f"{stream}: {dropped:,} {agreed(dropped, 'byte')}"
                f" ({lines:,} {agreed(lines, 'line')}) in the middle were not kept;"
                f" waza-ci keeps the first and last {half} of each output stream"
            )
    return tuple(notes)


def _plain_number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
