"""GradeSummary -> Report (the types and the JSON are in model.py). Pure.

Rows come out failures first: grader errors, then failures, each in task order then grader
name; identical feedback across runs is grouped; each grader's YAML line is made relative to
the repository (and linked at the commit when known).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import replace

from waza_ci.errors import Location
from waza_ci.policy import DEFAULT_POLICY, GatePolicy
from waza_ci.report.decision import split_not_evaluated
from waza_ci.report.model import (
    SLOWEST_GRADERS,
    AnotherEvalFile,
    CommonFailure,
    Counts,
    DroppedGrader,
    ErroredRuns,
    FeedbackGroup,
    Flip,
    GlobalFailure,
    GraderRow,
    GraderTime,
    KindCount,
    Report,
    Source,
    SourceLinks,
    TaskResult,
)
from waza_ci.report.modules import module_uses
from waza_ci.report.reasons import (
    HINT_SAME_FAILURE,
    Reason,
    failure_signature,
    reason_for,
)
from waza_ci.report.sources import Where, repo_relative_path
from waza_ci.report.text_safety import clean
from waza_ci.waza.kinds import PROCESS_KINDS
from waza_ci.waza.scoring import (
    GraderRef,
    GraderVerdict,
    GradeSummary,
    Problem,
    RunGrade,
    Status,
    TaskGrade,
)


def build_report(
    summary: GradeSummary,
    *,
    policy: GatePolicy = DEFAULT_POLICY,
    another_eval: tuple[AnotherEvalFile, ...] = (),
    repo_root: str = "",
    links: SourceLinks | None = None,
) -> Report:
    """The report of `summary` (the step's decision on it is decision.py's; `policy` says
    which tasks without runs are accepted, listed apart from those not evaluated);
    `another_eval`: files other than the results that are of another eval (a baseline);
    `repo_root` makes YAML paths repository-relative, `links` adds their URLs at the commit
    being checked."""
    where = Where(repo_root, links)
    tasks = tuple(_task_result(summary, task, where) for task in summary.tasks)
    rows = [row for task in tasks for row in task.graders if row.status is not Status.PASSED]
    problems = tuple(
        [row for row in rows if row.status is Status.ERROR]
        + [row for row in rows if row.status is Status.FAILED]
    )
    verdicts = [v for run in summary.runs for v in run.verdicts]
    counts = Counts(
        tasks=len(tasks),
        runs=summary.runs_total,
        runs_graded=summary.runs_graded,
        runs_failed=summary.runs_failed,
        runs_errored=summary.runs_errored,
        failures=sum(1 for row in problems if row.status is Status.FAILED),
        grader_errors=sum(1 for v in verdicts if v.error is not None and not _cleanup(v)),
        cleanup_errors=sum(1 for v in verdicts if _cleanup(v)),
        elapsed_ms=summary.elapsed_ms,
        overall_score=summary.overall_score,
        kinds=_kind_counts(verdicts),
    )
    common_failure = _common_failure(summary)
    not_evaluated, accepted = split_not_evaluated(summary.not_evaluated, policy)
    unevaluated = {task.test_id for task in summary.not_evaluated}
    return Report(
        eval_name=summary.eval_name,
        eval_path=repo_relative_path(summary.eval_path, repo_root)
        or posixpath.normpath(summary.eval_path),
        results_names=summary.results_names,
        counts=counts,
        tasks=tasks,
        problems=problems,
        common_failure=common_failure,
        global_failures=_global_failures(tasks),
        slowest=_slowest(tasks),
        # A task skipped in every file is listed as not evaluated, not twice.
        skipped=tuple(s for s in summary.skipped if s.test_id not in unevaluated),
        dropped=_dropped(summary),
        not_evaluated=tuple(not_evaluated),
        accepted_without_runs=tuple(accepted),
        another_eval=(
            *(AnotherEvalFile("results", found) for found in summary.another_eval),
            *another_eval,
        ),
        modules=module_uses(summary.tasks, where),
    )


def _dropped(summary: GradeSummary) -> tuple[DroppedGrader, ...]:
    """Per task, the graders whose saved verdicts were dropped (no longer in the spec)."""
    found: list[DroppedGrader] = []
    for task in summary.tasks:
        tally: dict[str, list[int]] = {}
        for run in task.runs:
            for name, passed in run.dropped:
                counts = tally.setdefault(name, [0, 0])
                counts[0] += 1
                counts[1] += 0 if passed else 1
        found += (DroppedGrader(task.key, name, *tally[name]) for name in sorted(tally))
    return tuple(found)


def _kind_counts(verdicts: Iterable[GraderVerdict]) -> tuple[KindCount, ...]:
    tally: dict[str, list[int]] = {}
    for verdict in verdicts:
        tally.setdefault(verdict.kind, [0, 0])[0 if verdict.regraded else 1] += 1
    return tuple(KindCount(kind, *tally[kind]) for kind in sorted(tally))


def _cleanup(verdict: GraderVerdict) -> bool:
    return verdict.diagnosis is not None and verdict.diagnosis.problem == Problem.CLEANUP


def _task_result(summary: GradeSummary, task: TaskGrade, where: Where) -> TaskResult:
    task_source = where.source(task.task_location or Location(summary.eval_path, 1))
    by_grader: dict[str, list[tuple[RunGrade, GraderVerdict]]] = {}
    unjudged: dict[str, list[RunGrade]] = {}
    for run in task.runs:
        for verdict in run.verdicts:
            by_grader.setdefault(verdict.name, []).append((run, verdict))
        for name in run.ungraded:
            unjudged.setdefault(name, []).append(run)
    graders = tuple(
        _with_unjudged(
            _grader_result(task, name, by_grader[name], where, task_source)
            if name in by_grader
            else None,
            task,
            name,
            runs=unjudged.get(name, ()),
            where=where,
            task_source=task_source,
        )
        for name in sorted(by_grader.keys() | unjudged.keys())
    )
    if task.nothing_graded:
        graders = _not_graded(task, where, task_source)
    errored = [run for run in task.runs if run.status == Status.ERROR]
    has_error = any(row.status is Status.ERROR for row in graders)
    passed = task.passed and task.fully_graded
    status = Status.ERROR if has_error else Status.PASSED if passed else Status.FAILED
    return TaskResult(
        key=task.key,
        test_id=task.test_id,
        name=task.display_name,
        results_name=task.results_name,
        status=status,
        runs_total=len(task.runs),
        runs_passed=task.runs_passed,
        score=task.overall_score,
        duration_ms=sum(row.duration_ms for row in graders if row.regraded),
        source=task_source,
        graders=graders,
        errored_runs=ErroredRuns(
            len(errored),
            _groups(
                (run.run_number, clean(run.error_msg or "run status was error").strip("\n"))
                for run in errored
            ),
        )
        if errored
        else None,
    )


def _not_graded(task: TaskGrade, where: Where, task_source: Source) -> tuple[GraderRow, ...]:
    """A task no grader said anything about: one failing row per grader of the spec (or one
    for the task when it has none), saying why, so it is listed and never counts as passed."""
    if not task.graders:
        reason = "not graded: the task has no graders"
        return (_unjudged_row(task, "", "", source=task_source, reason=reason, runs=task.runs),)
    return tuple(
        _unjudged_row(
            task,
            ref.name,
            ref.kind,
            source=where.source(ref.location, _ref(ref)),
            reason=_not_run_reason(ref.kind, ref.name),
            runs=task.runs,
        )
        for ref in sorted(task.graders.values(), key=lambda ref: ref.name)
    )


def _unjudged_row(
    task: TaskGrade,
    name: str,
    kind: str,
    *,
    source: Source,
    reason: str,
    runs: Sequence[RunGrade],
) -> GraderRow:
    """A failing row for a grader nobody judged on `runs`, saying why."""
    return GraderRow(
        task_key=task.key,
        grader=name,
        kind=kind,
        status=Status.FAILED,
        problem=None,
        reason=reason,
        hint=None,
        runs_failed=len(runs),
        runs_total=len(runs),
        regraded=False,
        duration_ms=0,
        max_duration_ms=0,
        source=source,
        feedback=(FeedbackGroup(reason, tuple(run.run_number for run in runs)),),
        graded=False,
    )


def _not_run_reason(kind: str, name: str) -> str:
    """Why a grader has no verdict: it needs a model (unknown kinds are refused at load), so
    waza-ci keeps what was saved, and nothing was."""
    return (
        f"not graded: a `{kind}` grader needs a model, so waza-ci keeps its saved verdict, "
        f"and the results file holds no verdict of {name or 'this grader'}"
    )


def _with_unjudged(
    row: GraderRow | None,
    task: TaskGrade,
    name: str,
    *,
    runs: Sequence[RunGrade],
    where: Where,
    task_source: Source,
) -> GraderRow:
    """A kept grader's row counting the runs that have no saved verdict of it as failing."""
    if not runs:
        assert row is not None
        return row
    ref = task.graders.get(name)
    kind = ref.kind if ref is not None else (row.kind if row is not None else "")
    reason = _not_run_reason(kind, name)
    if row is None:
        source = where.source(ref.location, _ref(ref)) if ref is not None else task_source
        return _unjudged_row(task, name, kind, source=source, reason=reason, runs=runs)
    group = FeedbackGroup(reason, tuple(run.run_number for run in runs))
    return replace(
        row,
        status=Status.FAILED if row.status is Status.PASSED else row.status,
        reason=row.reason or reason,
        runs_failed=row.runs_failed + len(runs),
        runs_total=row.runs_total + len(runs),
        feedback=(*row.feedback, group),
    )


