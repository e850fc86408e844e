"""waza's aggregation, pure: verdicts, run status and scores, task grades, the GradeOutcome.

Everything here is a function of its arguments (same input, same output), which is what makes
the report identical whatever `--jobs` is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from waza_ci.errors import Location
from waza_ci.waza.identity import AnotherEval
from waza_ci.waza.modules.ref import ModulePin


class Status(StrEnum):
    """A run's status (waza's), and a report row's: passed, failed, or an error (a run that
    errored in its original execution; a row with a grader error)."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"


_RATE_SLACK = 1e-9  # 2 of 3 runs meets a threshold written as 0.6666666667


def meets_pass_rate(passed: int, total: int, min_rate: float) -> bool:
    """A task's verdict: at least `min_rate` of its runs passed. No run at all passes, as in
    waza (nothing failed)."""
    return total == 0 or passed >= min_rate * total - _RATE_SLACK


def effective_weight(weight: float) -> float:
    """waza treats a weight of zero or less as 1."""
    return weight if weight > 0 else 1.0


class Problem(StrEnum):
    """Why a verdict has an `error`: the program never ran, ran out of time, was cancelled, or
    its grading-context directory could not be written, verified or removed (a clean-up
    error)."""

    NOT_STARTED = "not-started"
    TIMED_OUT = "timed-out"
    CANCELLED = "cancelled"
    CLEANUP = "cleanup"


@dataclass(frozen=True)
class Diagnosis:
    """A regraded verdict in the program's own words, for the report to explain it.

    waza's `feedback` folds exit text and stderr into one string; the report needs them apart
    (the reason line is the last informative stderr line, a timeout names its limit).
    """

    exit_error: str | None
    """Go's exit text (`exit status 1`, `exec: "node": executable file not found in $PATH`);
    None on exit 0."""
    stdout: str = ""
    stderr: str = ""
    problem: Problem | None = None
    """One of the PROBLEM_* values, or None when the program ran to completion in time."""
    timeout_s: float | None = None
    timeout_source: str = ""
    """Where the limit came from: `config.timeout at eval.yaml:12`, `.waza.yaml`, the default."""
    start_problem: str | None = None
    """Not started, and the program's file shows why: a `StartProblem` value of the sandbox
    (`crlf-line-endings`, `no-interpreter-line`, …) that chooses the report's hint."""
    found_from: str | None = None
    """Did not pass, and the files its command and args name that the working directory lacks
    are in this folder (as `working-directory` would name it): "set working-directory" is then
    a right hint, and otherwise never given."""


@dataclass(slots=True)
class GraderVerdict:
    """One entry of a run's `validations`, as the report sees it. A value: never changed after
    it is made (not frozen only because one is made per verdict, tens of thousands per
    grading, and a frozen dataclass costs four times as much to make)."""

    name: str
    kind: str
    score: float
    weight: float
    passed: bool
    feedback: str
    regraded: bool
    """True when waza-ci ran this grader now; False for a saved verdict kept unchanged."""
    error: str | None = None
    """A grader error (could not start, timed out) or grading-context error; fails with exit 3.
    A verdict with an error never has `passed` true."""
    duration_ms: int = 0
    diagnosis: Diagnosis | None = None
    """Set for verdicts this grading produced; None for kept ones."""
    notes: tuple[str, ...] = ()
    """What waza-ci adds for the report only (a timeout's limit, output cut to the cap); never
    written to the waza-format results file."""
    saved_passed: bool | None = None
    """For a regraded verdict: what the results file said of the same grader, if anything."""
    saved_score: float | None = None

    @property
    def flipped(self) -> bool:
        """Regraded to the opposite of the saved verdict (the grader or its input changed)."""
        return self.regraded and self.saved_passed is not None and self.saved_passed != self.passed


