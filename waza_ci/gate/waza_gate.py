"""waza's regression gate (`waza gate`, microsoft/waza cmd/waza/cmd_gate.go), restated.

Two results files, a baseline and a candidate, are compared on three things: the aggregate pass
rate (`summary.success_rate`, as stored in each file), golden tasks (golden on either side must
be `passed` in the candidate), and the task set (tasks added or removed, each with a policy).
The rules, the defaults, the report's fields and the exit codes are waza's, so a workflow can
swap `waza gate` for `waza-ci gate`. Everything but `load_gate_outcome` is pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError, Location
from waza_ci.waza.identity import EvalIdentity, another_eval

UNNAMED_EVAL = EvalIdentity("", "")
"""A file that does not say which eval wrote it (an old or hand-made results file)."""

# waza's documented, stable exit codes for the gate.
GATE_EXIT_PASS = 0
GATE_EXIT_REGRESSION = 1
GATE_EXIT_GOLDEN_FAILURE = 2
GATE_EXIT_CONFIG_ERROR = 3

STATUS_PASSED = "passed"
STATUS_NOT_FOUND = "n/a"
"""waza's status for a task missing from a results file."""


class TaskPolicy(StrEnum):
    """What a task-set change does: nothing, a warning, or a gate failure."""

    ALLOW = "allow"
    WARN = "warn"
    FAIL = "fail"


class GateFormat(StrEnum):
    HUMAN = "human"
    JSON = "json"
    MARKDOWN = "markdown"
    GITHUB_ACTIONS = "github-actions"


class GateOutcomeName(StrEnum):
    PASS = "pass"  # noqa: S105 - an outcome name, not a secret
    REGRESSION = "regression"
    GOLDEN_FAILURE = "golden_failure"


@dataclass(frozen=True)
class GateOptions:
    """The gate's thresholds and policies, with waza's defaults."""

    max_regression_pct: float = 0.0
    """The largest tolerated drop of the pass rate, in percentage points."""
    golden_must_pass: bool = True
    on_new_tasks: TaskPolicy = TaskPolicy.ALLOW
    on_removed_tasks: TaskPolicy = TaskPolicy.WARN

    def __post_init__(self) -> None:
        # waza refuses a negative threshold; NaN would make every comparison false (a gate that
        # can never fail), so it is refused too.
        if math.isnan(self.max_regression_pct) or self.max_regression_pct < 0:
            raise InputError(f"--max-regression-pct must be >= 0, got {self.max_regression_pct:g}")


@dataclass(frozen=True)
class GateTask:
    """What the gate reads of one task: its id, name, golden flag and status."""

    test_id: str
    display_name: str = ""
    golden: bool = False
    status: str = ""


@dataclass(frozen=True)
class GateOutcome:
    """What the gate reads of one results file."""

    success_rate: float
    tasks: tuple[GateTask, ...]
    identity: EvalIdentity = UNNAMED_EVAL
    """The eval that wrote the file (`eval_name`, `skill`): waza's gate does not read it; ours
    names both evals, and warns when they differ (waza/identity.py's rule)."""


@dataclass(frozen=True)
class TaskChange:
    """A task that passed in the baseline and does not in the candidate."""

    test_id: str
    baseline_status: str
    current_status: str


@dataclass(frozen=True)
class GoldenStatus:
    """A golden task that did not pass in the candidate."""

    test_id: str
    display_name: str
    current_status: str
    baseline_status: str = ""


