"""Why a verdict did not pass, in one line, and what to do about it. Pure.

The reason is the most informative line of what the grader said (telling.py): the last
assertion-like line of stderr (then stdout), else its last error-like line, else its last
failure summary, else its last non-empty line; else the exit text.
Grader errors get a reason of our own words ("timed out after 30 s (limit from …)") and a hint.
Reasons are untrusted text (they quote the grader); hints are our own fixed sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from waza_ci.report._text import one_line, shorten
from waza_ci.report.telling import telling_line
from waza_ci.waza.scoring import (
    PROBLEM_CANCELLED,
    PROBLEM_NOT_STARTED,
    PROBLEM_TIMED_OUT,
    Diagnosis,
    Verdict,
)

REASON_MAX_CHARS = 240

_COMMAND_NOT_FOUND = re.compile(r'^exec: "(?P<name>.*)": executable file not found in \$PATH$')
_NO_SUCH_DIR = re.compile(r"^chdir (?P<path>.*): no such file or directory$")
_PERMISSION = re.compile(r"^(?:fork/exec|exec:?) (?P<path>.*): permission denied$")
# An interpreter that cannot find the script it was given: python3's `can't open file`,
# node's `Cannot find module`, a shell's `bash: graders/x.sh: No such file or directory`.
_MISSING_SCRIPT = re.compile(
    r"can't open file|Cannot find module|^[\w./-]+: [^:]+: No such file or directory$"
)
_MISSING_MODULE = re.compile(r"ModuleNotFoundError|No module named|Cannot find package")

HINT_NOT_FOUND = (
    "install it in the job (or the image), or check PATH; "
    "a relative path in command is resolved from working-directory"
)
HINT_NO_DIR = "set working-directory to a folder that exists in the checkout"
HINT_PERMISSION = "make the file executable (chmod +x), or run it through its interpreter"
HINT_NOT_STARTED = "check the grader's command and the job's environment"
HINT_TIMEOUT = (
    "make the grader faster, or raise its config.timeout (or graders.programTimeout in .waza.yaml)"
)
HINT_CANCELLED = "the job was cancelled while grading; run it again"
HINT_CLEANUP = (
    "graders must only read WAZA_GRADING_CONTEXT: this one moved, replaced or deleted "
    "its context file or directory"
)
HINT_MISSING_FILE = (
    "the grader's paths are resolved from working-directory: set working-directory "
    "to the folder its args are relative to"
)
HINT_MISSING_MODULE = "install the module the grader imports in the job (or the image)"
HINT_SAME_FAILURE = (
    "when every grader fails the same way the cause is usually the setup, not the graders: "
    "check working-directory and that the interpreter is installed in the job"
)


@dataclass(frozen=True)
class Reason:
    """One line saying why, and, for what the setup can fix, what to do."""

    text: str
    hint: str | None = None


def reason_for(verdict: Verdict) -> Reason:
    """The reason a verdict did not pass (or errored)."""
    diagnosis = verdict.diagnosis
    if diagnosis is None:  # a kept verdict: only its feedback is known
        return Reason(_short(telling_line(verdict.error or verdict.feedback)) or "no feedback")
    if diagnosis.problem is not None:
        return _problem_reason(verdict, diagnosis)
    line = telling_line(diagnosis.stderr) or telling_line(diagnosis.stdout)
    exit_text = diagnosis.exit_error or "exit status 0"
    if not line:
        return Reason(f"{exit_text}, no output")
    return Reason(_short(line), _failure_hint(line))


def _problem_reason(verdict: Verdict, diagnosis: Diagnosis) -> Reason:
    """Grader errors: our own words, and what to do."""
    if diagnosis.problem == PROBLEM_TIMED_OUT:
        limit = format_seconds(diagnosis.timeout_s)
        source = diagnosis.timeout_source or "waza's default"
        return Reason(f"timed out after {limit} (limit from {source})", HINT_TIMEOUT)
    if diagnosis.problem == PROBLEM_NOT_STARTED:
        return _not_started(diagnosis.exit_error or "")
    if diagnosis.problem == PROBLEM_CANCELLED:
        return Reason("cancelled before it finished", HINT_CANCELLED)
    return Reason(_short(verdict.error or "grading-context error"), HINT_CLEANUP)


def _not_started(exit_error: str) -> Reason:
    text = one_line(exit_error)
    match = _COMMAND_NOT_FOUND.match(text)
    if match:
        return Reason(f"command not found: {match['name']}", HINT_NOT_FOUND)
    match = _NO_SUCH_DIR.match(text)
    if match:
        return Reason(f"working directory not found: {match['path']}", HINT_NO_DIR)
    match = _PERMISSION.match(text)
    if match:
        return Reason(f"not executable: {match['path']}", HINT_PERMISSION)
    return Reason(_short(text) or "could not start", HINT_NOT_STARTED)


def _failure_hint(line: str) -> str | None:
    """Hints for failures that are usually the job's setup rather than the agent's work."""
    if _MISSING_MODULE.search(line):
        return HINT_MISSING_MODULE
    if _MISSING_SCRIPT.search(line):
        return HINT_MISSING_FILE
    return None


def _short(text: str) -> str:
    return shorten(one_line(text), REASON_MAX_CHARS)


def failure_signature(reason: str) -> str:
    """`reason` with paths and quoted names blanked, so that one setup problem hitting
    different graders (each with its own script path) reads as one."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "…", reason)
    return re.sub(r"(?:[\w.-]*/)+[\w.-]+", "…", text)


def format_seconds(seconds: float | None) -> str:
    """`30 s`, `0.5 s`; an unknown limit reads `its limit`."""
    if seconds is None:
        return "its limit"
    return f"{seconds:g} s"


def format_duration(ms: int) -> str:
    """`850 ms`, `3.2 s`, `2 min 05 s`."""
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes} min {seconds:02d} s"