@dataclass(frozen=True)
class RunGrade:
    """A run after grading: its verdicts (sorted by name, as waza's map prints) and status."""

    run_number: int
    status: str
    verdicts: tuple[GraderVerdict, ...]
    duration_ms: int = 0
    error_msg: str | None = None
    """Set for runs that errored in the original execution; they are not graded."""
    ungraded: tuple[str, ...] = ()
    """Graders of the spec that waza-ci does not run again (an LLM judge) and that have no
    saved verdict in this run: nobody judged them, so the run does not count as passed."""
    dropped: tuple[tuple[str, bool], ...] = ()
    """Saved verdicts of graders no longer in the spec, (name, saved passed): dropped as
    `waza grade` drops them, and listed in the report so a removed failing grader is seen."""

    @property
    def counts_as_passed(self) -> bool:
        """Passed with at least one verdict and no grader left unjudged."""
        return self.status == Status.PASSED and bool(self.verdicts) and not self.ungraded

    @property
    def weighted_score(self) -> float:
        return weighted_score(self.verdicts)

    @property
    def score(self) -> float:
        return mean_score(self.verdicts)

    @property
    def regraded(self) -> bool:
        return self.status != Status.ERROR


@dataclass(frozen=True)
class GraderRef:
    """A grader of the spec and the YAML line that defines it."""

    name: str
    kind: str
    location: Location
    module: ModulePin | None = None
    """A `ref:` grader's module (its merged preset is what ran)."""


@dataclass(frozen=True)
class TaskGrade:
    """One task of one results file, graded."""

    key: str
    """The GradeOutcome key: the test id, or `<results file>:<test id>` with several files."""
    results_name: str
    test_id: str
    display_name: str
    runs: tuple[RunGrade, ...]
    graders: Mapping[str, GraderRef] = field(default_factory=dict)
    task_location: Location | None = None

    @property
    def overall_score(self) -> float:
        if not self.runs:
            return 0.0
        return sum(run.weighted_score for run in self.runs) / len(self.runs)

    @property
    def passed(self) -> bool:
        return all(run.status == Status.PASSED for run in self.runs)

    @property
    def runs_passed(self) -> int:
        """Runs that passed with a verdict: a run nothing graded does not count as passed
        (waza passes it, with score 0; its own stats and GradeOutcome keep waza's rule)."""
        return sum(1 for run in self.runs if run.counts_as_passed)

    @property
    def nothing_graded(self) -> bool:
        """No run has a verdict (and none errored): no grader said anything about the task."""
        return bool(self.runs) and not any(
            run.verdicts or run.status == Status.ERROR for run in self.runs
        )

    @property
    def fully_graded(self) -> bool:
        """Something judged the task, and every grader on every graded run."""
        return not self.nothing_graded and not any(run.ungraded for run in self.runs)

    def meets(self, min_rate: float) -> bool:
        """Passed under `--min-task-pass-rate` (1.0 is `passed`: every run)."""
        return meets_pass_rate(self.runs_passed, len(self.runs), min_rate)

    @property
    def status(self) -> str:
        return Status.PASSED if self.passed else Status.FAILED

    @property
    def grader_averages(self) -> dict[str, float]:
        totals: dict[str, list[float]] = {}
        for run in self.runs:
            for verdict in run.verdicts:
                weight = effective_weight(verdict.weight)
                pair = totals.setdefault(verdict.name, [0.0, 0.0])
                pair[0] += verdict.score * weight
                pair[1] += weight
        return {name: totals[name][0] / totals[name][1] for name in sorted(totals)}


@dataclass(frozen=True)
class SkippedTask:
    """A spec task with nothing to grade in a results file, and why."""

    results_name: str
    test_id: str
    reason: str


class NotEvaluatedWhy(StrEnum):
    """Why a task of the spec has no graded run."""

    NO_RUN = "no-run"
    """Absent from every results file, or saved with `runs: []`."""
    ALL_ERRORED = "all-errored"


@dataclass(frozen=True)
class NotEvaluated:
    """A task of the spec (within `--task` and `--shard`) that no results file holds a graded
    run of: nothing judged it, so it cannot pass (report/decision.py)."""

    test_id: str
    why: NotEvaluatedWhy
    runs_errored: int = 0
    first_error: str = ""
    """The first errored run's `error_msg`, as saved (untrusted text)."""


