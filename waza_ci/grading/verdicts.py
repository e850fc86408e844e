"""A run's verdicts after grading: the regraded ones, the kept ones, and waza's run status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.graders import kind_of
from waza_ci.grading.plan import regraded_graders
from waza_ci.grading.run import ExecutionResult
from waza_ci.waza.results import SavedRun, SavedVerdict
from waza_ci.waza.scoring import STATUS_ERROR, Diagnosis, GraderRef, RunGrade, Verdict, run_status
from waza_ci.waza.spec import TaskSpec


@dataclass(frozen=True)
class MergedRun:
    """A run after grading, for the report and for the regraded results file."""

    grade: RunGrade
    raw_validations: dict[str, Any]


def merge_run(
    task: TaskSpec, run: SavedRun, raw_run: Mapping[str, Any], new: Sequence[ExecutionResult]
) -> MergedRun:
    """Saved verdicts of other kinds are kept; regraded kinds' verdicts come from this grading."""
    if run.errored:
        return MergedRun(errored_run_grade(run), {})
    regraded_names = {grader.name for grader in regraded_graders(task)}
    saved_raw = raw_run.get("validations") or {}
    raw: dict[str, Any] = {}
    verdicts: dict[str, Verdict] = {}
    for name, saved in (run.validations or {}).items():
        if name in regraded_names:
            continue  # run again now
        if kind_of(saved.type) is not None:
            continue  # its grader left the spec: a stale verdict of a regraded kind is dropped
        raw[name] = saved_raw[name]  # kept byte for byte, unknown fields included
        verdicts[name] = saved_verdict(name, saved)
    for result in new:
        raw[result.execution.grader.name] = result.raw_verdict
        verdicts[result.execution.grader.name] = result.verdict
    ordered = tuple(verdicts[name] for name in sorted(verdicts))
    grade = RunGrade(
        run_number=run.run_number,
        status=run_status(ordered),
        verdicts=ordered,
        duration_ms=run.duration_ms,
    )
    return MergedRun(grade, {name: raw[name] for name in sorted(raw)})


def saved_verdict(
    name: str,
    saved: SavedVerdict,
    *,
    regraded: bool = False,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
) -> Verdict:
    """The report's view of a verdict read from a results file (a kept one, or, in a merge,
    one a shard produced).

    Keyed by its validations key, as waza's aggregation is, whatever `identifier` says."""
    return Verdict(
        name=name,
        kind=saved.type,
        score=saved.score,
        weight=saved.weight,
        passed=saved.passed,
        feedback=saved.feedback,
        regraded=regraded,
        error=error,
        notes=notes,
        duration_ms=saved.duration_ms,
        diagnosis=diagnosis,
    )


def errored_run_grade(run: SavedRun) -> RunGrade:
    """A run that errored in its original execution: reported, never graded (waza's rule)."""
    return RunGrade(
        run_number=run.run_number,
        status=STATUS_ERROR,
        verdicts=(),
        duration_ms=run.duration_ms,
        error_msg=run.error_msg or "run status was error",
    )


def grader_refs(task: TaskSpec) -> dict[str, GraderRef]:
    return {g.name: GraderRef(g.name, g.kind, g.location) for g in task.graders}
