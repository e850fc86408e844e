"""Plan the grader executions, run them concurrently in private context dirs, merge verdicts.

Executions are planned in a stable order (results file, spec task, run, grader) and their
results are put back in that order, so the outcome does not depend on `jobs` or on timing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from waza_ci.errors import InputError, Interrupted, Location
from waza_ci.sandbox.cancellation import cancel_on_signals, cancellation_signal, cancelled
from waza_ci.sandbox.goexec import go_trim_space
from waza_ci.sandbox.groupguard import GUARD
from waza_ci.sandbox.orphans import child_pids, enable_orphan_adoption, kill_orphans
from waza_ci.sandbox.outcome import ProgramOutcome, describe_outcome, outcome_notes
from waza_ci.sandbox.privatedir import (
    ContextFileError,
    create_context_file,
    verify_and_remove,
    wait_for_closes,
)
from waza_ci.sandbox.program import run_program
from waza_ci.waza.context import serialize_context
from waza_ci.waza.results import ResultsFile, SavedRun, SavedTask, SavedVerdict
from waza_ci.waza.scoring import (
    PROBLEM_CANCELLED,
    PROBLEM_CLEANUP,
    PROBLEM_NOT_STARTED,
    PROBLEM_TIMED_OUT,
    STATUS_ERROR,
    Diagnosis,
    GraderRef,
    RunGrade,
    SkippedTask,
    Verdict,
    effective_weight,
    run_status,
)
from waza_ci.waza.spec import PROGRAM_KIND, EvalSpec, GraderSpec, TaskSpec

__all__ = [
    "cancel_on_signals",
    "stop_if_cancelled",
]  # the shells wrap grading in it; see cancellation.py

WORKSPACE_ENV = "WAZA_WORKSPACE_DIR"
CONTEXT_ENV = "WAZA_GRADING_CONTEXT"

Progress = Callable[[str], None]
_CANCELLED = "grading was cancelled"


@dataclass(frozen=True)
class TaskMatch:
    """A spec task found in a results file."""

    results: ResultsFile
    task: TaskSpec
    task_index: int
    saved: SavedTask


@dataclass(frozen=True)
class Execution:
    """One program grader against one saved run."""

    match: TaskMatch
    run_index: int
    grader: GraderSpec
    timeout_s: int
    timeout_source: str = ""


@dataclass(frozen=True)
class GradingPlan:
    matches: tuple[TaskMatch, ...]
    skipped: tuple[SkippedTask, ...]
    executions: tuple[Execution, ...]
    task_filter: str | None = None
    """The one task id (`--task`) the plan was cut to, if any."""


@dataclass(frozen=True)
class GradingSetup:
    """What every execution shares: where, with which environment, how many at once."""

    workspace_dir: str
    working_directory: str
    env: Mapping[str, str]
    temp_dir: str
    jobs: int
    progress: Progress | None = None


@dataclass(frozen=True)
class ExecutionResult:
    execution: Execution
    raw_verdict: dict[str, Any]
    """The verdict in waza's results-file shape."""
    verdict: Verdict


def plan_grading(
    spec: EvalSpec, results_files: Sequence[ResultsFile], only_task: str | None
) -> GradingPlan:
    """Match spec tasks to saved tasks by test id and list every program grader execution."""
    tasks = spec.tasks
    if only_task is not None:
        tasks = tuple(t for t in spec.tasks if t.id == only_task)
        if not tasks:
            raise InputError(
                f"task {only_task!r} not found in spec or is disabled", Location(str(spec.path))
            )
    matches: list[TaskMatch] = []
    skipped: list[SkippedTask] = []
    for results in results_files:
        saved_by_id = results.tasks_by_id()
        for task in tasks:
            found = saved_by_id.get(task.id)
            reason = (
                "not in the results file"
                if found is None
                else "has no runs in the results file"
                if not found[1].runs
                else None
            )
            if reason is None and found is not None:
                matches.append(TaskMatch(results, task, found[0], found[1]))
                continue
            if only_task is not None:
                raise InputError(f"task {task.id!r} {reason}", Location(str(results.path)))
            skipped.append(SkippedTask(results.name, task.id, f"task {reason}"))
    if not matches:
        raise InputError(
            "no tasks were graded: none of the spec's tasks had matching runs in the results "
            "file(s)",
            Location(str(spec.path)),
        )
    executions = tuple(
        Execution(
            match, run_index, grader, spec.timeout_for(grader), spec.timeout_source_for(grader)
        )
        for match in matches
        for run_index, run in enumerate(match.saved.runs)
        if not run.errored
        for grader in match.task.program_graders
    )
    return GradingPlan(tuple(matches), tuple(skipped), executions, only_task)


