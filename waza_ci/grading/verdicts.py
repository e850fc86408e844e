"""A run's verdicts after grading: the regraded ones, the kept ones, and waza's run status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from waza_ci.graders import is_regraded
from waza_ci.grading.run import ExecutionResult
from waza_ci.waza.results import SavedRun, SavedVerdict
from waza_ci.waza.scoring import Diagnosis, GraderRef, GraderVerdict, RunGrade, Status, run_status
from waza_ci.waza.spec import TaskSpec


@dataclass(frozen=True)
class MergedRun:
    """A run after grading, for the report and for the regraded results file."""

    grade: RunGrade
    raw_validations: dict[str, Any]


def merge_run(
    task: TaskSpec,
    run: SavedRun,
    raw_run: Mapping[str, Any],
    new: Sequence[ExecutionResult],
    kept_notes: Mapping[str, tuple[str, ...]] | None = None,
) -> MergedRun:
    """The spec's kept graders (an LLM judge, an unknown kind) keep their saved verdicts; every
    other verdict comes from this grading. A saved verdict of a grader no longer in the spec is
    dropped, as `waza grade` drops it. An errored run is not graded (waza's rule) and keeps
    its saved verdicts as evidence only: they count for nothing (waza v0.42.2, #1151)."""
    saved_raw = raw_run.get("validations") or {}
    if run.errored:
        return MergedRun(errored_run_grade(run), dict(saved_raw))
    judged = {result.execution.grader.name for result in new}  # a re-judged `prompt` grader
    kept_names = {g.name for g in task.graders if not is_regraded(g)} - judged
    saved = run.validations or {}
    notes = kept_notes or {}
    raw: dict[str, Any] = {}
    verdicts: dict[str, GraderVerdict] = {}
    for name in kept_names & saved.keys():
        raw[name] = saved_raw[name]  # kept byte for byte, unknown fields included
        verdicts[name] = saved_verdict(name, saved[name], notes=notes.get(name, ()))
    for result in new:
        name = result.execution.grader.name
        raw[name] = result.raw_verdict
        before = saved.get(name)
        if before is None or result.verdict.saved_passed is not None:  # in-process kinds set it
            verdicts[name] = result.verdict
        else:
            verdicts[name] = _with_saved(result.verdict, before)
    ordered = tuple(verdicts[name] for name in sorted(verdicts))
    grade = RunGrade(
        run_number=run.run_number,
        status=run_status(ordered),
        verdicts=ordered,
        duration_ms=run.duration_ms,
        ungraded=tuple(sorted(kept_names - saved.keys())),
        dropped=tuple((name, saved[name].passed) for name in sorted(saved.keys() - raw.keys())),
    )
    return MergedRun(grade, {name: raw[name] for name in sorted(raw)})


def _with_saved(verdict: GraderVerdict, before: SavedVerdict) -> GraderVerdict:
    """The regraded verdict, knowing what the results file said (dataclasses.replace, spelled
    out: it runs for every verdict, and replace's introspection costs more than the grading)."""
    return GraderVerdict(
        name=verdict.name,
        kind=verdict.kind,
        score=verdict.score,
        weight=verdict.weight,
        passed=verdict.passed,
        feedback=verdict.feedback,
        regraded=verdict.regraded,
        error=verdict.error,
        duration_ms=verdict.duration_ms,
        diagnosis=verdict.diagnosis,
        notes=verdict.notes,
        saved_passed=before.passed,
        saved_score=before.score,
    )


def saved_verdict(
    name: str,
    saved: SavedVerdict,
    *,
    regraded: bool = False,
    error: str | None = None,
    notes: tuple[str, ...] = (),
    diagnosis: Diagnosis | None = None,
    kind: str | None = None,
    saved_passed: bool | None = None,
    saved_score: float | None = None,
) -> GraderVerdict:
    """The report's view of a verdict read from a results file (a kept one, or, in a merge,
    one a shard produced; `kind` is its grader's where waza writes another `type`).

    Keyed by its validations key, as waza's aggregation is, whatever `identifier` says."""
    return GraderVerdict(
        name=name,
        kind=saved.type if kind is None else kind,
        score=saved.score,
        weight=saved.weight,
        passed=saved.passed,
        feedback=saved.feedback,
        regraded=regraded,
        error=error,
        notes=notes,
        duration_ms=saved.duration_ms,
        diagnosis=diagnosis,
        saved_passed=saved_passed,
        saved_score=saved_score,
    )


def errored_run_grade(run: SavedRun) -> RunGrade:
    """A run that errored in its original execution: reported, never graded (waza's rule)."""
    return RunGrade(
        run_number=run.run_number,
        status=Status.ERROR,
        verdicts=(),
        duration_ms=run.duration_ms,
        error_msg=run.error_msg or "run status was error",
    )


def grader_refs(task: TaskSpec) -> dict[str, GraderRef]:
    return {g.name: GraderRef(g.name, g.kind, g.location, g.module) for g in task.graders}
