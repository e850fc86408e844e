"""The `code` grader: inline assertions (`config.assertions`), evaluated by the user's own
Python (`language: python`, the default) or Node (`language: javascript`).

What waza does, and is done here the same way: the interpreter (for Python, `python3` from
PATH when `python3 --version` succeeds, else plain `python`; for JavaScript, `node`) runs a
small runner script with one JSON document on stdin: the final output, an empty outcome, the
transcript as waza's event model re-reads it, the tool calls derived from that transcript,
the duration and the assertions. The runner prints one result per assertion (code_wrappers/
holds ours, written to behave as waza's); the score is the share that held, the feedback
lists each failure as `Failed: <assertion>[: <error>]`. The interpreter runs in waza's
working directory (`--working-directory`) with the graders' environment.

Where waza would abort `waza grade` (the interpreter cannot start, exits non-zero, prints
something that is not the results JSON), waza-ci reports that grader's error on that run
with waza's text. Differences, on purpose: the interpreter runs in the sandbox, under the
project's program timeout (waza sets none), and its stderr is kept for the report rather
than passed through; the runner is read from waza-ci's package instead of a temporary file.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError
from waza_ci.graders.base import GraderJob, GraderResult, raw_verdict, regraded_verdict
from waza_ci.graders.gofmt import go_quote
from waza_ci.graders.inprocess import GoError
from waza_ci.graders.params import decode_params
from waza_ci.graders.programs.program import outcome_notes
from waza_ci.sandbox.goexec import CannotStart, resolve_executable
from waza_ci.sandbox.outcome import ProgramOutcome
from waza_ci.sandbox.program import run_program
from waza_ci.waza.scoring import (
    PROBLEM_CANCELLED,
    PROBLEM_NOT_STARTED,
    PROBLEM_TIMED_OUT,
    Diagnosis,
)
from waza_ci.waza.spec import GraderSpec
from waza_ci.waza.spec_schema import STR, ListOf, Struct

CODE_KIND = "code"
ALL_PASSED = "All assertions passed"
WRAPPERS = Path(__file__).resolve().parent / "code_wrappers"
PYTHON_PROBE_TIMEOUT_S = 5
OUTPUT_CAP_BYTES = 16 * 1024 * 1024
"""Per stream: the results JSON must be read whole (one error text per failed assertion)."""

_PARAMS = Struct({"assertions": ListOf(STR), "language": STR})


@dataclass(frozen=True)
class Language:
    """How one assertion language is run, and what to say when its interpreter is missing."""

    runner: Path
    install_hint: str


LANGUAGES = {
    "python": Language(
        WRAPPERS / "assertions.py",
        "python assertions need `python3` (or `python`) on PATH: install Python in the job",
    ),
    "javascript": Language(
        WRAPPERS / "assertions.js",
        "javascript assertions need `node` on PATH: install Node.js in the job",
    ),
}


@dataclass(frozen=True)
class CodeConfig:
    assertions: tuple[str, ...]
    language: str
    creation_error: str | None
    """waza's construction error (an unsupported language), raised on every run."""


class CodeGrader:
    """waza's `code` grader kind (inline script assertions)."""

    kind = CODE_KIND
    needs_context = False
    in_process = False

    def configure(self, grader: GraderSpec) -> CodeConfig:
        params = decode_params(grader, "InlineScriptGraderParameters", _PARAMS)
        assertions = tuple("" if a is None else a for a in params.get("assertions") or ())
        if not assertions:
            raise InputError(
                f"code grader {go_quote(grader.name)}: must have at least one assertion in "
                "config.assertions",
                grader.location,
            )
        language = params.get("language") or "python"
        error = (
            None
            if language in LANGUAGES
            else f"language '{language}' is not yet supported with inline scripts"
        )
        return CodeConfig(assertions, language, error)

    def grade(self, job: GraderJob) -> GraderResult:
        config: CodeConfig = job.config
        if config.creation_error is not None:
            return _error(job, GoError(config.creation_error, at_creation=True), 0)
        language = LANGUAGES[config.language]
        setup = job.setup
        interpreter = (
            python_interpreter(setup.env, setup.working_directory)
            if config.language == "python"
            else "node"
        )
        outcome = run_program(
            (interpreter, str(language.runner)),
            stdin=stdin_document(job, config.assertions),
            env=setup.env,
            cwd=setup.working_directory,
            timeout_s=job.timeout_s,
            output_cap_bytes=OUTPUT_CAP_BYTES,
        )
        if outcome.exit_error is not None or outcome.cancelled:
            return _run_failure(job, outcome, language)
        try:
            results = decode_results(outcome.stdout)
        except GoError as err:
            diagnosis = _diagnosis(job, outcome)
            return _error(job, err, outcome.duration_ms, diagnosis, outcome_notes(outcome))
        failures = [
            f"Failed: {assertion}" if result == "fail" else f"Failed: {assertion}: {result}"
            for assertion, result in zip(config.assertions, results, strict=False)
            if result != ""
        ]
        passed = sum(1 for result in results[: len(config.assertions)] if result == "")
        details = {
            "total_assertions": len(config.assertions),
            "passed_assertions": passed,
            "failures": failures or None,  # Go's nil slice: null
        }
        feedback = "; ".join(failures) if failures else ALL_PASSED
        raw = raw_verdict(
            job.grader,
            not failures,
            feedback,
            details,
            outcome.duration_ms,
            score=passed / len(config.assertions),
        )
        return GraderResult(raw, regraded_verdict(raw))

    def warnings(self, grader: GraderSpec, config: CodeConfig) -> tuple[str, ...]:
        return ()

    def cancelled(self, job: GraderJob, message: str) -> GraderResult:
        diagnosis = Diagnosis(exit_error=None, problem=PROBLEM_CANCELLED)
        return _failed(job, message, 0, diagnosis)


