"""The step's one decision: pass or fail, the exit code, the check run's conclusion, the
gate's state, and why, in words. Pure.

Decided once, from what the grading found (the Report's rows, the summary's errors, the
comparison with the baseline) and the user's policy; every shell and renderer reads the
`Decision` and none decides again. The order is the order of severity: graders that could not
run, then grader and clean-up errors (both exit 3 under every `fail-on`), then what the
policy gates on (exit 1), else a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from waza_ci.errors import EXIT_FAILED, EXIT_GRADER_ERROR, EXIT_PASSED
from waza_ci.gate.baseline import BaselineComparison, Change
from waza_ci.policy import FailOn, GatePolicy
from waza_ci.report._text import plural
from waza_ci.waza.scoring import GradeSummary

if TYPE_CHECKING:
    from waza_ci.report.model import CommonFailure, Counts, GraderResult, TaskResult

Conclusion = Literal["success", "failure", "neutral"]


class Verdict(StrEnum):
    """The step's verdict, as the first line of every report says it."""

    PASSED = "passed"
    FAILED = "failed"
    ERRORS = "errors"
    """Grader or clean-up errors."""
    SETUP = "setup"
    """Graders could not run: the job's setup, not the agent's work."""
    NOTHING = "nothing"
    """No run to grade (a shard with no task, every task filtered out)."""


class GateState(StrEnum):
    """The regression gate's state (the `gate` output)."""

    PASS = "pass"  # noqa: S105 - a gate state, not a secret
    FAIL = "fail"
    NO_BASELINE = "no-baseline"
    """No baseline file, or one that shares no task with the results: nothing compared."""


FIX_MISSING_BASELINE = (
    "check the baseline path (or the step that downloads it); for the first run on a "
    "repository, which has no baseline yet, pass --allow-missing-baseline "
    "(the action: allow-missing-baseline: true)"
)


@dataclass(frozen=True)
class Decision:
    """What the step says. `reasons` are waza-ci's own words (no text from the results)."""

    policy: GatePolicy
    verdict: Verdict
    exit_code: int
    conclusion: Conclusion
    gate: GateState
    tasks_passed: bool
    """Every task passed, fully graded, with no grader error: whatever `fail-on` gates on."""
    reasons: tuple[str, ...]
    """Why the step failed, or what it let pass; empty for a clean pass."""

    @property
    def passed(self) -> bool:
        """The step passed (exit 0): the `passed` output."""
        return self.exit_code == EXIT_PASSED


@dataclass(frozen=True)
class Findings:
    """What the report found that the decision reads (the Report is built around it)."""

    tasks: Sequence[TaskResult]
    counts: Counts
    common_failure: CommonFailure | None

    @property
    def setup_rows(self) -> list[GraderResult]:
        return [row for task in self.tasks for row in task.graders if row.setup]


def decide(
    found: Findings,
    summary: GradeSummary,
    comparison: BaselineComparison | None,
    *,
    policy: GatePolicy,
    baseline_asked: bool,
) -> Decision:
    """The decision for one evaluation; `baseline_asked`: baseline files were named (or the
    gate was asked for), whether or not any was found."""
    gate = gate_state(comparison)
    setup_rows = found.setup_rows
    tasks_passed = summary.passed and not summary.grader_errors and not setup_rows
    failures = _failure_reasons(summary, found.counts)
    errors = _error_reasons(found.counts)
    gate_reasons = _gate_reasons(comparison, gate, policy, baseline_asked=baseline_asked)

    def made(verdict: Verdict, code: int, reasons: list[str]) -> Decision:
        conclusion: Conclusion = "failure" if code != EXIT_PASSED else "success"
        if code == EXIT_PASSED and (not tasks_passed or verdict is Verdict.NOTHING):
            conclusion = "neutral"
        return Decision(policy, verdict, code, conclusion, gate, tasks_passed, tuple(reasons))

    common = found.common_failure if found.common_failure and found.common_failure.setup else None
    if setup_rows or common is not None:
        setup = _setup_reason(setup_rows, common)
        return made(Verdict.SETUP, EXIT_GRADER_ERROR, [setup, *errors])
    if errors:
        return made(Verdict.ERRORS, EXIT_GRADER_ERROR, errors)
    if policy.fail_on is FailOn.FAILURES and failures:
        return made(Verdict.FAILED, EXIT_FAILED, failures)
    if policy.fail_on is FailOn.REGRESSIONS and gate_reasons.fails:
        return made(Verdict.FAILED, EXIT_FAILED, gate_reasons.lines)
    if not found.tasks or found.counts.runs == 0:
        return made(Verdict.NOTHING, EXIT_PASSED, gate_reasons.lines)
    tolerated = [f"{line}, which fail-on {policy.fail_on} lets pass" for line in failures]
    return made(Verdict.PASSED, EXIT_PASSED, [*tolerated, *gate_reasons.lines])