def _grader_result(
    task: TaskGrade,
    name: str,
    entries: Sequence[tuple[RunGrade, GraderVerdict]],
    where: Where,
    task_source: Source,
) -> GraderRow:
    bad = [(run, v) for run, v in entries if not v.passed or v.error is not None]
    errors = [(run, v) for run, v in bad if v.error is not None]
    status = Status.ERROR if errors else Status.FAILED if bad else Status.PASSED
    # The reason comes from the most telling kind of problem: an error over a failure.
    first = (errors or bad or list(entries))[0][1]
    reason = reason_for(first) if bad else Reason("")
    ref = task.graders.get(name)
    durations = [v.duration_ms for _, v in entries]
    return GraderRow(
        task_key=task.key,
        grader=name,
        kind=first.kind,
        status=status,
        problem=first.diagnosis.problem if errors and first.diagnosis is not None else None,
        reason=reason.text,
        hint=reason.hint,
        setup=reason.setup and all(v.regraded for _, v in bad),
        runs_failed=len(bad),
        runs_total=len(entries),
        regraded=all(v.regraded for _, v in entries),
        duration_ms=sum(durations),
        max_duration_ms=max(durations, default=0),
        source=where.source(ref.location, _ref(ref)) if ref is not None else task_source,
        feedback=_groups((run.run_number, _shown_text(v)) for run, v in bad),
        notes=tuple(dict.fromkeys(note for _, v in entries for note in _notes(v))),
        flips=tuple(
            Flip(run.run_number, v.saved_passed, v.passed)
            for run, v in entries
            if v.flipped and v.saved_passed is not None
        ),
    )


