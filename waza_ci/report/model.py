"""GradeSummary -> Report: the machine-readable report every renderer starts from. Pure.

One row per (task, grader) with its status, the one-line reason, runs failed out of runs
graded, durations, the grader's YAML line (and its URL at the commit, when known) and its
distinct feedback texts with the runs that produced each. Above the rows: the counts, a
banner when every execution failed the same way, graders failing on every task, the slowest
graders. `Report.to_json()` is the `report-json` file; the Markdown, annotations and terminal
renderers only format what is here, so they agree with each other and with the file.

Texts are kept as the grader wrote them (cleaned of control characters); escaping is the
renderers' job, each for its own medium.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import quote

from waza_ci.errors import Location
from waza_ci.report._text import clean
from waza_ci.report.reasons import (
    HINT_SAME_FAILURE,
    Reason,
    failure_signature,
    reason_for,
)
from waza_ci.scoring import (
    PROBLEM_CLEANUP,
    PROBLEM_TIMED_OUT,
    STATUS_ERROR,
    STATUS_PASSED,
    GradeSummary,
    RunGrade,
    SkippedTask,
    TaskGrade,
    Verdict,
)

REPORT_VERSION = 1
SLOWEST_GRADERS = 5

Status = Literal["passed", "failed", "error"]
Verdict_ = Literal["passed", "failed", "errors", "nothing"]


@dataclass(frozen=True)
class SourceLinks:
    """Where the graders' YAML can be seen on GitHub: `<server>/<repo>/blob/<sha>/<path>#L<n>`."""

    server_url: str
    repository: str
    sha: str

    def url(self, path: str, line: int) -> str:
        where = f"{quote(self.repository, safe='/')}/blob/{quote(self.sha)}/{quote(path)}"
        return f"{self.server_url.rstrip('/')}/{where}#L{line}"


@dataclass(frozen=True)
class Source:
    """A YAML line: the repository-relative path, the 1-based line, its URL when known."""

    path: str
    """Repository-relative; "" for a file outside the repository (then `shown` names it)."""
    line: int
    url: str | None = None
    shown: str = ""

    def __str__(self) -> str:
        return f"{self.path or self.shown}:{self.line}"


@dataclass(frozen=True)
class FeedbackGroup:
    """One distinct text and the runs that produced it (identical texts are shown once)."""

    text: str
    runs: tuple[int, ...]


@dataclass(frozen=True)
class GraderResult:
    """One grader on one task, over all the task's graded runs."""

    task_key: str
    grader: str
    kind: str
    status: Status
    problem: str | None
    """For `error`: not-started, timed-out, cancelled or cleanup."""
    reason: str
    hint: str | None
    runs_failed: int
    """Runs where it did not pass (errors included)."""
    runs_total: int
    regraded: bool
    """False for a saved verdict kept unchanged (a prompt grader, …)."""
    duration_ms: int
    max_duration_ms: int
    source: Source
    feedback: tuple[FeedbackGroup, ...]
    """The distinct texts of the runs that did not pass, most frequent first."""
    notes: tuple[str, ...] = ()
    """waza-ci's notes on any run (output cut to the cap, …), distinct, passing runs too."""


@dataclass(frozen=True)
class ErroredRuns:
    """Runs of a task that errored in the original `waza run`: not graded, they fail the task."""

    count: int
    feedback: tuple[FeedbackGroup, ...]


@dataclass(frozen=True)
class TaskResult:
    key: str
    test_id: str
    name: str
    results_name: str
    status: Status
    runs_total: int
    runs_passed: int
    score: float
    duration_ms: int
    source: Source
    graders: tuple[GraderResult, ...]
    errored_runs: ErroredRuns | None = None


@dataclass(frozen=True)
class Counts:
    tasks: int
    runs: int
    runs_graded: int
    runs_failed: int
    """Runs that did not pass, errored runs included."""
    runs_errored: int
    failures: int
    """(task, grader) pairs that failed (without a grader error)."""
    grader_errors: int
    """Executions that could not start, timed out or were cancelled."""
    cleanup_errors: int
    """Executions whose grading-context directory could not be written, verified or removed."""
    elapsed_ms: int
    overall_score: float


@dataclass(frozen=True)
class CommonFailure:
    """Every grader execution failed the same way: one banner instead of N identical rows."""

    executions: int
    reason: str
    hint: str


@dataclass(frozen=True)
class GlobalFailure:
    """A grader defined once (a global grader) that did not pass on any task it ran on."""

    grader: str
    source: Source
    status: Status
    tasks: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class GraderTime:
    grader: str
    source: Source
    executions: int
    total_ms: int
    max_ms: int