def gate_state(comparison: BaselineComparison | None) -> GateState:
    """pass / fail / no-baseline (also for a baseline that shares no task: nothing compared)."""
    if comparison is None or not shares_a_task(comparison):
        return GateState.NO_BASELINE
    return GateState.FAIL if comparison.failed else GateState.PASS


def shares_a_task(comparison: BaselineComparison) -> bool:
    """Some task is on both sides (not only new ones and removed ones)."""
    return any(task.change not in (Change.NEW, Change.REMOVED) for task in comparison.tasks)


@dataclass(frozen=True)
class _GateReasons:
    lines: list[str]
    fails: bool


def _gate_reasons(
    comparison: BaselineComparison | None,
    gate: GateState,
    policy: GatePolicy,
    *,
    baseline_asked: bool,
) -> _GateReasons:
    gating = policy.fail_on is FailOn.REGRESSIONS
    if gate is GateState.FAIL:
        assert comparison is not None
        regressed = len(comparison.regressions)
        what = plural(regressed, "task") + " regressed" if regressed else "waza's gate failed"
        line = f"the regression gate failed: {what} against the baseline"
        return _GateReasons(
            [line if gating else f"{line} (not gating: fail-on {policy.fail_on})"], gating
        )
    if gate is GateState.NO_BASELINE and (gating or baseline_asked):
        missing = (
            "no baseline results file was found"
            if comparison is None
            else "the baseline shares no task with the results"
        )
        if not gating:
            return _GateReasons([f"{missing}: nothing was compared"], False)
        if policy.allow_missing_baseline:
            return _GateReasons(
                [f"{missing}: the gate passes, as --allow-missing-baseline allows"], False
            )
        return _GateReasons(
            [f"the regression gate cannot pass: {missing}; {FIX_MISSING_BASELINE}"], True
        )
    return _GateReasons([], False)


def _failure_reasons(summary: GradeSummary, counts: Counts) -> list[str]:
    """Tasks below `--min-task-pass-rate` (every run, by default) are what `failures` gates on."""
    failed = [task for task in summary.tasks if not task.meets(summary.min_task_pass_rate)]
    if not failed:
        return []
    graders = plural(counts.failures, "failing grader")
    return [f"{plural(len(failed), 'task')} did not pass ({graders})"]


def _error_reasons(counts: Counts) -> list[str]:
    reasons = []
    if counts.grader_errors:
        errors = plural(counts.grader_errors, "grader error")
        reasons.append(f"{errors} (a grader could not finish)")
    if counts.cleanup_errors:
        reasons.append(
            f"{plural(counts.cleanup_errors, 'clean-up error')} (a grading-context directory "
            "could not be written, verified or removed)"
        )
    return reasons


def _setup_reason(rows: Sequence[GraderResult], common: CommonFailure | None) -> str:
    """The setup problem in one line, with its likely fix (fixed sentences of ours)."""
    if common is not None:
        what = f"every {common.what} ({common.executions}) failed the same way"
        return f"graders could not run: {what}; likely fix: {common.hint}"
    hint = next((row.hint for row in rows if row.hint), None)
    tasks = plural(len({row.task_key for row in rows}), "task")
    line = f"graders could not run: {plural(len(rows), 'grader')} on {tasks}"
    return f"{line}; likely fix: {hint}" if hint else line
