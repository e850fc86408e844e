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

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from waza_ci.errors import InputError
from waza_ci.golang.strconv import go_quote
from waza_ci.graders.base import GraderJob, GraderResult, raw_verdict, regraded_verdict
from waza_ci.graders.inprocess import GraderError
from waza_ci.graders.params import decode_params
from waza_ci.graders.programs.code_io import decode_results, stdin_document
from waza_ci.graders.programs.program import outcome_diagnosis, outcome_notes
from waza_ci.sandbox.goexec import CannotStart, resolve_executable
from waza_ci.sandbox.outcome import ProgramOutcome
from waza_ci.sandbox.program import run_program
from waza_ci.waza.scoring import (
    Diagnosis,
    Problem,
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
            return _error(job, GraderError(config.creation_error, at_creation=True), 0)
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
        except GraderError as err:
            diagnosis = outcome_diagnosis(outcome, job.timeout_source, trimmed=False)
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
        diagnosis = Diagnosis(exit_error=None, problem=Problem.CANCELLED)
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


# --- verdicts of a runner that did not report --------------------------------------------------


def _run_failure(job: GraderJob, outcome: ProgramOutcome, language: Language) -> GraderResult:
    diagnosis = outcome_diagnosis(outcome, job.timeout_source, trimmed=False)
    if outcome.cancelled:
        return _failed(job, "grading was cancelled", outcome.duration_ms, diagnosis)
    # waza's text: the interpreter's stdout in parentheses, then Go's error for its exit.
    error = GraderError(
        f"failed to execute inline script for assertions ({outcome.stdout}): {outcome.exit_error}"
    )
    notes = outcome_notes(outcome) + ((language.install_hint,) if not outcome.started else ())
    return _error(job, error, outcome.duration_ms, diagnosis, notes)


def _error(
    job: GraderJob,
    error: GraderError,
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