@dataclass(frozen=True)
class Report:
    eval_name: str
    eval_path: str
    results_names: tuple[str, ...]
    verdict: Verdict_
    counts: Counts
    tasks: tuple[TaskResult, ...]
    problems: tuple[GraderResult, ...]
    """Every (task, grader) that did not pass: grader errors first, then failures, each in
    task order then grader name."""
    common_failure: CommonFailure | None
    global_failures: tuple[GlobalFailure, ...]
    slowest: tuple[GraderTime, ...]
    skipped: tuple[SkippedTask, ...]
    extra_sections: Mapping[str, Any] = field(default_factory=dict)
    """Room for later steps (e.g. a comparison with the base branch) to add named sections;
    they appear in `to_json()` under their names."""

    @property
    def failed_tasks(self) -> list[str]:
        """Task keys that did not pass (or had a grader error), in report order."""
        return [task.key for task in self.tasks if task.status != "passed"]

    def to_json(self) -> dict[str, Any]:
        return _report_json(self)


# --- building ---------------------------------------------------------------------------------


def repo_relative_path(file: str, repo_root: str) -> str:
    """`file` relative to the repository root `repo_root` (GITHUB_WORKSPACE), or "" when it is
    not inside the repository: an annotation must never name a container path such as
    `/github/workspace/...` nor a file GitHub cannot show (callers then attach no file).

    Paths are POSIX (the action runs in a Linux container). A relative `file` is taken as
    relative to the repository root (waza-ci runs in GITHUB_WORKSPACE). Nothing is resolved on
    disk, so symlinks are not followed.
    """
    path = posixpath.normpath(file) if file else "."
    if posixpath.isabs(path):
        root = posixpath.normpath(repo_root) if repo_root else ""
        if not posixpath.isabs(root):
            return ""  # no absolute root to measure against: cannot place it in the repository
        if root == "/":
            return path.lstrip("/") or "."
        prefix = root.rstrip("/") + "/"
        if not path.startswith(prefix):
            return ""
        path = path[len(prefix) :]
    elif repo_root and not posixpath.isabs(repo_root):
        root = posixpath.normpath(repo_root)
        if path.startswith(root.rstrip("/") + "/"):
            path = path[len(root.rstrip("/")) + 1 :]
    if path == ".." or path.startswith("../"):
        return ""
    return path or "."


@dataclass(frozen=True)
class _Where:
    repo_root: str
    links: SourceLinks | None

    def source(self, location: Location) -> Source:
        # GitHub rejects line 0; a location without a line means the top of the file.
        line = location.line if location.line is not None and location.line >= 1 else 1
        path = repo_relative_path(location.file, self.repo_root)
        if not path:  # outside the repository: shown as it is, never linked or annotated
            return Source("", line, None, shown=posixpath.normpath(location.file))
        url = self.links.url(path, line) if self.links is not None else None
        return Source(path, line, url)


def build_report(
    summary: GradeSummary, *, repo_root: str = "", links: SourceLinks | None = None
) -> Report:
    """The report of `summary`; `repo_root` makes YAML paths repository-relative, `links`
    adds their URLs at the commit being checked."""
    where = _Where(repo_root, links)
    tasks = tuple(_task_result(summary, task, where) for task in summary.tasks)
    rows = [row for task in tasks for row in task.graders if row.status != "passed"]
    problems = tuple(
        [row for row in rows if row.status == "error"]
        + [row for row in rows if row.status == "failed"]
    )
    verdicts = [v for run in summary.runs for v in run.verdicts]
    counts = Counts(
        tasks=len(tasks),
        runs=summary.runs_total,
        runs_graded=summary.runs_graded,
        runs_failed=summary.runs_failed,
        runs_errored=summary.runs_errored,
        failures=sum(1 for row in problems if row.status == "failed"),
        grader_errors=sum(1 for v in verdicts if v.error is not None and not _cleanup(v)),
        cleanup_errors=sum(1 for v in verdicts if _cleanup(v)),
        elapsed_ms=summary.elapsed_ms,
        overall_score=summary.overall_score,
    )
    return Report(
        eval_name=summary.eval_name,
        eval_path=repo_relative_path(summary.eval_path, repo_root)
        or posixpath.normpath(summary.eval_path),
        results_names=summary.results_names,
        verdict=_verdict(summary),
        counts=counts,
        tasks=tasks,
        problems=problems,
        common_failure=_common_failure(summary),
        global_failures=_global_failures(tasks),
        slowest=_slowest(tasks),
        skipped=summary.skipped,
    )


