"""Which grader runs against which saved run: the plan, in a stable order (results file, spec
task, run, grader), so the outcome never depends on `jobs` or on timing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.errors import InputError, Location
from waza_ci.graders import is_regraded, kind_of
from waza_ci.waza.results import ResultsFile, SavedTask
from waza_ci.waza.scoring import SkippedTask
from waza_ci.waza.spec import EvalSpec, GraderSpec, LoadWarning, TaskSpec


@dataclass(frozen=True)
class TaskMatch:
    """A spec task found in a results file."""

    results: ResultsFile
    task: TaskSpec
    task_index: int
    saved: SavedTask


@dataclass(frozen=True, slots=True)
class Execution:
    """One grader against one saved run."""

    match: TaskMatch
    run_index: int
    grader: GraderSpec
    timeout_s: int
    timeout_source: str = ""
    config: Any = None
    """The grader's decoded `config` (its kind's `configure`), shared by its executions."""
    in_process: bool = False
    """Graded inside this process (microseconds), not by starting a program."""


@dataclass(frozen=True)
class GradingPlan:
    matches: tuple[TaskMatch, ...]
    skipped: tuple[SkippedTask, ...]
    executions: tuple[Execution, ...]
    task_filter: str | None = None
    """The one task id (`--task`) the plan was cut to, if any."""
    warnings: tuple[LoadWarning, ...] = ()
    """What the graders' configs call for before anything runs (each grader once)."""


def regraded_graders(task: TaskSpec) -> tuple[GraderSpec, ...]:
    """The task's graders that waza-ci runs again (their kind is registered)."""
    return tuple(g for g in task.graders if is_regraded(g))


def _in_process(grader: GraderSpec) -> bool:
    kind = kind_of(grader)
    return kind is not None and kind.in_process


def configure_graders(spec: EvalSpec) -> tuple[dict[int, Any], tuple[LoadWarning, ...]]:
    """Every regraded grader's decoded `config`, keyed by the grader's identity, and what the
    configs warn of: checked for every task of the spec before anything runs, as waza checks
    them when it loads the spec (an eval-level grader, shared by all tasks, is decoded once)."""
    configs: dict[int, Any] = {}
    warnings: list[LoadWarning] = []
    for task in spec.tasks:
        for grader in task.graders:
            kind = kind_of(grader)
            if kind is not None and id(grader) not in configs:
                configs[id(grader)] = config = kind.configure(grader)
                warnings += (LoadWarning(w, grader.location) for w in kind.warnings(grader, config))
    return configs, tuple(warnings)


def plan_grading(
    spec: EvalSpec, results_files: Sequence[ResultsFile], only_task: str | None
) -> GradingPlan:
    """Match spec tasks to saved tasks by test id and list every grader execution."""
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
    configs, warnings = configure_graders(spec)
    executions = tuple(
        Execution(
            match,
            run_index,
            grader,
            spec.timeout_for(grader),
            spec.timeout_source_for(grader),
            configs[id(grader)],
            _in_process(grader),
        )
        for match in matches
        for run_index, run in enumerate(match.saved.runs)
        if not run.errored
        for grader in regraded_graders(match.task)
    )
    return GradingPlan(tuple(matches), tuple(skipped), executions, only_task, warnings)