def run_plan(plan: GradingPlan, setup: GradingSetup) -> list[ExecutionResult]:
    """Run every execution on `setup.jobs` threads; results come back in plan order."""
    contexts = _ContextCache(plan.executions)
    counter = _Counter(len(plan.executions))

    def execute(execution: Execution) -> ExecutionResult:
        if cancelled():  # queued behind a cancellation: no context file, no program
            contexts.release(execution)
            return _context_failure(execution, _CANCELLED, {}, 0)
        try:
            result = _execute(execution, contexts.acquire(execution), setup)
        finally:
            contexts.release(execution)
        if setup.progress is not None:
            setup.progress(f"[{counter.next()}/{counter.total}] {_describe(result)}")
        return result

    enable_orphan_adoption()
    GUARD.start()  # before the census below, so the watchman is not taken for an orphan
    before = child_pids()  # a library caller's own children are none of our business
    try:
        with ThreadPoolExecutor(max_workers=max(1, setup.jobs)) as pool:
            results = list(pool.map(execute, plan.executions))
    finally:
        # Every grader has been reaped; whatever still runs escaped its process group.
        kill_orphans(spare=before)
        wait_for_closes()  # no descriptor of ours outlives the grading
    stop_if_cancelled()
    return results


def stop_if_cancelled() -> None:
    """Raise Interrupted when SIGINT/SIGTERM cancelled grading; the shells call it again just
    before writing, so a signal that came after the last grader still writes nothing."""
    if cancelled():
        raise Interrupted(cancellation_signal())


class _ContextCache:
    """Each run's context is serialized once, when its first grader needs it, and dropped
    after its last grader: transcripts can be large, and a results file holds many runs."""

    def __init__(self, executions: Sequence[Execution]) -> None:
        self._lock = threading.Lock()
        self._pending: dict[tuple[int, int], int] = {}
        self._locks: dict[tuple[int, int], threading.Lock] = {}
        self._payloads: dict[tuple[int, int], bytes] = {}
        for execution in executions:
            key = self._key(execution)
            self._pending[key] = self._pending.get(key, 0) + 1
            self._locks.setdefault(key, threading.Lock())

    @staticmethod
    def _key(execution: Execution) -> tuple[int, int]:
        return (id(execution.match), execution.run_index)

    @property
    def held(self) -> int:
        """How many serialized contexts are in memory (for tests)."""
        with self._lock:
            return len(self._payloads)

    def acquire(self, execution: Execution) -> bytes:
        key = self._key(execution)
        with self._locks[key]:  # one serialization per run even when its graders start at once
            with self._lock:
                payload = self._payloads.get(key)
            if payload is None:
                match = execution.match
                payload = serialize_context(match.results.raw_run(match.task_index, key[1]))
                with self._lock:
                    self._payloads[key] = payload
            return payload

    def release(self, execution: Execution) -> None:
        key = self._key(execution)
        with self._lock:
            self._pending[key] -= 1
            if self._pending[key] == 0:
                self._payloads.pop(key, None)


