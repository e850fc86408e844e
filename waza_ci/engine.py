"""`prepare_grading` then `run_grading`: the library calls both shells (CLI, action) make.

It loads the spec and the results files, runs the grading plan, and assembles the summary and
the regraded results files. It reads no process state: paths, the graders' environment and the
temp directory all come in the request.
"""

from __future__ import annotations

import glob
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from waza_ci.errors import InputError
from waza_ci.files import MAX_RESULTS_BYTES, identity
from waza_ci.grading import (
    ExecutionResult,
    GradingPlan,
    GradingSetup,
    MergedRun,
    Progress,
    TaskMatch,
    grader_refs,
    merge_run,
    plan_grading,
    run_plan,
)
from waza_ci.results import ResultsFile, load_results, name_results_files
from waza_ci.scoring import (
    GradeSummary,
    TaskDigestInput,
    TaskGrade,
    build_digest,
    build_test_stats,
)
from waza_ci.spec import EvalSpec, load_eval


@dataclass(frozen=True)
class GradeRequest:
    """Everything one grading needs; relative paths are relative to the caller's directory."""

    eval_path: Path
    results: Sequence[str]
    """Paths or globs of `waza run --output` files."""
    task: str | None = None
    workspace: Path = Path()
    working_directory: Path = Path()
    jobs: int | None = None
    grader_env: Mapping[str, str] = field(default_factory=dict)
    """The graders' environment, already cleaned of tokens by the caller."""
    temp_dir: str = "/tmp"  # noqa: S108 - the caller passes its TMPDIR; this is the fallback
    progress: Progress | None = None
    max_results_bytes: int = MAX_RESULTS_BYTES
    """Refuse a results file larger than this (`--max-results-mib`)."""


@dataclass(frozen=True)
class RegradedFile:
    """A results file after grading, in waza's format (`raw`), and where it came from."""

    source: ResultsFile
    raw: dict[str, Any]