# --- the interpreter --------------------------------------------------------------------------

_python_lock = threading.Lock()
_python_found: dict[tuple[str, str], str] = {}


def python_interpreter(env: Mapping[str, str], cwd: str) -> str:
    """waza's choice: the absolute `python3` found on PATH when `python3 --version` exits 0
    (a Windows Store stub does not), else `python`, looked up when it is run. Probed once per
    PATH, where waza probes for every run."""
    key = (str(env.get("PATH", "")), cwd)
    with _python_lock:
        found = _python_found.get(key)
    if found is not None:
        return found
    try:
        candidate = resolve_executable(("python3",), env, cwd)
    except CannotStart:
        found = "python"
    else:
        probe = run_program(
            (candidate, "--version"),
            stdin=b"",
            env=env,
            cwd=cwd,
            timeout_s=PYTHON_PROBE_TIMEOUT_S,
        )
        if probe.cancelled:
            return "python"  # nothing runs any more; the probe says nothing about python3
        found = candidate if probe.started and probe.exit_error is None else "python"
    with _python_lock:
        _python_found[key] = found
    return found


# --- what the runner reads and prints -----------------------------------------------------------


def stdin_document(job: GraderJob, assertions: tuple[str, ...]) -> bytes:
    """The JSON document waza writes to the runner's stdin, for this run."""
    transcript = [_event(event) for event in job.run.transcript or ()]
    document = {
        "output": job.run.final_output,
        "outcome": {},  # `waza grade` has no outcome: always an empty map
        "transcript": transcript,
        "tool_calls": tool_calls(transcript),
        "duration_ms": job.run.duration_ms,
        "assertions": list(assertions),
        "debug": False,
    }
    # ASCII escapes: any string (even a lone surrogate from the results file) reaches the
    # runner as the same value.
    return json.dumps(document).encode("ascii")


_TEXT_EVENTS = ("user.message", "assistant.message")
_START = "tool.execution_start"
_COMPLETE = "tool.execution_complete"
_PARTIAL = "tool.execution_partial_result"
_ERROR = "session.error"
_ARGUMENT_KEYS = ("path", "file_text", "command", "description", "skill")


def _event(event: Any) -> dict[str, Any]:
    """One transcript event as waza re-serialises it: its event model keeps, per type, only
    the fields it knows (`content` of messages, `message` of session errors, the ids, names,
    arguments and results of tool events); every other type keeps only `type`."""
    fields = event if isinstance(event, dict) else {}
    kind = _text(fields.get("type"))
    if kind in _TEXT_EVENTS:
        return {"content": _text(fields.get("content")), "type": kind}
    projected: dict[str, Any] = {"type": kind}
    if kind == _ERROR:
        projected["message"] = _text(fields.get("message"))
    elif kind == _START:
        if fields.get("arguments") is not None:
            projected["arguments"] = fields["arguments"]
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
        projected["tool_name"] = _text(fields.get("tool_name"))
    elif kind == _COMPLETE:
        projected["success"] = fields.get("success") is True
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
        result = _tool_result(fields.get("tool_result"))
        if result is not None:
            projected["tool_result"] = result
    elif kind == _PARTIAL:
        projected["tool_call_id"] = _text(fields.get("tool_call_id"))
    return projected


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _tool_result(value: Any) -> dict[str, Any] | None:
    """A tool result as the SDK's typed result keeps it: `content`, and `contents` and
    `detailedContent` when present."""
    if not isinstance(value, dict):
        return None
    result: dict[str, Any] = {"content": _text(value.get("content"))}
    contents = value.get("contents")
    if isinstance(contents, list) and contents:
        result["contents"] = contents
    detailed = value.get("detailedContent")
    if isinstance(detailed, str):
        result["detailedContent"] = detailed
    return result