def _execute(execution: Execution, context: bytes, setup: GradingSetup) -> ExecutionResult:
    grader = execution.grader
    program = grader.program
    assert program is not None
    run = execution.match.saved.runs[execution.run_index]
    try:
        context_file = create_context_file(context, setup.temp_dir)
    except ContextFileError as err:
        return _context_failure(execution, str(err), details={}, duration_ms=0)
    env = {**setup.env, WORKSPACE_ENV: setup.workspace_dir, CONTEXT_ENV: context_file.path}
    try:
        outcome = run_program(
            (program.command, *(program.args or ())),
            stdin=run.final_output.encode("utf-8"),
            env=env,
            cwd=setup.working_directory,
            timeout_s=execution.timeout_s,
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
    diagnosis = _diagnosis(outcome, execution)
    notes = outcome_notes(outcome)
    if context_error is not None:
        return _context_failure(
            execution, context_error, details, outcome.duration_ms, notes, diagnosis=diagnosis
        )
    raw = _raw_verdict(grader, outcome.passed, feedback, details, outcome.duration_ms)
    error = feedback if outcome.is_grader_error else None
    verdict = _verdict(raw, error=error, notes=notes, diagnosis=diagnosis)
    return ExecutionResult(execution, raw, verdict)


def _diagnosis(outcome: ProgramOutcome, execution: Execution) -> Diagnosis:
    problem = (
        PROBLEM_CANCELLED
        if outcome.cancelled
        else PROBLEM_NOT_STARTED
        if not outcome.started
        else PROBLEM_TIMED_OUT
        if outcome.timed_out
        else None
    )
    # Trimmed as waza's `details` keeps them, so a merge of shards rebuilds the same report.
    return Diagnosis(
        exit_error=outcome.exit_error,
        stdout=go_trim_space(outcome.stdout),
        stderr=go_trim_space(outcome.stderr),
        problem=problem,
        timeout_s=outcome.timeout_s,
        timeout_source=execution.timeout_source,
    )


def _context_failure(
    execution: Execution,
    message: str,
    details: dict[str, Any],
    duration_ms: int,
    notes: tuple[str, ...] = (),
    *,
    diagnosis: Diagnosis | None = None,
) -> ExecutionResult:
    # The message is in the feedback; `details` keeps exactly waza's keys.
    feedback = f"Grading context error: {message}"
    raw = _raw_verdict(execution.grader, False, feedback, details, duration_ms)
    problem = PROBLEM_CANCELLED if message == _CANCELLED else PROBLEM_CLEANUP
    diagnosis = replace(diagnosis or Diagnosis(exit_error=None), problem=problem)
    verdict = _verdict(raw, error=feedback, notes=notes, diagnosis=diagnosis)
    return ExecutionResult(execution, raw, verdict)


def _raw_verdict(
    grader: GraderSpec, passed: bool, feedback: str, details: dict[str, Any], duration_ms: int
) -> dict[str, Any]:
    return {
        "identifier": grader.name,
        "type": PROGRAM_KIND,
        "score": 1.0 if passed else 0.0,
        "weight": effective_weight(grader.weight),
        "passed": passed,
        "feedback": feedback,
        "details": dict(sorted(details.items())),  # Go prints map keys sorted
        "duration_ms": duration_ms,
    }


def saved_verdict(
    name: str,
    saved: SavedVerdict,
    *,
    regraded: bool = False,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
) -> Verdict:
    """The report's view of a verdict read from a results file (a kept one, or, in a merge,
    one a shard produced).

    Keyed by its validations key, as waza's aggregation is, whatever `identifier` says."""
    return Verdict(
        name=name,
        kind=saved.type,
        score=saved.score,
        weight=saved.weight,
        passed=saved.passed,
        feedback=saved.feedback,
        regraded=regraded,
        error=error,
        notes=notes,
        duration_ms=saved.duration_ms,
        diagnosis=diagnosis,
    )


def _verdict(
    raw: Mapping[str, Any],
    *,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
) -> Verdict:
    """The report's view of a verdict this grading produced (`raw` is our own dict)."""
    return Verdict(
        name=str(raw.get("identifier", "")),
        kind=str(raw.get("type", "")),
        score=float(raw.get("score", 0.0)),
        weight=float(raw.get("weight", 0.0)),
        passed=bool(raw.get("passed", False)),
        feedback=str(raw.get("feedback", "")),
        regraded=True,
        error=error,
        notes=notes,
        duration_ms=int(raw.get("duration_ms", 0)),
        diagnosis=diagnosis,
    )


@dataclass(frozen=True)
class MergedRun:
    """A run after grading, for the report and for the regraded results file."""

    grade: RunGrade
    raw_validations: dict[str, Any]


def merge_run(
    task: TaskSpec, run: SavedRun, raw_run: Mapping[str, Any], new: Sequence[ExecutionResult]
) -> MergedRun:
    """Saved verdicts of other kinds are kept; program verdicts come from this grading."""
    if run.errored:
        return MergedRun(errored_run_grade(run), {})
    program_names = {grader.name for grader in task.program_graders}
    saved_raw = raw_run.get("validations") or {}
    raw: dict[str, Any] = {}
    verdicts: dict[str, Verdict] = {}
    for name, saved in (run.validations or {}).items():
        if name in program_names:
            continue  # run again now
        if saved.type == PROGRAM_KIND:
            continue  # its grader left the spec: a stale program verdict is dropped
        raw[name] = saved_raw[name]  # kept byte for byte, unknown fields included
        verdicts[name] = saved_verdict(name, saved)
    for result in new:
        raw[result.execution.grader.name] = result.raw_verdict
        verdicts[result.execution.grader.name] = result.verdict
    ordered = tuple(verdicts[name] for name in sorted(verdicts))
    grade = RunGrade(
        run_number=run.run_number,
        status=run_status(ordered),
        verdicts=ordered,
        duration_ms=run.duration_ms,
    )
    return MergedRun(grade, {name: raw[name] for name in sorted(raw)})


def errored_run_grade(run: SavedRun) -> RunGrade:
    """A run that errored in its original execution: reported, never graded (waza's rule)."""
    return RunGrade(
        run_number=run.run_number,
        status=STATUS_ERROR,
        verdicts=(),
        duration_ms=run.duration_ms,
        error_msg=run.error_msg or "run status was error",
    )


def grader_refs(task: TaskSpec) -> dict[str, GraderRef]:
    return {g.name: GraderRef(g.name, g.kind, g.location) for g in task.graders}


def _describe(result: ExecutionResult) -> str:
    execution = result.execution
    run = execution.match.saved.runs[execution.run_index]
    state = "error" if result.verdict.error else "passed" if result.verdict.passed else "FAILED"
    return (
        f"{execution.match.results.name}: {execution.match.task.id} run {run.run_number} "
        f"{execution.grader.name}: {state}"
    )


class _Counter:
    """Numbers progress lines from several threads."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._done = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            self._done += 1
            return self._done


# Variables the runner gives the action that graders must never see: the action's inputs
# (the token among them), the runner's own credentials, and the runner's command files (a
# grader writing to GITHUB_OUTPUT could forge the step's `passed` output).
_SECRET_VARIABLES = frozenset(
    {
        "GITHUB_OUTPUT",
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_STATE",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_TOKEN",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_RESULTS_URL",
        "ACTIONS_CACHE_URL",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)


def grader_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The environment graders inherit: the caller's, less inputs, runner credentials and
    the runner's command files."""
    return {
        name: value
        for name, value in env.items()
        if not name.startswith("INPUT_") and name not in _SECRET_VARIABLES
    }