@dataclass(frozen=True)
class GradeReport:
    spec: EvalSpec
    summary: GradeSummary
    regraded: tuple[RegradedFile, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class PreparedGrading:
    """Everything loaded and planned, nothing run yet: the shells check their output paths
    against it, so a usage error is found before any grader has run."""

    spec: EvalSpec
    results_files: tuple[ResultsFile, ...]
    plan: GradingPlan
    setup: GradingSetup


def prepare_grading(request: GradeRequest) -> PreparedGrading:
    """Load the spec and the results files and plan every execution; raises InputError."""
    workspace = _existing_dir(request.workspace, "--workspace")
    working_directory = _existing_dir(request.working_directory, "--working-directory")
    spec = load_eval(request.eval_path, working_directory=working_directory)
    results_files = tuple(load_results_files(request.results, request.max_results_bytes))
    plan = plan_grading(spec, results_files, request.task)
    setup = GradingSetup(
        workspace_dir=str(workspace),
        working_directory=str(working_directory),
        env=dict(request.grader_env),
        temp_dir=request.temp_dir,
        jobs=request.jobs or os.cpu_count() or 1,
        progress=request.progress,
    )
    return PreparedGrading(spec, results_files, plan, setup)


def run_grading(prepared: PreparedGrading) -> GradeReport:
    """Run the plan and assemble the summary and the regraded files."""
    spec, results_files, plan = prepared.spec, prepared.results_files, prepared.plan
    results = run_plan(plan, prepared.setup)
    tasks, regraded = _assemble(plan.matches, results_files, results)
    summary = GradeSummary(
        eval_name=spec.name,
        eval_path=str(spec.path),
        results_names=tuple(r.name for r in results_files),
        tasks=tasks,
        skipped=plan.skipped,
    )
    return GradeReport(spec, summary, regraded, spec.warnings)


def load_results_files(
    patterns: Sequence[str], max_bytes: int = MAX_RESULTS_BYTES
) -> list[ResultsFile]:
    """Expand paths and globs (recursive `**`), in order, each file once."""
    if not patterns:
        raise InputError("no results files given (--results)")
    paths: list[Path] = []
    for pattern in patterns:
        if glob.has_magic(pattern):
            found = [Path(p) for p in sorted(glob.glob(pattern, recursive=True))]
            files = [p for p in found if p.is_file()]
            if not files:
                raise InputError(f"results glob {pattern!r} matched no file")
            paths.extend(files)
        else:
            paths.append(Path(pattern))
    unique = list({identity(path): path for path in reversed(paths)}.values())[::-1]
    return [
        load_results(path, name, max_bytes=max_bytes)
        for path, name in zip(unique, name_results_files(unique), strict=True)
    ]


def _existing_dir(path: Path, option: str) -> Path:
    if not path.is_dir():
        raise InputError(f"{option} {str(path)!r} is not an existing directory")
    return path.resolve()


def _assemble(
    matches: Sequence[TaskMatch],
    results_files: Sequence[ResultsFile],
    results: Sequence[ExecutionResult],
) -> tuple[tuple[TaskGrade, ...], tuple[RegradedFile, ...]]:
    by_run: dict[tuple[int, int], list[ExecutionResult]] = defaultdict(list)
    for result in results:
        by_run[(id(result.execution.match), result.execution.run_index)].append(result)
    several = len(results_files) > 1
    # Shallow copies down to what grading rewrites (tasks, runs, summary); everything else is
    # shared with the loaded file, which is never mutated. No deep copy: it doubles memory on
    # large transcripts and recurses on deep ones.
    raw_copies = {id(r): _writable_copy(r.raw) for r in results_files}
    tasks: list[TaskGrade] = []
    for match in matches:
        merged = [
            merge_run(
                match.task,
                run,
                match.results.raw_run(match.task_index, run_index),
                by_run[(id(match), run_index)],
            )
            for run_index, run in enumerate(match.saved.runs)
        ]
        task = TaskGrade(
            key=f"{match.results.name}:{match.task.id}" if several else match.task.id,
            results_name=match.results.name,
            test_id=match.task.id,
            display_name=match.task.name,
            runs=tuple(m.grade for m in merged),
            graders=grader_refs(match.task),
            task_location=match.task.location,
        )
        tasks.append(task)
        _write_back(raw_copies[id(match.results)], match, task, merged)
    regraded = tuple(RegradedFile(r, _with_digest(raw_copies[id(r)])) for r in results_files)
    return tuple(tasks), regraded


def _writable_copy(raw: dict[str, Any]) -> dict[str, Any]:
    copy = dict(raw)
    tasks = raw.get("tasks")
    if isinstance(tasks, list):
        copy["tasks"] = [_task_copy(task) for task in tasks]
    return copy


def _task_copy(task: Any) -> Any:
    if not isinstance(task, dict):
        return task
    copy = dict(task)
    runs = task.get("runs")
    if isinstance(runs, list):
        copy["runs"] = [dict(run) if isinstance(run, dict) else run for run in runs]
    return copy


def _write_back(
    raw: dict[str, Any], match: TaskMatch, task: TaskGrade, merged: Sequence[MergedRun]
) -> None:
    # The original task object keeps every field it had (group, golden, unknown ones);
    # only what grading decides is replaced.
    raw_task = raw["tasks"][match.task_index]
    raw_task["status"] = task.status
    for run_index, merged_run in enumerate(merged):
        raw_run = raw_task["runs"][run_index]
        raw_run["status"] = merged_run.grade.status
        raw_run["validations"] = merged_run.raw_validations
    raw_task["stats"] = build_test_stats(task.runs)


def _with_digest(raw: dict[str, Any]) -> dict[str, Any]:
    summary = raw.get("summary")
    duration = summary.get("duration_ms", 0) if isinstance(summary, dict) else 0
    tasks = [
        TaskDigestInput(
            status=str(task.get("status", "")),
            stats=task.get("stats") if isinstance(task.get("stats"), dict) else None,
            group=str(task.get("group") or ""),
        )
        for task in raw.get("tasks") or []
        if isinstance(task, dict)
    ]
    config = raw.get("config")
    runs_per_test = config.get("runs_per_test") if isinstance(config, dict) else None
    digest = build_digest(
        tasks,
        duration if isinstance(duration, int) else 0,
        runs_per_test if isinstance(runs_per_test, int) else 1,
    )
    kept = dict(summary) if isinstance(summary, dict) else {}
    # A stale interval from the original grading must not survive next to new scores.
    kept.pop("statistics", None)
    raw["summary"] = {**kept, **digest}
    return raw