def _shown_text(verdict: GraderVerdict) -> str:
    """What a reader needs of one failing run: the program's own output when it ran, with
    the exit text; the error or the saved feedback otherwise; then waza-ci's notes."""
    notes = [f"waza-ci: {note}" for note in _notes(verdict)]
    return "\n".join([_output_text(verdict), *notes])


def _notes(verdict: GraderVerdict) -> tuple[str, ...]:
    """The verdict's notes, less a timeout's limit when the reason already says it."""
    timed_out = verdict.diagnosis is not None and verdict.diagnosis.problem == Problem.TIMED_OUT
    return tuple(n for n in verdict.notes if not (timed_out and n.startswith("timed out after")))


def _output_text(verdict: GraderVerdict) -> str:
    diagnosis = verdict.diagnosis
    if verdict.error is not None or diagnosis is None:
        text = verdict.error if verdict.error is not None else verdict.feedback
        if diagnosis is not None and diagnosis.problem == Problem.TIMED_OUT:
            text = reason_for(verdict).text  # not "signal: killed", which reads like a crash
        if diagnosis is not None and (diagnosis.stderr.strip() or diagnosis.stdout.strip()):
            output = diagnosis.stderr if diagnosis.stderr.strip() else diagnosis.stdout
            text += "\n" + output
        return clean(text).strip("\n")
    output = diagnosis.stderr if diagnosis.stderr.strip() else diagnosis.stdout
    parts = [clean(output).strip("\n")] if output.strip() else []
    parts.append(f"({diagnosis.exit_error or 'exit status 0'})")
    return "\n".join(parts)


