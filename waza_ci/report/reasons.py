"""Why a verdict did not pass, in one line, and what to do about it. Pure.

The reason is the most informative line of what the grader said (telling.py): the last
assertion-like line of stderr (then stdout), else its last error-like line, else its last
failure summary, else its last non-empty line; else the exit text.
Grader errors get a reason of our own words ("timed out after 30 s (limit from …)") and a hint.
Reasons are untrusted text (they quote the grader); hints are our own fixed sentences.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from waza_ci.errors import WINDOWS_PATH_HINT, windows_path
from waza_ci.report.telling import telling_line
from waza_ci.report.text_safety import ELLIPSIS, one_line, shorten
from waza_ci.report.widths import MODEL_REASON
from waza_ci.sandbox.startcheck import StartProblem
from waza_ci.waza.scoring import (
    Diagnosis,
    GraderVerdict,
    Problem,
)

_COMMAND_NOT_FOUND = re.compile(r'^exec: "(?P<name>.*)": executable file not found in \$PATH$')
_NO_SUCH_DIR = re.compile(r"^chdir (?P<path>.*): no such file or directory$")
_PERMISSION = re.compile(r"^(?:fork/exec|exec:?) (?P<path>.*): permission denied$")
# An interpreter that cannot find the script it was given: python3's `can't open file`,
# node's `Cannot find module`, a shell's `bash: graders/x.sh: No such file or directory` or
# dash's `sh: 0: cannot open graders/x.sh: No such file`. Only a shell's own words count: a
# grader's `cat: CHANGELOG.md: No such file or directory` is the agent's work, not the setup.
_SHELL = r"^(?:\S*/)?(?:ba|da|z|k)?sh: (?:\d+: )?(?:line \d+: )?"
_MISSING_SCRIPT = re.compile(
    rf"can't open file|Cannot find module|{_SHELL}(?:[Cc]an(?:'t|not) open )?\S+: "
    r"No such file(?: or directory)?$|^(?:\S*/)?(?:ba|da|z|k)?sh: (?:\d+: )?[Cc]an't open \S+$"
)
# A shell asked to run a command that is not installed (exit status 127).
_SHELL_NOT_FOUND = re.compile(rf"{_SHELL}(?P<name>\S+): (?:command )?not found$")
_MISSING_MODULE = re.compile(r"ModuleNotFoundError|No module named|Cannot find package")
# A grader checked in process that could not read a file its config names (a SKILL.md, a
# schema file): Go's `open …: no such file or directory`, in waza's error text.
_CONFIG_FILE_MISSING = re.compile(r": no such file or directory$")

HINT_NOT_FOUND = (
    "install it in the job (or the image), or check PATH; "
    "a relative path in command is resolved from working-directory"
)
HINT_NO_DIR = "set working-directory to a folder that exists in the checkout"
HINT_PERMISSION = "make the file executable (chmod +x), or run it through its interpreter"
HINT_NOT_STARTED = "check the grader's command and the job's environment"
# What the program's own file showed of a failed start (sandbox/startcheck.py); waza's error
# text ("fork/exec ./check.sh: no such file or directory") stays the reason.
START_HINTS: Mapping[str, str] = {
    StartProblem.CRLF_LINE_ENDINGS: (
        "convert line endings to LF: the script has Windows line endings (CRLF), so its #! "
        "line names an interpreter ending in \\r, which does not exist (`dos2unix FILE`, or "
        "`sed -i 's/\\r$//' FILE`; `*.sh text eol=lf` in .gitattributes keeps them LF)"
    ),
    StartProblem.NO_INTERPRETER_LINE: (
        "add a #! line: the script has none, so it cannot be run as a command (`#!/bin/sh` or "
        "`#!/usr/bin/env python3` as its first line), or make its interpreter the command"
    ),
    StartProblem.MISSING_INTERPRETER: (
        "install the interpreter the script's #! line names, or name it through PATH "
        "(`#!/usr/bin/env python3`): it is not in the job"
    ),
    StartProblem.NOEXEC_MOUNT: (
        "run the script through its interpreter (command `sh`, the script as its argument), "
        "or move it: its file system is mounted noexec, so it cannot be executed though its "
        "mode allows it"
    ),
}
HINT_TIMEOUT = (
    "make the grader faster, or raise its config.timeout (or graders.programTimeout in .waza.yaml)"
)
HINT_CANCELLED = "the job was cancelled while grading; run it again"
HINT_CLEANUP = (
    "graders must only read WAZA_GRADING_CONTEXT: this one moved, replaced or deleted "
    "its context file or directory"
)
HINT_MISSING_FILE = (
    "the file is neither in working-directory nor in a folder above the grader's YAML file: "
    "check the path in the grader's command and args, and that the job checks the file out "
    "(or downloads it) before grading"
)


def hint_set_working_directory(folder: str) -> str:
    """Said only when that folder really has the files the grader names (Diagnosis.found_from)."""
    return (
        f"set working-directory to {folder!r}: the files the grader names are there, and its "
        "paths are resolved from working-directory"
    )


HINT_MISSING_MODULE = "install the module the grader imports in the job (or the image)"
HINT_CONFIG_FILE = (
    "the files a grader's config names (skill_path, schema_file, …) are resolved from "
    "working-directory: check the path, and that working-directory is the folder it is "
    "relative to"
)
HINT_SAME_FAILURE = (
    "when every grader fails the same way the cause is usually the setup, not the graders: "
    "check working-directory and that the interpreter is installed in the job"
)


@dataclass(frozen=True)
class Reason:
    """One line saying why, and, for what the setup can fix, what to do."""

    text: str
    hint: str | None = None
    setup: bool = False
    """The grader could not run at all (a missing command, script, module or file its config
    names): the job's setup is wrong, not the agent's work."""


def reason_for(verdict: GraderVerdict) -> Reason:
    """The reason a verdict did not pass (or errored)."""
    diagnosis = verdict.diagnosis
    if diagnosis is None:  # checked in process, or a kept verdict: only its words are known
        if verdict.regraded and verdict.error and _CONFIG_FILE_MISSING.search(verdict.error):
            hint = _path_hint(verdict.error, HINT_CONFIG_FILE)
            return Reason(_short_keeping_tail(one_line(verdict.error)), hint, True)
        return Reason(_short(telling_line(verdict.error or verdict.feedback)) or "no feedback")
    if diagnosis.problem is not None:
        return _found_from(_problem_reason(verdict, diagnosis), diagnosis)
    line = telling_line(diagnosis.stderr) or telling_line(diagnosis.stdout)
    exit_text = diagnosis.exit_error or "exit status 0"
    if not line:
        return Reason(f"{exit_text}, no output")
    return _found_from(_failure_reason(line), diagnosis)


def _found_from(reason: Reason, diagnosis: Diagnosis) -> Reason:
    """A setup failure whose missing files another working directory really has: that is the
    fix, whatever the words guessed."""
    if reason.setup and diagnosis.found_from is not None:
        return Reason(reason.text, hint_set_working_directory(diagnosis.found_from), True)
    return reason


def _problem_reason(verdict: GraderVerdict, diagnosis: Diagnosis) -> Reason:
    """Grader errors: our own words, and what to do."""
    if diagnosis.problem == Problem.TIMED_OUT:
        limit = format_seconds(diagnosis.timeout_s)
        source = diagnosis.timeout_source or "waza's default"
        return Reason(f"timed out after {limit} (limit from {source})", HINT_TIMEOUT)
    if diagnosis.problem == Problem.NOT_STARTED:
        return _not_started(diagnosis.exit_error or "", diagnosis.start_problem)
    if diagnosis.problem == Problem.CANCELLED:
        return Reason("cancelled before it finished", HINT_CANCELLED)
    return Reason(_short(verdict.error or "grading-context error"), HINT_CLEANUP)


def _not_started(exit_error: str, start_problem: str | None) -> Reason:
    """A program that never ran: always the setup."""
    text = one_line(exit_error)
    start_hint = START_HINTS.get(start_problem or "")
    if start_hint is not None:
        return Reason(_short_keeping_tail(text), start_hint, True)
    match = _COMMAND_NOT_FOUND.match(text)
    if match:
        hint = _path_hint(match["name"], HINT_NOT_FOUND)
        return Reason(f"command not found: {match['name']}", hint, True)
    match = _NO_SUCH_DIR.match(text)
    if match:
        return Reason(f"working directory not found: {match['path']}", HINT_NO_DIR, True)
    match = _PERMISSION.match(text)
    if match:
        return Reason(f"not executable: {match['path']}", HINT_PERMISSION, True)
    return Reason(_short(text) or "could not start", _path_hint(text, HINT_NOT_STARTED), True)


def _failure_reason(line: str) -> Reason:
    """A program that ran and failed; the setup's fault when its interpreter or shell says it
    could not find the script, a module it imports, or a command."""
    if _MISSING_MODULE.search(line):
        return Reason(_short(line), HINT_MISSING_MODULE, True)
    if _MISSING_SCRIPT.search(line):
        return Reason(_short_keeping_tail(line), _path_hint(line, HINT_MISSING_FILE), True)
    if _SHELL_NOT_FOUND.search(line):
        return Reason(_short(line), _path_hint(line, HINT_NOT_FOUND), True)
    return Reason(_short(line))


def _path_hint(text: str, otherwise: str) -> str:
    """A path that was not found and is written as on Windows (`graders\\check.py`) is found
    by no working directory: the fix is its slashes."""
    return WINDOWS_PATH_HINT if windows_path(text) else otherwise


def _short(text: str) -> str:
    return shorten(one_line(text), MODEL_REASON)


def _short_keeping_tail(text: str) -> str:
    """A long path in a setup error: its head and its tail, which says what went wrong."""
    text = one_line(text)
    if len(text) <= MODEL_REASON:
        return text
    half = MODEL_REASON // 2
    return text[: half - 1].rstrip() + ELLIPSIS + text[-half:].lstrip()


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