def tool_calls(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """waza's tool calls of a (re-serialised) transcript: one per start with a name and an id,
    in start order, completed by the last completion with the same id that follows it."""
    calls: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for event in transcript:
        call_id = event.get("tool_call_id", "")
        if event["type"] == _START and call_id and event.get("tool_name"):
            calls[call_id] = {
                "id": call_id,
                "name": event["tool_name"],
                "arguments": _arguments(event.get("arguments")),
                "success": False,
            }
            order.append(call_id)
        elif event["type"] == _COMPLETE and call_id in calls:
            call = calls[call_id]
            call["success"] = event["success"]
            call.pop("result", None)
            if "tool_result" in event:
                call["result"] = event["tool_result"]
    return [_call_in_order(calls[call_id]) for call_id in order]


def _call_in_order(call: dict[str, Any]) -> dict[str, Any]:
    # Go writes a struct's fields in declaration order: id, name, arguments, result, success.
    ordered: dict[str, Any] = {key: call[key] for key in ("id", "name", "arguments")}
    if "result" in call:
        ordered["result"] = call["result"]
    ordered["success"] = call["success"]
    return ordered


def _arguments(value: Any) -> dict[str, str]:
    """The five argument fields waza decodes (mapstructure: a key matches its field in any
    letter case; a value that is not a string leaves the field empty)."""
    arguments = dict.fromkeys(_ARGUMENT_KEYS, "")
    if not isinstance(value, dict):
        return arguments
    for field_name in _ARGUMENT_KEYS:
        key = field_name if field_name in value else _folded_key(value, field_name)
        if key is not None and isinstance(value[key], str):
            arguments[field_name] = value[key]
    return arguments


def _folded_key(mapping: dict[str, Any], name: str) -> str | None:
    folded = name.casefold()
    return next((key for key in mapping if str(key).casefold() == folded), None)


def decode_results(stdout: str) -> list[str]:
    """The runner's `{"results": [...]}`, read as Go's json.Unmarshal reads it into a struct
    with a `Results []string` field; raises GoError with waza's text."""
    try:
        document = json.loads(stdout)
    except json.JSONDecodeError as err:
        raise _undecodable(stdout, _go_syntax_error(stdout, err)) from None
    if not isinstance(document, dict):
        raise _undecodable(stdout, "json: cannot unmarshal into Go value of type struct")
    results: Any = None
    for key, value in document.items():  # Go matches the field name in any letter case
        if key.casefold() == "results":
            results = value
    if results is None:
        return []
    if not isinstance(results, list) or not all(r is None or isinstance(r, str) for r in results):
        raise _undecodable(stdout, "json: cannot unmarshal into Go struct field .Results")
    return ["" if r is None else r for r in results]  # Go leaves a string null as ""


def _undecodable(stdout: str, problem: str) -> GoError:
    return GoError(f"failed to deserialize output ({stdout}) from assertions: {problem}")


def _go_syntax_error(text: str, err: json.JSONDecodeError) -> str:
    """Go's encoding/json syntax error for the usual cases: no JSON, or text around it."""
    if not text.strip() or err.pos >= len(text):
        return "unexpected end of JSON input"
    char = text[err.pos]
    quoted = "'\\''" if char == "'" else f"'{go_quote(char)[1:-1]}'"
    if err.msg == "Extra data":
        return f"invalid character {quoted} after top-level value"
    return f"invalid character {quoted} looking for beginning of value"


# --- verdicts of a runner that did not report --------------------------------------------------


def _run_failure(job: GraderJob, outcome: ProgramOutcome, language: Language) -> GraderResult:
    diagnosis = _diagnosis(job, outcome)
    if outcome.cancelled:
        return _failed(job, "grading was cancelled", outcome.duration_ms, diagnosis)
    # waza's text: the interpreter's stdout in parentheses, then Go's error for its exit.
    error = GoError(
        f"failed to execute inline script for assertions ({outcome.stdout}): {outcome.exit_error}"
    )
    notes = outcome_notes(outcome) + ((language.install_hint,) if not outcome.started else ())
    return _error(job, error, outcome.duration_ms, diagnosis, notes)


def _diagnosis(job: GraderJob, outcome: ProgramOutcome) -> Diagnosis:
    problem = (
        PROBLEM_CANCELLED
        if outcome.cancelled
        else PROBLEM_NOT_STARTED
        if not outcome.started
        else PROBLEM_TIMED_OUT
        if outcome.timed_out
        else None
    )
    return Diagnosis(
        exit_error=outcome.exit_error,
        stdout=outcome.stdout,
        stderr=outcome.stderr,
        problem=problem,
        timeout_s=outcome.timeout_s,
        timeout_source=job.timeout_source,
    )


def _error(
    job: GraderJob,
    error: GoError,
    duration_ms: int,
    diagnosis: Diagnosis | None = None,
    notes: tuple[str, ...] = (),
) -> GraderResult:
    return _failed(job, error.text(job.grader), duration_ms, diagnosis, notes)


def _failed(
    job: GraderJob,
    message: str,
    duration_ms: int,
    diagnosis: Diagnosis | None,
    notes: tuple[str, ...] = (),
) -> GraderResult:
    """A grader error: score 0, not passed, the message as feedback and as the error."""
    raw = raw_verdict(job.grader, False, message, None, duration_ms)
    verdict = regraded_verdict(raw, error=message, notes=notes, diagnosis=diagnosis)
    return GraderResult(raw, verdict)
