"""The `program` grader kind: waza's feedback and details for an outcome, and the report's notes."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from waza_ci.graders.programs.program import describe_outcome, outcome_notes
from waza_ci.sandbox.outcome import ProgramOutcome
from waza_ci.sandbox.program import run_program

PASSED = ProgramOutcome(
    exit_error=None,
    started=True,
    timed_out=False,
    stdout="",
    stderr="",
    stdout_dropped_bytes=0,
    stderr_dropped_bytes=0,
    duration_ms=12,
    timeout_s=30,
)


def describe(
    outcome: ProgramOutcome, args: list[str] | None = None
) -> tuple[str, dict[str, object]]:
    return describe_outcome(outcome, command="python3", args=args, workspace_dir="/ws")


def test_success_feedback_is_trimmed_stdout() -> None:
    outcome = replace(PASSED, stdout="\n  All checks passed \n", stderr=" note \n")
    feedback, details = describe(outcome, args=["graders/check.py"])
    assert feedback == "All checks passed"
    assert details == {
        "command": "python3",
        "args": ["graders/check.py"],
        "stdout": "All checks passed",
        "stderr": "note",
        "workspace_dir": "/ws",
    }


def test_success_without_stdout_says_so() -> None:
    feedback, details = describe(replace(PASSED, stdout=" \n\t"))
    assert feedback == "Program exited successfully"
    assert details["stdout"] == ""
    assert details["args"] is None
    assert "exit_error" not in details


def test_failure_feedback_has_the_error_and_stderr_but_not_stdout() -> None:
    outcome = replace(
        PASSED, exit_error="exit status 1", stdout="partial\n", stderr="README.md not found\n"
    )
    feedback, details = describe(outcome, args=[])
    assert feedback == "Program exited with error: exit status 1; stderr: README.md not found"
    assert details == {
        "command": "python3",
        "args": [],
        "stdout": "partial",
        "stderr": "README.md not found",
        "workspace_dir": "/ws",
        "exit_error": "exit status 1",
    }


def test_failure_without_stderr_has_only_the_error() -> None:
    feedback, details = describe(replace(PASSED, exit_error="exit status 2", stderr="\n \n"))
    assert feedback == "Program exited with error: exit status 2"
    assert details["exit_error"] == "exit status 2"


def test_trimming_uses_go_white_space() -> None:
    # Go trims NBSP and ideographic space but keeps the ASCII separator controls.
    feedback, _ = describe(replace(PASSED, stdout="\u00a0ok\u3000"))
    assert feedback == "ok"
    feedback, _ = describe(replace(PASSED, stdout="\x1fok\x1f"))
    assert feedback == "\x1fok\x1f"


WAZA_DETAIL_KEYS = {"command", "args", "stdout", "stderr", "workspace_dir"}


def test_a_cut_is_a_report_note_only_for_the_stream_that_was_cut() -> None:
    outcome = replace(PASSED, stdout="x", stdout_dropped_bytes=123_456, stdout_dropped_lines=1)
    assert outcome_notes(outcome) == (
        "stdout: 123,456 bytes (1 line) in the middle were not kept; waza-ci keeps the first"
        " and last 512 KiB of each output stream",
    )
    assert set(describe(outcome)[1]) == WAZA_DETAIL_KEYS
    outcome = replace(PASSED, stderr_dropped_bytes=7, stderr_dropped_lines=2, output_cap_bytes=10)
    assert outcome_notes(outcome) == (
        "stderr: 7 bytes (2 lines) in the middle were not kept; waza-ci keeps the first and"
        " last 5 bytes of each output stream",
    )


def test_a_long_output_keeps_its_end_in_feedback_and_details() -> None:
    # 1.4 MiB of stderr ending with the assertion: waza's texts are built from the head and the
    # tail around one cut line, so the assertion is in `feedback` and `details.stderr`.
    grader = (
        "import sys\n"
        "for i in range(1, 5000):\n"
        "    sys.stderr.write('line %05d: %s\\n' % (i, 'x' * 280))\n"
        "sys.stderr.write('AssertionError: expected 42 got 41\\n')\n"
        "sys.exit(1)\n"
    )
    outcome = run_program([sys.executable, "-c", grader], stdin=b"", env={}, cwd="/", timeout_s=30)
    feedback, details = describe(outcome)
    assert feedback.startswith("Program exited with error: exit status 1; stderr: line 00001: ")
    assert feedback.endswith("\nAssertionError: expected 42 got 41")
    assert details["stderr"] == feedback.partition("; stderr: ")[2]
    cut = [line for line in details["stderr"].split("\n") if line.startswith("... ")]
    assert cut == [
        f"... {outcome.stderr_dropped_lines:,} lines cut ({outcome.stderr_dropped_bytes:,} bytes):"
        " waza-ci keeps the first and last 512 KiB of each output stream ..."
    ]
    assert set(details) == WAZA_DETAIL_KEYS | {"exit_error"}
    assert outcome_notes(outcome) == (
        f"stderr: {outcome.stderr_dropped_bytes:,} bytes ({outcome.stderr_dropped_lines:,} lines)"
        " in the middle were not kept; waza-ci keeps the first and last 512 KiB of each output"
        " stream",
    )


def test_a_timeout_is_a_report_note_and_details_keep_exactly_wazas_keys() -> None:
    outcome = replace(PASSED, exit_error="signal: killed", timed_out=True, timeout_s=30)
    feedback, details = describe(outcome)
    assert feedback == "Program exited with error: signal: killed"
    # waza's program grader writes exactly these keys; `timeout_s` is not one of them.
    assert set(details) == WAZA_DETAIL_KEYS | {"exit_error"}
    assert outcome_notes(outcome) == ("timed out after 30 s",)
    assert outcome_notes(PASSED) == ()


def test_a_program_that_could_not_start_is_described_like_waza(tmp_path: Path) -> None:
    outcome = run_program(
        ["no-such-grader"], stdin=b"", env={"PATH": str(tmp_path)}, cwd="/", timeout_s=20
    )
    feedback, details = describe_outcome(
        outcome, command="no-such-grader", args=None, workspace_dir="."
    )
    assert feedback == (
        'Program exited with error: exec: "no-such-grader": executable file not found in $PATH'
    )
    assert details["exit_error"] == 'exec: "no-such-grader": executable file not found in $PATH'
    assert details["stdout"] == "" and details["stderr"] == ""
