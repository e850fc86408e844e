"""The graded tasks and the regraded results files: every run's verdicts written back into a
copy of waza's document, and waza's summary rebuilt from the runs as waza rebuilds it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.grading.plan import TaskMatch
from waza_ci.grading.run import ExecutionResult
from waza_ci.grading.verdicts import MergedRun, grader_refs, merge_run
from waza_ci.waza.digest import TaskDigestInput, build_digest, build_test_stats
from waza_ci.waza.results import ResultsFile
from waza_ci.waza.scoring import TaskGrade
from waza_ci.waza.usage import aggregate_usage, run_usages


@dataclass(frozen=True)
class RegradedFile:
    """A results file after grading, in waza's format (`raw`), and where it came from."""

    source: ResultsFile
    raw: dict[str, Any]


def assemble(
    matches: Sequence[TaskMatch],
    results_files: Sequence[ResultsFile],
    results: Sequence[ExecutionResult],
    kept_notes: Mapping[tuple[int, int, str], tuple[str, ...]] | None = None,
) -> tuple[tuple[TaskGrade, ...], tuple[RegradedFile, ...]]:
    """`kept_notes`: what a kept verdict says of itself, by (id of the match, run index, grader
    name) (grading/judging.py)."""
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
                _notes_of(kept_notes, id(match), run_index),
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
    regraded = tuple(RegradedFile(r, with_digest(raw_copies[id(r)])) for r in results_files)
    return tuple(tasks), regraded


def _notes_of(
    notes: Mapping[tuple[int, int, str], tuple[str, ...]] | None, match: int, run_index: int
) -> dict[str, tuple[str, ...]]:
    if not notes:
        return {}
    return {name: said for (m, r, name), said in notes.items() if m == match and r == run_index}


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


def with_digest(raw: dict[str, Any]) -> dict[str, Any]:
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
