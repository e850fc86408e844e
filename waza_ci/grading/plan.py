"""Which grader runs against which saved run: the plan, in a stable order (results file, spec
task, run, grader), so the outcome never depends on `jobs` or on timing."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError, Location, closest_first, did_you_mean, few
from waza_ci.graders import KINDS, is_regraded, kind_of
from waza_ci.graders.session.digest import derived_skills
from waza_ci.graders.session.skill_invocation import SKILL_INVOCATION
from waza_ci.waza.identity import AnotherEval, another_eval
from waza_ci.waza.kinds import MODEL_KINDS
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
    another_eval: tuple[AnotherEval, ...] = ()
    """Results files that say they are of another eval than the spec."""


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
            if kind is None and grader.kind not in MODEL_KINDS:
                raise _unsupported(grader)
            if kind is not None and id(grader) not in configs:
                configs[id(grader)] = config = kind.configure(grader)
                warnings += (LoadWarning(w, grader.location) for w in kind.warnings(grader, config))
    return configs, tuple(warnings)


def _unsupported(grader: GraderSpec) -> InputError:
    """waza's factory error for a `type` it has no grader for, refused at load (waza refuses
    it when it grades), with the kind the typo most resembles."""
    known = sorted({*KINDS, *MODEL_KINDS})
    return InputError(
        f"grader with identifier {grader.name!r} is using an unsupported grader type "
        f"{grader.kind!r}{did_you_mean(grader.kind, known)}. Valid grader types: "
        + ", ".join(known),
        grader.location,
    )


def plan_grading(
    spec: EvalSpec,
    results_files: Sequence[ResultsFile],
    only_task: str | None,
    renamed_from: Collection[str] = (),
) -> GradingPlan:
    """Match spec tasks to saved tasks by test id and list every grader execution; note the
    results files of another eval (`renamed_from`: old names that still count as this one)."""
    tasks = spec.tasks
    if only_task is not None:
        tasks = tuple(t for t in spec.tasks if t.id == only_task)
        if not tasks:
            ids = closest_first(only_task, (t.id for t in spec.tasks))
            raise InputError(
                f"task {only_task!r} not found in spec or is disabled; its tasks: {few(ids)}",
                Location(str(spec.path)),
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
        saved = [saved.test_id for results in results_files for saved in results.model.tasks]
        raise InputError(
            "no tasks were graded: none of the spec's tasks had matching runs in the results "
            f"file(s) (the spec's tasks: {few(t.id for t in tasks)}; the results' tasks: "
            f"{few(saved)}); are these results of another eval?",
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
    warnings += _derived_skills_warnings(executions)
    foreign = (
        another_eval(str(r.path), r.eval_identity, spec.eval_identity, renamed_from)
        for r in results_files
    )
    return GradingPlan(
        tuple(matches),
        tuple(skipped),
        executions,
        only_task,
        warnings,
        tuple(f for f in foreign if f is not None),
    )


def _derived_skills_warnings(executions: Sequence[Execution]) -> tuple[LoadWarning, ...]:
    """Once per results file: how many runs judged by `skill_invocation` graders predate
    `skill_invocations` and had their skills derived (graders/session/digest.py)."""
    derived: dict[Path, set[tuple[int, int]]] = {}
    for execution in executions:
        match = execution.match
        run = match.saved.runs[execution.run_index]
        if execution.grader.kind != SKILL_INVOCATION or run.skill_invocations is not None:
            continue
        if derived_skills(run):
            derived.setdefault(match.results.path, set()).add(
                (match.task_index, execution.run_index)
            )
    return tuple(
        LoadWarning(
            f"{len(runs)} run(s) judged by skill_invocation graders were saved without "
            "`skill_invocations` (by a waza that did not record them yet): the skills they "
            "invoked were derived from the transcript's `skill.invoked` events and the session "
            "digest's `skill` calls, in order",
            Location(str(path)),
        )
        for path, runs in derived.items()
    )