def _groups(entries: Iterable[tuple[int, str]]) -> tuple[FeedbackGroup, ...]:
    """Identical (cleaned) texts merged, keeping the runs; most frequent first, then first seen."""
    runs_by_text: dict[str, list[int]] = {}
    for run_number, text in entries:
        runs_by_text.setdefault(text, []).append(run_number)
    ordered = sorted(runs_by_text.items(), key=lambda item: -len(item[1]))
    return tuple(FeedbackGroup(text, tuple(runs)) for text, runs in ordered)


SAME_FAILURE_GRADERS = 3
"""Graders of this many names failing alike on every execution, whatever they say, are taken
for a broken setup: their own checks differ, so the same failure is not theirs."""


def _common_failure(summary: GradeSummary) -> CommonFailure | None:
    """Every grader process of this grading (at least two) failed or errored with one
    signature. Graders checked in process are left out: a broken setup (a missing interpreter,
    a wrong working directory) fails the processes, while they go on passing."""
    regraded = [v for run in summary.runs for v in run.verdicts if v.regraded]
    executions = [v for v in regraded if v.kind in PROCESS_KINDS]
    if len(executions) < 2 or any(v.passed and v.error is None for v in executions):
        return None
    reasons = [reason_for(v) for v in executions]
    if len({failure_signature(r.text) for r in reasons}) != 1:
        return None
    hint = reasons[0].hint or HINT_SAME_FAILURE
    graders = {v.name for v in executions}
    return CommonFailure(
        len(executions),
        reasons[0].text,
        hint,
        processes_only=len(executions) < len(regraded),
        setup=reasons[0].setup or len(graders) >= SAME_FAILURE_GRADERS,
    )


def _global_failures(tasks: Sequence[TaskResult]) -> tuple[GlobalFailure, ...]:
    """Graders defined at one YAML line, run on at least two tasks, and not passing on any."""
    by_source: dict[tuple[str, Source], list[GraderRow]] = {}
    for task in tasks:
        for row in task.graders:
            if row.regraded:
                by_source.setdefault((row.grader, row.source), []).append(row)
    found = []
    for (name, source), rows in by_source.items():
        if len(rows) >= 2 and all(row.status is not Status.PASSED for row in rows):
            error = any(r.status is Status.ERROR for r in rows)
            status = Status.ERROR if error else Status.FAILED
            tasks_ = tuple(row.task_key for row in rows)
            found.append(GlobalFailure(name, source, status, tasks_, rows[0].reason))
    return tuple(found)


def _slowest(tasks: Sequence[TaskResult]) -> tuple[GraderTime, ...]:
    """Per grader (name and YAML line), executions, time and the tasks it ran on, slowest total
    first. Only graders that ran a program are listed (GraderRow.ran_a_program): the rows of
    in-process graders would say nothing, and would come and go with the machine's load."""
    times: dict[tuple[str, Source], list[int]] = {}
    ran_on: dict[tuple[str, Source], list[str]] = {}
    for task in tasks:
        for row in task.graders:
            if row.ran_a_program:
                key = (row.grader, row.source)
                entry = times.setdefault(key, [0, 0, 0])
                entry[0] += row.runs_total
                entry[1] += row.duration_ms
                entry[2] = max(entry[2], row.max_duration_ms)
                ran_on.setdefault(key, []).append(row.task_key)
    ranked = sorted(times.items(), key=lambda item: (-item[1][1], item[0][0], str(item[0][1])))
    return tuple(
        GraderTime(name, source, count, total, longest, tuple(dict.fromkeys(ran_on[name, source])))
        for (name, source), (count, total, longest) in ranked[:SLOWEST_GRADERS]
    )


def _ref(grader: GraderRef) -> str:
    """A `ref:` grader's module reference, for its source line."""
    return grader.module.ref if grader.module is not None else ""
