"""What every grader kind that grades inside this process shares: waza's result shape, the
Go error that stands in for a verdict, and timing.

A kind implements `configure` (its `config`, decoded and checked once per grader, as waza
checks it when it loads the spec) and `evaluate` (one saved run → an `Outcome`). Where waza's
grader returns a Go error instead of a result, `evaluate` raises `GraderError`: `waza grade`
aborts the whole grading on it, waza-ci reports it as that grader's error on that run and
grades everything else (the step still fails).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from waza_ci.golang.errors import GoError
from waza_ci.graders.base import GraderJob, GraderResult, raw_verdict, regraded_verdict
from waza_ci.waza.scoring import GraderVerdict
from waza_ci.waza.spec import GraderSpec

ConfigT = TypeVar("ConfigT")


@dataclass(slots=True)  # not frozen: made for every verdict, and frozen inits cost 4x
class Outcome:
    """One verdict in waza's terms; `details` None leaves the key out, as waza does."""

    score: float
    passed: bool
    feedback: str
    details: dict[str, Any] | None = None


class GraderError(GoError):
    """waza's grader returned an error instead of a result: at construction
    (`failed to create grader <name>: …`) or while grading (`failed to run grader …`)."""

    def __init__(self, message: str, *, at_creation: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.at_creation = at_creation

    def text(self, grader: GraderSpec) -> str:
        """The error as waza's RunAll wraps it."""
        stage = "create" if self.at_creation else "run"
        return f"failed to {stage} grader {grader.name}: {self.message}"


def fraction(checks: int, failures: int) -> float:
    """waza's score of a checklist kind: the share of checks that held, 1 when there are none."""
    return 1.0 if checks == 0 else (checks - failures) / checks


class InProcessGrader(ABC, Generic[ConfigT]):
    """A grader kind computed in this process from the saved run (and the workspace)."""

    kind: ClassVar[str]
    written_type: ClassVar[str | None] = None
    """The `type` waza writes in the verdict when it is not the kind (tool_calls: "")."""
    details_in_go_order: ClassVar[bool] = False
    """The kind builds `details` with sorted keys and no floats, so they are written as made
    (sorting every verdict's details again is most of an in-process verdict's cost)."""
    needs_context = False
    in_process = True

    @abstractmethod
    def configure(self, grader: GraderSpec) -> ConfigT:
        """Decode and check `grader.config`; raises InputError (waza's load-time errors)."""

    @abstractmethod
    def evaluate(self, config: ConfigT, job: GraderJob) -> Outcome:
        """Grade one saved run; raises GraderError where waza's grader returns an error."""

    def warnings(self, grader: GraderSpec, config: ConfigT) -> tuple[str, ...]:
        return ()

    def grade(self, job: GraderJob) -> GraderResult:
        started = time.perf_counter()
        try:
            outcome = self.evaluate(job.config, job)
        except GraderError as err:
            return self.failed(job, err.text(job.grader), _elapsed_ms(started))
        raw = raw_verdict(
            job.grader,
            outcome.passed,
            outcome.feedback,
            outcome.details,
            _elapsed_ms(started),
            score=outcome.score,
            written_type=self.written_type,
            details_in_go_order=self.details_in_go_order,
        )
        saved = (job.run.validations or {}).get(job.grader.name)
        verdict = GraderVerdict(  # from the values themselves: regraded_verdict would parse `raw`
            name=job.grader.name,
            kind=self.kind,
            score=outcome.score,
            weight=raw["weight"],
            passed=outcome.passed,
            feedback=outcome.feedback,
            regraded=True,
            duration_ms=raw["duration_ms"],
            saved_passed=None if saved is None else saved.passed,
            saved_score=None if saved is None else saved.score,
        )
        return GraderResult(raw, verdict)

    def cancelled(self, job: GraderJob, message: str) -> GraderResult:
        return self.failed(job, message, 0)

    def failed(self, job: GraderJob, message: str, duration_ms: int) -> GraderResult:
        """A grader error: score 0, not passed, the message as feedback and as the error."""
        raw = raw_verdict(
            job.grader, False, message, None, duration_ms, written_type=self.written_type
        )
        return GraderResult(raw, regraded_verdict(raw, error=message, kind=self.kind))


def _elapsed_ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