@dataclass(frozen=True)
class GradeSummary:
    """Everything the reports need: graded tasks in a stable order, and what was skipped."""

    eval_name: str
    eval_path: str
    results_names: tuple[str, ...]
    tasks: tuple[TaskGrade, ...]
    skipped: tuple[SkippedTask, ...] = ()
    elapsed_ms: int = 0
    """Wall-clock time the grading took (0 when not measured)."""
    min_task_pass_rate: float = 1.0
    """A task passes when at least this share of its runs pass; 1.0 (every run) is waza's."""
    task_filter: str | None = None
    """The one task id (`--task`) graded, if any: a baseline is compared on that task alone."""
    another_eval: tuple[AnotherEval, ...] = ()
    """Results files that say they are of another eval than the spec (waza/identity.py)."""

    @property
    def not_evaluated(self) -> tuple[NotEvaluated, ...]:
        """The spec's tasks without a graded run in any results file, in the spec's order: a
        task skipped in one file but graded in another was evaluated."""
        graded = {task.test_id for task in self.tasks if any(r.regraded for r in task.runs)}
        found: dict[str, NotEvaluated] = {}
        for task in self.tasks:
            if task.test_id in graded or task.test_id in found or not task.runs:
                continue
            errors = [run.error_msg or "" for run in task.runs]
            found[task.test_id] = NotEvaluated(
                task.test_id, NotEvaluatedWhy.ALL_ERRORED, len(errors), errors[0]
            )
        for skipped in self.skipped:
            if skipped.test_id not in graded and skipped.test_id not in found:
                found[skipped.test_id] = NotEvaluated(skipped.test_id, NotEvaluatedWhy.NO_RUN)
        return tuple(found.values())

    @property
    def overall_score(self) -> float:
        if not self.tasks:
            return 0.0
        return sum(task.overall_score for task in self.tasks) / len(self.tasks)

    @property
    def passed(self) -> bool:
        return all(task.meets(self.min_task_pass_rate) for task in self.tasks)

    @property
    def runs(self) -> tuple[RunGrade, ...]:
        return tuple(run for task in self.tasks for run in task.runs)

    @property
    def runs_total(self) -> int:
        return len(self.runs)

    @property
    def runs_graded(self) -> int:
        return sum(1 for run in self.runs if run.regraded)

    @property
    def runs_failed(self) -> int:
        """Runs that did not pass: a failing verdict, an error in the original execution, or
        nothing graded."""
        return sum(1 for run in self.runs if not run.counts_as_passed)

    @property
    def runs_errored(self) -> int:
        return sum(1 for run in self.runs if run.status == Status.ERROR)

    @property
    def grader_errors(self) -> int:
        return sum(1 for run in self.runs for verdict in run.verdicts if verdict.error)

    def outcome_json(self) -> dict[str, Any]:
        """The JSON `waza grade` prints: overall score, passed, and per task its averages."""
        outcome: dict[str, Any] = {"overall_score": self.overall_score, "passed": self.passed}
        # waza's `tasks` is a Go map, which prints its keys sorted.
        tasks = {
            task.key: {
                "overall_score": task.overall_score,
                "passed": task.passed and task.fully_graded,
                **({"grader_averages": task.grader_averages} if task.grader_averages else {}),
            }
            for task in sorted(self.tasks, key=lambda t: t.key)
        }
        if tasks:
            outcome["tasks"] = tasks
        return outcome


def weighted_score(verdicts: Sequence[GraderVerdict]) -> float:
    """Σ(score·w)/Σw over the verdicts; no verdicts scores 0."""
    if not verdicts:
        return 0.0
    total_weight = sum(effective_weight(v.weight) for v in verdicts)
    return sum(v.score * effective_weight(v.weight) for v in verdicts) / total_weight


def mean_score(verdicts: Sequence[GraderVerdict]) -> float:
    """The plain mean of the scores (waza's unweighted run score)."""
    if not verdicts:
        return 0.0
    return sum(v.score for v in verdicts) / len(verdicts)


def run_status(verdicts: Sequence[GraderVerdict]) -> Status:
    """`passed` iff every verdict passed; a run with no graders passes (with score 0)."""
    return Status.PASSED if all(v.passed for v in verdicts) else Status.FAILED
