"""`prepare_grading` then `run_grading`: the library calls both shells (CLI, action) make.

It loads the spec and the results files, runs the grading plan, and assembles the summary and
the regraded results files. It reads no process state: paths, the graders' environment and the
temp directory all come in the request.
"""

from __future__ import annotations

import gc
import glob
import os
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
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
from waza_ci.shard.plan import (
    PARTIAL_KEY,
    Shard,
    ShardSelection,
    inputs_digest,
    load_shard_weights,
    partial_section,
    select_shard,
)
from waza_ci.waza.results import ResultsFile, load_results, name_results_files
from waza_ci.waza.scoring import (
    GradeSummary,
    TaskDigestInput,
    TaskGrade,
    build_digest,
    build_test_stats,
)
from waza_ci.waza.spec import EvalSpec, LoadWarning, load_eval
from waza_ci.waza.usage import aggregate_usage, run_usages


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
    shard: Shard | None = None
    """Grade only this shard's tasks and write partial results files (see shard.py)."""
    shard_weights: Sequence[Path] = ()
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
    warnings: tuple[LoadWarning, ...]


@dataclass(frozen=True)
class PreparedGrading:
    """Everything loaded and planned, nothing run yet: the shells check their output paths
    against it, so a usage error is found before any grader has run."""

    spec: EvalSpec
    results_files: tuple[ResultsFile, ...]
    plan: GradingPlan
    setup: GradingSetup
    shard: ShardSelection | None = None


def prepare_grading(request: GradeRequest) -> PreparedGrading:
    """Load the spec and the results files and plan every execution; raises InputError."""
    workspace = _existing_dir(request.workspace, "--workspace")
    working_directory = _existing_dir(request.working_directory, "--working-directory")
    spec = load_eval(request.eval_path, working_directory=working_directory)
    results_files = tuple(load_results_files(request.results, request.max_results_bytes))
    plan = plan_grading(spec, results_files, request.task)
    shard = _select_shard(request, spec, results_files, plan)
    plan = shard.plan if shard is not None else plan
    setup = GradingSetup(
        workspace_dir=str(workspace),
        working_directory=str(working_directory),
        env=dict(request.grader_env),
        temp_dir=request.temp_dir,
        jobs=request.jobs or os.cpu_count() or 1,
        progress=request.progress,
    )
    return PreparedGrading(spec, results_files, plan, setup, shard)


def _select_shard(
    request: GradeRequest, spec: EvalSpec, results_files: Sequence[ResultsFile], plan: GradingPlan
) -> ShardSelection | None:
    if request.shard is None:
        if request.shard_weights:
            raise InputError("shard weights (--shard-weights, input `shard-weights`) need a shard")
        return None
    digest = inputs_digest(
        spec,
        results_files,
        plan,
        task_filter=request.task,
        weights=request.shard_weights,
        shard_count=request.shard.count,
    )
    durations = load_shard_weights(request.shard_weights) if request.shard_weights else None
    return select_shard(plan, request.shard, durations, digest)


def run_grading(prepared: PreparedGrading, *, min_task_pass_rate: float = 1.0) -> GradeReport:
    """Run the plan and assemble the summary and the regraded files; a task passes when at
    least `min_task_pass_rate` of its runs pass."""
    spec, results_files, plan = prepared.spec, prepared.results_files, prepared.plan
    started = time.monotonic()
    results = run_plan(plan, prepared.setup)
    elapsed_ms = round((time.monotonic() - started) * 1000)
    tasks, regraded = _assemble(plan.matches, results_files, results)
    if prepared.shard is not None:
        regraded = _partial_files(prepared, tasks, regraded, elapsed_ms)
    summary = GradeSummary(
        eval_name=spec.name,
        eval_path=str(spec.path),
        results_names=tuple(r.name for r in results_files),
        tasks=tasks,
        skipped=plan.skipped,
        elapsed_ms=elapsed_ms,
        min_task_pass_rate=min_task_pass_rate,
        task_filter=plan.task_filter,
    )
    return GradeReport(spec, summary, regraded, spec.warnings)


def _partial_files(
    prepared: PreparedGrading,
    tasks: Sequence[TaskGrade],
    regraded: Sequence[RegradedFile],
    elapsed_ms: int,
) -> tuple[RegradedFile, ...]:
    """A shard's regraded files become partials: only the tasks it holds (see
    ShardSelection.kept_tasks), their own summary, and the section the merge reads."""
    shard = prepared.shard
    assert shard is not None
    names = [r.name for r in prepared.results_files]
    graded = list(zip(prepared.plan.matches, tasks, shard.positions, strict=True))
    partials = []
    for file in regraded:
        mine = [item for item in graded if item[0].results is file.source]
        every = file.raw["tasks"]
        kept = shard.kept_tasks(file.source.name, len(every), [m.task_index for m, _, _ in mine])
        raw = _with_digest({**file.raw, "tasks": [every[i] for i in kept]})
        raw[PARTIAL_KEY] = partial_section(
            shard,
            prepared.spec,
            names,
            file.source.name,
            mine,
            kept=kept,
            task_count=len(every),
            elapsed_ms=elapsed_ms,
        )
        partials.append(RegradedFile(file.source, raw))
    return tuple(partials)


def merge_grading(patterns: Sequence[str]) -> tuple[GradeReport, list[Path]]:
    """Join the shards' partial results files (paths or globs) into the report an unsharded
    grading of the same inputs gives; also returns the partials' paths. Raises InputError."""
    from waza_ci.shard.merge import merge_partials  # noqa: PLC0415 - its models only load for a merge

    with _collector_paused():
        files = load_results_files(patterns)
        merged = merge_partials(files)
        regraded = tuple(
            RegradedFile(replace(f.base, name=f.name), _with_digest(f.raw)) for f in merged.files
        )
    spec = EvalSpec(Path(merged.eval_path), merged.eval_name, (), warnings=merged.warnings)
    summary = GradeSummary(
        eval_name=merged.eval_name,
        eval_path=merged.eval_path,
        results_names=merged.results_names,
        tasks=merged.tasks,
        skipped=merged.skipped,
        elapsed_ms=merged.elapsed_ms,
        task_filter=merged.task_filter,
    )
    return GradeReport(spec, summary, regraded, merged.warnings), [f.path for f in files]


@contextmanager
def _collector_paused() -> Iterator[None]:
    # Parsing and validating the partials allocates millions of containers, and the cyclic
    # collector would walk all of them again at every collection: measured, it more than
    # doubled the merge's time. Nothing allocated here forms cycles worth collecting.
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    runs = (
        run
        for task in raw.get("tasks") or []
        if isinstance(task, dict)
        for run in task.get("runs") or []
        if isinstance(run, dict)
    )
    digest = build_digest(
        tasks,
        duration if isinstance(duration, int) else 0,
        runs_per_test if isinstance(runs_per_test, int) else 1,
        aggregate_usage(usage for run in runs for usage in run_usages(run)),
    )
    kept = dict(summary) if isinstance(summary, dict) else {}
    # Rebuilt from the runs as waza rebuilds them; a stale interval from the original grading
    # must not survive next to new scores.
    kept.pop("statistics", None)
    kept.pop("usage", None)
    raw["summary"] = {**kept, **digest}
    return raw