def _cleanup(verdict: Verdict) -> bool:
    return verdict.diagnosis is not None and verdict.diagnosis.problem == PROBLEM_CLEANUP


def _verdict(summary: GradeSummary) -> Verdict_:
    if not summary.runs:
        return "nothing"
    if summary.grader_errors:
        return "errors"
    return "passed" if summary.passed else "failed"


def _task_result(summary: GradeSummary, task: TaskGrade, where: _Where) -> TaskResult:
    task_source = where.source(task.task_location or Location(summary.eval_path, 1))
    by_grader: dict[str, list[tuple[RunGrade, Verdict]]] = {}
    for run in task.runs:
        for verdict in run.verdicts:
            by_grader.setdefault(verdict.name, []).append((run, verdict))
    graders = tuple(
        _grader_result(task, name, by_grader[name], where, task_source)
        for name in sorted(by_grader)
    )
    errored = [run for run in task.runs if run.status == STATUS_ERROR]
    has_error = any(row.status == "error" for row in graders)
    status: Status = "error" if has_error else "passed" if task.passed else "failed"
    return TaskResult(
        key=task.key,
        test_id=task.test_id,
        name=task.display_name,
        results_name=task.results_name,
        status=status,
        runs_total=len(task.runs),
        runs_passed=sum(1 for run in task.runs if run.status == STATUS_PASSED),
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


def _grader_result(
    task: TaskGrade,
    name: str,
    entries: Sequence[tuple[RunGrade, Verdict]],
    where: _Where,
    task_source: Source,
) -> GraderResult:
    bad = [(run, v) for run, v in entries if not v.passed or v.error is not None]
    errors = [(run, v) for run, v in bad if v.error is not None]
    status: Status = "error" if errors else "failed" if bad else "passed"
    # The reason comes from the most telling kind of problem: an error over a failure.
    first = (errors or bad or list(entries))[0][1]
    reason = reason_for(first) if bad else Reason("")
    ref = task.graders.get(name)
    durations = [v.duration_ms for _, v in entries]
    return GraderResult(
        task_key=task.key,
        grader=name,
        kind=first.kind,
        status=status,
        problem=first.diagnosis.problem if errors and first.diagnosis is not None else None,
        reason=reason.text,
        hint=reason.hint,
        runs_failed=len(bad),
        runs_total=len(entries),
        regraded=all(v.regraded for _, v in entries),
        duration_ms=sum(durations),
        max_duration_ms=max(durations, default=0),
        source=where.source(ref.location) if ref is not None else task_source,
        feedback=_groups((run.run_number, _shown_text(v)) for run, v in bad),
        notes=tuple(dict.fromkeys(note for _, v in entries for note in _notes(v))),
    )


def _shown_text(verdict: Verdict) -> str:
    """What a reader needs of one failing run: the program's own output when it ran, with
    the exit text; the error or the saved feedback otherwise; then waza-ci's notes."""
    notes = [f"waza-ci: {note}" for note in _notes(verdict)]
    return "\n".join([_output_text(verdict), *notes])


def _notes(verdict: Verdict) -> tuple[str, ...]:
    """The verdict's notes, less a timeout's limit when the reason already says it."""
    timed_out = verdict.diagnosis is not None and verdict.diagnosis.problem == PROBLEM_TIMED_OUT
    return tuple(n for n in verdict.notes if not (timed_out and n.startswith("timed out after")))


def _output_text(verdict: Verdict) -> str:
    diagnosis = verdict.diagnosis
    if verdict.error is not None or diagnosis is None:
        text = verdict.error if verdict.error is not None else verdict.feedback
        if diagnosis is not None and diagnosis.problem == PROBLEM_TIMED_OUT:
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


def _common_failure(summary: GradeSummary) -> CommonFailure | None:
    """Every execution of this grading (at least two) failed or errored with one signature."""
    executions = [v for run in summary.runs for v in run.verdicts if v.regraded]
    if len(executions) < 2 or any(v.passed and v.error is None for v in executions):
        return None
    reasons = [reason_for(v) for v in executions]
    if len({failure_signature(r.text) for r in reasons}) != 1:
        return None
    return CommonFailure(len(executions), reasons[0].text, reasons[0].hint or HINT_SAME_FAILURE)


def _global_failures(tasks: Sequence[TaskResult]) -> tuple[GlobalFailure, ...]:
    """Graders defined at one YAML line, run on at least two tasks, and not passing on any."""
    by_source: dict[tuple[str, Source], list[GraderResult]] = {}
    for task in tasks:
        for row in task.graders:
            if row.regraded:
                by_source.setdefault((row.grader, row.source), []).append(row)
    found = []
    for (name, source), rows in by_source.items():
        if len(rows) >= 2 and all(row.status != "passed" for row in rows):
            status: Status = "error" if any(r.status == "error" for r in rows) else "failed"
            tasks_ = tuple(row.task_key for row in rows)
            found.append(GlobalFailure(name, source, status, tasks_, rows[0].reason))
    return tuple(found)


def _slowest(tasks: Sequence[TaskResult]) -> tuple[GraderTime, ...]:
    """Per grader (name and YAML line), executions and time, slowest total first."""
    times: dict[tuple[str, Source], list[int]] = {}
    for task in tasks:
        for row in task.graders:
            if row.regraded:
                entry = times.setdefault((row.grader, row.source), [0, 0, 0])
                entry[0] += row.runs_total
                entry[1] += row.duration_ms
                entry[2] = max(entry[2], row.max_duration_ms)
    ranked = sorted(times.items(), key=lambda item: (-item[1][1], item[0][0], str(item[0][1])))
    return tuple(
        GraderTime(name, source, count, total, longest)
        for (name, source), (count, total, longest) in ranked[:SLOWEST_GRADERS]
    )


# --- JSON -------------------------------------------------------------------------------------


def report_json_text(report: Report) -> str:
    """The report file's text: indented JSON, characters as themselves, a final newline."""
    return json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n"


def _source_json(source: Source) -> dict[str, Any]:
    return {"path": source.path, "line": source.line, "url": source.url}


def _grader_json(row: GraderResult) -> dict[str, Any]:
    return {
        "grader": row.grader,
        "kind": row.kind,
        "status": row.status,
        "problem": row.problem,
        "reason": row.reason or None,
        "hint": row.hint,
        "runs_failed": row.runs_failed,
        "runs_total": row.runs_total,
        "regraded": row.regraded,
        "duration_ms": row.duration_ms,
        "max_duration_ms": row.max_duration_ms,
        "source": _source_json(row.source),
        "feedback": [{"text": g.text, "runs": list(g.runs)} for g in row.feedback],
        "notes": list(row.notes),
    }


def _report_json(report: Report) -> dict[str, Any]:
    counts = report.counts
    data: dict[str, Any] = {
        "version": REPORT_VERSION,
        "eval": {"name": report.eval_name, "path": report.eval_path},
        "results_files": list(report.results_names),
        "verdict": report.verdict,
        "counts": {
            "tasks": counts.tasks,
            "runs": counts.runs,
            "runs_graded": counts.runs_graded,
            "runs_failed": counts.runs_failed,
            "runs_errored": counts.runs_errored,
            "failures": counts.failures,
            "grader_errors": counts.grader_errors,
            "cleanup_errors": counts.cleanup_errors,
            "elapsed_ms": counts.elapsed_ms,
            "overall_score": counts.overall_score,
        },
        "failed_tasks": report.failed_tasks,
        "common_failure": None
        if report.common_failure is None
        else {
            "executions": report.common_failure.executions,
            "reason": report.common_failure.reason,
            "hint": report.common_failure.hint,
        },
        "global_failures": [
            {
                "grader": g.grader,
                "status": g.status,
                "source": _source_json(g.source),
                "tasks": list(g.tasks),
                "reason": g.reason,
            }
            for g in report.global_failures
        ],
        "slowest_graders": [
            {
                "grader": t.grader,
                "source": _source_json(t.source),
                "executions": t.executions,
                "total_ms": t.total_ms,
                "max_ms": t.max_ms,
            }
            for t in report.slowest
        ],
        "tasks": [
            {
                "key": task.key,
                "test_id": task.test_id,
                "name": task.name,
                "results_file": task.results_name,
                "status": task.status,
                "runs_passed": task.runs_passed,
                "runs_total": task.runs_total,
                "score": task.score,
                "duration_ms": task.duration_ms,
                "source": _source_json(task.source),
                "errored_runs": None
                if task.errored_runs is None
                else {
                    "count": task.errored_runs.count,
                    "feedback": [
                        {"text": g.text, "runs": list(g.runs)} for g in task.errored_runs.feedback
                    ],
                },
                "graders": [_grader_json(row) for row in task.graders],
            }
            for task in report.tasks
        ],
        "skipped": [
            {"results_file": s.results_name, "test_id": s.test_id, "reason": s.reason}
            for s in report.skipped
        ],
    }
    data.update(report.extra_sections)
    return data
