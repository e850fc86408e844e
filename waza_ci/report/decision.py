"""The step's one decision: pass or fail, the exit code, the check run's conclusion, the
gate's state, and why, in words. Pure.

Decided once, from what the grading found (the Report's rows, the summary's errors, the
comparison with the baseline) and the user's policy; every shell and renderer reads the
`Decision` and none decides again. The order is the order of severity: results of another
eval, graders that could not run, tasks of the spec that were not evaluated, then grader and
clean-up errors (all exit 3 under every `fail-on`), then what the policy gates on (exit 1),
else a pass. What a decision is (`Decision`, `Verdict`, `GateState`) is the leaf
`waza_ci/verdict.py`; this module makes it from the `Report` and the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from waza_ci.english import agreed, plural
from waza_ci.errors import EXIT_FAILED, EXIT_GRADER_ERROR, EXIT_PASSED
from waza_ci.gate.baseline import BaselineComparison
from waza_ci.gate.baseline_io import BaselineProblem
from waza_ci.policy import FailOn, GatePolicy
from waza_ci.report.model import CommonFailure, Counts, GraderRow, Report
from waza_ci.verdict import Conclusion, Decision, GateState, Verdict
from waza_ci.waza.identity import FIX_ANOTHER_EVAL
from waza_ci.waza.scoring import GradeSummary, NotEvaluated, NotEvaluatedWhy

FIX_MISSING_BASELINE = (
    "check the baseline path (or the step that downloads it); for the first run on a "
    "repository, which has no baseline yet, pass --allow-missing-baseline "
    "(the action: allow-missing-baseline: true)"
)
FIX_NOT_EVALUATED = (
    "run waza again for each task listed, or restore the results artifact that has them; "
    "a task added before its first run can be accepted with --allow-tasks-without-runs "
    "(the action: allow-tasks-without-runs: true)"
)
FIX_ERRORED = (
    "run waza again for the tasks whose runs errored in execution, once the cause in the first "
    "error is gone"
)

_BASELINE_MISSING = {
    None: "no baseline results file was found",
    BaselineProblem.NOT_GIVEN: "no baseline was given",
    BaselineProblem.MISSING: "no baseline results file was found",
    BaselineProblem.ANOTHER_EVAL: "the baseline is of another eval (both are named below)",
    BaselineProblem.SHARES_NO_TASK: "the baseline shares no task with the results",
    BaselineProblem.NONE_COMPARED: (
        "no task could be compared with the baseline (no graded run on one side)"
    ),
    BaselineProblem.NO_HISTORY: "the history has no record of this eval, and no baseline was given",
    BaselineProblem.HISTORY_ANOTHER_EVAL: ("the history is of another eval (both are named below)"),
}
_BASELINE_FIX = {
    BaselineProblem.ANOTHER_EVAL: (
        "name the baseline of this eval (check the artifact's name and path); for the first "
        "run, pass --allow-missing-baseline (the action: allow-missing-baseline: true); if the "
        "eval was renamed since, name its old name with --renamed-from (the action: "
        "renamed-from)"
    ),
    BaselineProblem.NONE_COMPARED: (
        "regrade a baseline run whose runs did not error (run waza again on the default "
        "branch), or pass --allow-missing-baseline (the action: allow-missing-baseline: true)"
    ),
    BaselineProblem.NO_HISTORY: (
        "record the history on the default branch first (--record, the action: "
        "history-record: true) and restore it here, give a baseline too, or for the first run "
        "pass --allow-missing-baseline (the action: allow-missing-baseline: true)"
    ),
    BaselineProblem.HISTORY_ANOTHER_EVAL: (
        "name this eval's history (check the cache key and the file's path: one history per "
        "eval, or one file the evals share); if the eval was renamed since, name its old name "
        "with --renamed-from (the action: renamed-from)"
    ),
}


def decide(
    report: Report,
    summary: GradeSummary,
    comparison: BaselineComparison | None,
    *,
    policy: GatePolicy,
    baseline_asked: bool,
    baseline_problem: BaselineProblem | None = None,
) -> Decision:
    """The decision on `report` (built from `summary`); `baseline_asked`: baseline files were
    named (or the gate was asked for), whether or not any was found; `baseline_problem`: why
    none can serve."""
    gate = gate_state(comparison, baseline_problem)
    setup_rows = [row for task in report.tasks for row in task.graders if row.setup]
    not_evaluated, accepted = split_not_evaluated(summary.not_evaluated, policy)
    tasks_passed = (
        summary.passed
        and not summary.grader_errors
        and not setup_rows
        and not summary.not_evaluated
        and not summary.another_eval
    )
    failures = _failure_reasons(summary, report.counts)
    errors = _error_reasons(report.counts)
    gate_reasons = _gate_reasons(
        comparison, gate, policy, baseline_asked=baseline_asked, problem=baseline_problem
    )

    def made(verdict: Verdict, code: int, reasons: list[str]) -> Decision:
        conclusion: Conclusion = "failure" if code != EXIT_PASSED else "success"
        if code == EXIT_PASSED and (not tasks_passed or verdict is Verdict.NOTHING):
            conclusion = "neutral"
        return Decision(policy, verdict, code, conclusion, gate, tasks_passed, tuple(reasons))

    unevaluated = _not_evaluated_reasons(not_evaluated)
    common = report.common_failure
    common = common if common is not None and common.setup else None
    setup = _setup_reason(setup_rows, common) if setup_rows or common is not None else None
    another = (
        f"{plural(len(summary.another_eval), 'results file')} of another eval than the spec "
        f"(both named below); {FIX_ANOTHER_EVAL}"
    )
    gating_failures = policy.fail_on is FailOn.FAILURES and bool(failures)
    gating_regressions = policy.fail_on is FailOn.REGRESSIONS and gate_reasons.fails
    # The order of severity: the first that holds decides; its reasons come first.
    severity: tuple[tuple[bool, Verdict, int, list[str]], ...] = (
        (
            bool(summary.another_eval),
            Verdict.ANOTHER_EVAL,
            EXIT_GRADER_ERROR,
            [another, *unevaluated, *errors],
        ),
        (setup is not None, Verdict.SETUP, EXIT_GRADER_ERROR, [setup or "", *unevaluated, *errors]),
        (bool(unevaluated), Verdict.NOT_EVALUATED, EXIT_GRADER_ERROR, [*unevaluated, *errors]),
        (bool(errors), Verdict.ERRORS, EXIT_GRADER_ERROR, errors),
        (gating_failures, Verdict.FAILED, EXIT_FAILED, failures),
        (gating_regressions, Verdict.FAILED, EXIT_FAILED, gate_reasons.lines),
        (
            not report.tasks or report.counts.runs == 0,
            Verdict.NOTHING,
            EXIT_PASSED,
            gate_reasons.lines,
        ),
    )
    for holds, verdict, code, reasons in severity:
        if holds:
            return made(verdict, code, reasons)
    tolerated = [f"{line}, which fail-on {policy.fail_on} lets pass" for line in failures]
    if accepted:
        tolerated.insert(
            0,
            f"{plural(len(accepted), 'task')} of the spec had no saved run, which "
            "--allow-tasks-without-runs accepts (listed below)",
        )
    return made(Verdict.PASSED, EXIT_PASSED, [*tolerated, *gate_reasons.lines])


def split_not_evaluated(
    tasks: Sequence[NotEvaluated], policy: GatePolicy
) -> tuple[list[NotEvaluated], list[NotEvaluated]]:
    """The tasks not evaluated that fail the step, and those the policy accepts (tasks with no
    saved run, under `allow_tasks_without_runs`; never tasks whose runs errored)."""
    accepts = policy.allow_tasks_without_runs
    accepted = [t for t in tasks if accepts and t.why is NotEvaluatedWhy.NO_RUN]
    return [t for t in tasks if t not in accepted], accepted


def _not_evaluated_reasons(tasks: Sequence[NotEvaluated]) -> list[str]:
    if not tasks:
        return []
    no_run = sum(1 for t in tasks if t.why is NotEvaluatedWhy.NO_RUN)
    errored = [t for t in tasks if t.why is NotEvaluatedWhy.ALL_ERRORED]
    parts = [f"{no_run} with no saved run"] if no_run else []
    if errored:
        runs = sum(t.runs_errored for t in errored)
        parts.append(f"{len(errored)} whose {plural(runs, 'run')} all errored in execution")
    fix = FIX_NOT_EVALUATED if no_run else FIX_ERRORED
    what = plural(len(tasks), "task")
    return [
        f"{what} of the spec {agreed(len(tasks), 'was', 'were')} not evaluated "
        f"({', '.join(parts)}); {fix}"
    ]


def gate_state(
    comparison: BaselineComparison | None, problem: BaselineProblem | None = None
) -> GateState:
    """pass / fail / no-baseline (also for a baseline that cannot serve: nothing compared)."""
    if comparison is None or problem is not None or not comparison.shares_a_task:
        return GateState.NO_BASELINE
    return GateState.FAIL if comparison.failed else GateState.PASS


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
    problem: BaselineProblem | None,
) -> _GateReasons:
    gating = policy.fail_on is FailOn.REGRESSIONS
    if gate is GateState.FAIL:
        assert comparison is not None
        regressed = len(comparison.regressions)
        what = plural(regressed, "task") + " regressed" if regressed else "waza's gate failed"
        line = f"the regression gate failed: {what} against {comparison.against}"
        return _GateReasons(
            [line if gating else f"{line} (not gating: fail-on {policy.fail_on})"], gating
        )
    if gate is GateState.NO_BASELINE and (gating or baseline_asked):
        if problem is None and comparison is not None:
            problem = BaselineProblem.SHARES_NO_TASK
        missing = _BASELINE_MISSING[problem]
        if not gating:
            return _GateReasons([f"{missing}: nothing was compared"], False)
        if policy.allow_missing_baseline:
            return _GateReasons(
                [f"{missing}: the gate passes, as --allow-missing-baseline allows"], False
            )
        fix = _BASELINE_FIX.get(problem, FIX_MISSING_BASELINE) if problem else FIX_MISSING_BASELINE
        return _GateReasons([f"the regression gate cannot pass: {missing}; {fix}"], True)
    return _GateReasons([], False)


def _failure_reasons(summary: GradeSummary, counts: Counts) -> list[str]:
    """Tasks below `--min-task-pass-rate` (every run, by default) are what `failures` gates on."""
    failed = [task for task in summary.tasks if not task.meets(summary.min_task_pass_rate)]
    if not failed:
        return []
    why = [plural(counts.failures, "failing grader")] if counts.failures else []
    if counts.runs_errored:
        why.append(f"{plural(counts.runs_errored, 'run')} errored in execution")
    return [f"{plural(len(failed), 'task')} did not pass ({', '.join(why) or 'no verdict'})"]


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


def _setup_reason(rows: Sequence[GraderRow], common: CommonFailure | None) -> str:
    """The setup problem in one line, with its likely fix (fixed sentences of ours)."""
    if common is not None:
        what = f"every {common.what} ({common.executions}) failed the same way"
        return f"graders could not run: {what}; likely fix: {common.hint}"
    hint = next((row.hint for row in rows if row.hint), None)
    tasks = plural(len({row.task_key for row in rows}), "task")
    line = f"graders could not run: {plural(len(rows), 'grader')} on {tasks}"
    return f"{line}; likely fix: {hint}" if hint else line
