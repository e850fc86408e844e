"""Run every planned execution on a pool of threads, each by its grader kind; the results
come back in plan order. Cancellation (SIGINT/SIGTERM) stops what is queued and what runs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from waza_ci.english import agreed
from waza_ci.errors import Interrupted
from waza_ci.graders import kind_of
from waza_ci.graders.base import GraderJob, GraderKind, GraderResult, GraderSetup
from waza_ci.grading.plan import Execution, GradingPlan
from waza_ci.sandbox.cancellation import cancellation_signal, cancelled
from waza_ci.sandbox.groupguard import GUARD
from waza_ci.sandbox.orphans import child_pids, enable_orphan_adoption, kill_orphans
from waza_ci.waza.context import serialize_context
from waza_ci.waza.scoring import GraderVerdict

Progress = Callable[[str], None]
_CANCELLED = "grading was cancelled"


@dataclass(frozen=True)
class GradingSetup(GraderSetup):
    """What every execution shares, and how many run at once."""

    jobs: int = 1
    progress: Progress | None = None


@dataclass(slots=True)  # not frozen: made for every verdict, and frozen inits cost 4x
class ExecutionResult:
    execution: Execution
    raw_verdict: dict[str, Any]
    """The verdict in waza's results-file shape."""
    verdict: GraderVerdict


def run_plan(plan: GradingPlan, setup: GradingSetup) -> list[ExecutionResult]:
    """Run every execution; results come back in plan order. Graders that start a process run
    on `setup.jobs` threads; graders checked in this process run on the calling thread
    meanwhile (a thread hand-off would cost more than the check itself)."""
    processes = [i for i, e in enumerate(plan.executions) if not e.in_process]
    in_process = [i for i, e in enumerate(plan.executions) if e.in_process]
    contexts = _ContextCache([plan.executions[i] for i in processes])
    counter = _Counter(len(processes))

    def execute(execution: Execution) -> ExecutionResult:
        kind = _kind(execution)
        if cancelled():  # queued behind a cancellation: no context file, no program
            contexts.release(execution)
            job = _job(execution, b"", setup)
            return _result(execution, kind.cancelled(job, _CANCELLED))
        try:
            context = contexts.acquire(execution) if kind.needs_context else b""
            result = _result(execution, kind.grade(_job(execution, context, setup)))
        finally:
            contexts.release(execution)
        if setup.progress is not None:
            setup.progress(f"[{counter.next()}/{counter.total}] {_describe(result)}")
        return result

    results: list[ExecutionResult | None] = [None] * len(plan.executions)
    if not processes:  # nothing to start, so no process to watch or reap
        graded = list(_grade_in_process(plan, in_process, setup))
        stop_if_cancelled()
        return graded
    enable_orphan_adoption()
    # A library caller's own children are none of our business, nor is the group guard. Counted
    # before the group guard starts: a process with no child at all (the command line's, at its
    # first grading) then needs one system call instead of a read of every process's stat.
    before = child_pids()
    GUARD.start()
    if GUARD.pid is not None:
        before |= {GUARD.pid}
    try:
        with ThreadPoolExecutor(max_workers=max(1, setup.jobs)) as pool:
            running = [pool.submit(execute, plan.executions[i]) for i in processes]
            for index, result in zip(
                in_process, _grade_in_process(plan, in_process, setup), strict=True
            ):
                results[index] = result
        # Collected once the pool has finished (leaving `with` waits for every execution):
        # waiting on each result in turn would wake this thread, and hand it the GIL, once
        # per execution while the workers need it.
        for index, future in zip(processes, running, strict=True):
            results[index] = future.result()
    finally:
        # Every grader has been reaped; whatever still runs escaped its process group.
        kill_orphans(spare=before)
    stop_if_cancelled()
    return [result for result in results if result is not None]


def _grade_in_process(
    plan: GradingPlan, indexes: Sequence[int], setup: GradingSetup
) -> Iterator[ExecutionResult]:
    """The in-process executions, in plan order, and one progress line for all of them."""
    started = time.perf_counter()
    kinds: dict[int, GraderKind] = {}  # by grader: looked up once, not per run
    would_write: dict[str, bytes] = {}  # one grading's, in plan order (GraderJob.would_write)
    for index in indexes:
        execution = plan.executions[index]
        kind = kinds.get(id(execution.grader))
        if kind is None:
            kind = kinds[id(execution.grader)] = _kind(execution)
        job = _job(execution, b"", setup)
        job.would_write = would_write
        graded = kind.cancelled(job, _CANCELLED) if cancelled() else kind.grade(job)
        yield ExecutionResult(execution, graded.raw, graded.verdict)
    if indexes and setup.progress is not None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        setup.progress(
            f"graded in process: {len(indexes):,} "
            f"{agreed(len(indexes), 'verdict')} "
            f"({', '.join(sorted({kind.kind for kind in kinds.values()}))}) "
            f"in {elapsed_ms:,.0f} ms"
        )


def stop_if_cancelled() -> None:
    """Raise Interrupted when SIGINT/SIGTERM cancelled grading; the shells call it again just
    before writing, so a signal that came after the last grader still writes nothing."""
    if cancelled():
        raise Interrupted(cancellation_signal())


def _kind(execution: Execution) -> GraderKind:
    kind = kind_of(execution.grader)
    assert kind is not None, "the plan holds only registered kinds"
    return kind


def _job(execution: Execution, context: bytes, setup: GraderSetup) -> GraderJob:
    return GraderJob(
        grader=execution.grader,
        task=execution.match.task,
        config=execution.config,
        run=execution.match.saved.runs[execution.run_index],
        context=context,
        timeout_s=execution.timeout_s,
        timeout_source=execution.timeout_source,
        setup=setup,
    )


def _result(execution: Execution, graded: GraderResult) -> ExecutionResult:
    return ExecutionResult(execution, graded.raw, graded.verdict)


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