@dataclass(frozen=True)
class GateReport:
    """waza's GateReport: every field of `--format json`, in its order."""

    baseline_file: str
    current_file: str
    baseline_pass_rate: float
    current_pass_rate: float
    pass_rate_delta: float
    max_regression_pct: float
    regression_pct: float
    regression_exceeds_threshold: bool
    golden_total: int
    golden_must_pass: bool
    on_new_tasks: TaskPolicy
    on_removed_tasks: TaskPolicy
    exit_code: int
    outcome: GateOutcomeName
    golden_failures: tuple[GoldenStatus, ...] = ()
    new_tasks: tuple[str, ...] = ()
    removed_tasks: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    baseline_eval: EvalIdentity = UNNAMED_EVAL
    current_eval: EvalIdentity = UNNAMED_EVAL
    regressed_tasks: tuple[TaskChange, ...] = ()
    """For the human and Markdown reports only: waza's JSON has no such key."""

    @property
    def passed(self) -> bool:
        return self.exit_code == GATE_EXIT_PASS

    @property
    def of_different_evals(self) -> bool:
        """The two files say they are of different evals (a warning says which)."""
        return another_eval("", self.current_eval, self.baseline_eval) is not None

    def to_json(self) -> dict[str, Any]:
        """The report as waza's JSON object: same keys, same order, empty lists left out."""
        report: dict[str, Any] = {
            "baseline_file": self.baseline_file,
            "current_file": self.current_file,
            "baseline_pass_rate": self.baseline_pass_rate,
            "current_pass_rate": self.current_pass_rate,
            "pass_rate_delta": self.pass_rate_delta,
            "max_regression_pct": self.max_regression_pct,
            "regression_pct": self.regression_pct,
            "regression_exceeds_threshold": self.regression_exceeds_threshold,
        }
        if self.golden_failures:
            report["golden_failures"] = [_golden_json(g) for g in self.golden_failures]
        report["golden_total"] = self.golden_total
        report["golden_must_pass"] = self.golden_must_pass
        if self.new_tasks:
            report["new_tasks"] = list(self.new_tasks)
        if self.removed_tasks:
            report["removed_tasks"] = list(self.removed_tasks)
        report["on_new_tasks"] = str(self.on_new_tasks)
        report["on_removed_tasks"] = str(self.on_removed_tasks)
        if self.warnings:
            report["warnings"] = list(self.warnings)
        if self.errors:
            report["errors"] = list(self.errors)
        report["exit_code"] = self.exit_code
        report["outcome"] = str(self.outcome)
        return report


def _golden_json(golden: GoldenStatus) -> dict[str, Any]:
    entry: dict[str, Any] = {"test_id": golden.test_id, "display_name": golden.display_name}
    if golden.baseline_status:
        entry["baseline_status"] = golden.baseline_status
    entry["current_status"] = golden.current_status
    return entry


def evaluate_gate(
    baseline: GateOutcome,
    current: GateOutcome,
    options: GateOptions,
    *,
    baseline_file: str = "",
    current_file: str = "",
) -> GateReport:
    """Apply waza's rules; the exit code is decided golden first, then regression, then policy."""
    delta = current.success_rate - baseline.success_rate
    # Percentage points: 0.92 -> 0.85 is a 7pp regression; a rise is no regression.
    regression_pct = -delta * 100.0 if delta < 0 else 0.0
    exceeds = regression_pct > options.max_regression_pct
    base_by_id = _index(baseline.tasks)
    curr_by_id = _index(current.tasks)
    new_tasks = tuple(sorted(set(curr_by_id) - set(base_by_id)))
    removed_tasks = tuple(sorted(set(base_by_id) - set(curr_by_id)))
    golden_ids, golden_failures = _golden(base_by_id, curr_by_id)
    warnings: list[str] = []
    errors: list[str] = []
    # Another eval's file is no baseline (scaffolded sibling evals share task ids); waza's gate
    # would compare them silently. Its exit codes stay waza's: the report says it, in every format.
    if another_eval(current_file, current.identity, baseline.identity):
        warnings.append(
            f"baseline and current are of different evals: the baseline is of eval "
            f"{baseline.identity}, the current file of eval {current.identity}; compare results "
            "of one eval (check the artifacts' names and paths)"
        )
    if new_tasks:
        message = f"current adds {len(new_tasks)} task(s) not in baseline: {', '.join(new_tasks)}"
        _apply_policy(options.on_new_tasks, message, warnings, errors)
    if removed_tasks:
        message = (
            f"current is missing {len(removed_tasks)} task(s) present in baseline: "
            f"{', '.join(removed_tasks)}"
        )
        _apply_policy(options.on_removed_tasks, message, warnings, errors)
    if options.golden_must_pass and golden_failures:
        exit_code, outcome = GATE_EXIT_GOLDEN_FAILURE, GateOutcomeName.GOLDEN_FAILURE
    elif exceeds or errors:
        exit_code, outcome = GATE_EXIT_REGRESSION, GateOutcomeName.REGRESSION
    else:
        exit_code, outcome = GATE_EXIT_PASS, GateOutcomeName.PASS
    return GateReport(
        baseline_file=baseline_file,
        current_file=current_file,
        baseline_pass_rate=baseline.success_rate,
        current_pass_rate=current.success_rate,
        pass_rate_delta=delta,
        max_regression_pct=options.max_regression_pct,
        regression_pct=regression_pct,
        regression_exceeds_threshold=exceeds,
        golden_total=len(golden_ids),
        golden_must_pass=options.golden_must_pass,
        on_new_tasks=options.on_new_tasks,
        on_removed_tasks=options.on_removed_tasks,
        exit_code=exit_code,
        outcome=outcome,
        golden_failures=golden_failures,
        new_tasks=new_tasks,
        removed_tasks=removed_tasks,
        warnings=tuple(warnings),
        errors=tuple(errors),
        baseline_eval=baseline.identity,
        current_eval=current.identity,
        regressed_tasks=_regressed(base_by_id, curr_by_id),
    )


def _regressed(
    base_by_id: Mapping[str, GateTask], curr_by_id: Mapping[str, GateTask]
) -> tuple[TaskChange, ...]:
    """Tasks on both sides that passed in the baseline and do not now, by id."""
    return tuple(
        TaskChange(test_id, STATUS_PASSED, curr_by_id[test_id].status)
        for test_id in sorted(set(base_by_id) & set(curr_by_id))
        if base_by_id[test_id].status == STATUS_PASSED
        and curr_by_id[test_id].status != STATUS_PASSED
    )


def _index(tasks: Sequence[GateTask]) -> dict[str, GateTask]:
    # A later task with the same id replaces an earlier one, as waza's map does.
    return {task.test_id: task for task in tasks}


def _golden(
    base_by_id: Mapping[str, GateTask], curr_by_id: Mapping[str, GateTask]
) -> tuple[set[str], tuple[GoldenStatus, ...]]:
    # Golden on either side: once declared golden a task must keep passing, even when the
    # other file predates the flag.
    golden_ids = {i for i, t in curr_by_id.items() if t.golden}
    golden_ids |= {i for i, t in base_by_id.items() if t.golden}
    failures: list[GoldenStatus] = []
    for test_id in sorted(golden_ids):
        base = base_by_id.get(test_id)
        current = curr_by_id.get(test_id)
        if current is None:
            assert base is not None  # golden_ids come from one side or the other
            failures.append(
                GoldenStatus(
                    test_id=test_id,
                    display_name=base.display_name or test_id,
                    current_status=STATUS_NOT_FOUND,
                    baseline_status=base.status,
                )
            )
        elif current.status != STATUS_PASSED:
            failures.append(
                GoldenStatus(
                    test_id=test_id,
                    display_name=current.display_name,
                    current_status=current.status,
                    baseline_status=base.status if base else "",
                )
            )
    return golden_ids, tuple(failures)


def _apply_policy(policy: TaskPolicy, message: str, warnings: list[str], errors: list[str]) -> None:
    if policy is TaskPolicy.WARN:
        warnings.append(message)
    elif policy is TaskPolicy.FAIL:
        errors.append(message)


# --- reading a results file ---------------------------------------------------------------------


def load_gate_outcome(path: Path) -> GateOutcome:
    """The gate's view of a results file; an unreadable or malformed file is an InputError."""
    # Here, not at the top: `waza-ci --help` builds the gate's parser from this module and must
    # not wait for the results models (pydantic).
    from waza_ci.waza.results import load_results  # noqa: PLC0415

    results = load_results(path)
    raw_tasks = results.raw.get("tasks") or []
    tasks = tuple(
        GateTask(
            test_id=task.test_id,
            display_name=task.display_name,
            golden=_golden_flag(raw_tasks[index], path, index),
            status=task.status,
        )
        for index, task in enumerate(results.model.tasks)
    )
    return GateOutcome(
        success_rate=_success_rate(results.raw, path), tasks=tasks, identity=results.eval_identity
    )


def _golden_flag(raw_task: Any, path: Path, index: int) -> bool:
    value = raw_task.get("golden") if isinstance(raw_task, dict) else None
    if value is None:
        return False
    if not isinstance(value, bool):
        where = Location(str(path), json_path=f"$.tasks[{index}].golden")
        raise InputError("golden must be true or false", where)
    return value


def _success_rate(raw: Mapping[str, Any], path: Path) -> float:
    summary = raw.get("summary")
    if summary is None:
        return 0.0
    if not isinstance(summary, dict):
        raise InputError("summary must be an object", Location(str(path), json_path="$.summary"))
    value = summary.get("success_rate")
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            "success_rate must be a number", Location(str(path), json_path="$.summary.success_rate")
        )
    return float(value)
