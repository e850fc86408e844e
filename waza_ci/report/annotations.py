"""Report -> check-run annotations on the graders' YAML lines, within GitHub's limits. Pure.

Annotation texts are plain text in GitHub's UI (no Markdown is rendered), so titles carry no
backticks or markup, only words and names; control characters are removed and characters
outside the Basic Multilingual Plane are written `U+1F600` (the Checks API rejects 4-byte
UTF-8). Nothing is inserted into the grader's text.

One annotation per (task, grader) that did not pass, except a grader defined once that fails
on every task it runs on: that is one annotation on its YAML line listing the tasks. Order,
by importance (a consumer that shows only the first few shows what matters): grader errors,
runs that errored in the original execution, failures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from waza_ci.english import agreed, plural
from waza_ci.report.model import (
    FeedbackGroup,
    GlobalFailure,
    GraderRow,
    Report,
    Source,
    TaskResult,
)
from waza_ci.report.sources import repo_relative_path
from waza_ci.report.text_safety import (
    UNNAMED,
    clean,
    one_line,
    readable_bmp,
    shorten,
)
from waza_ci.report.widths import ANNOTATION
from waza_ci.waza.scoring import Status

__all__ = ["Annotation", "build_annotations", "repo_relative_path"]

AnnotationLevel = Literal["notice", "warning", "failure"]

TASKS_LISTED = 50


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation: a repository-relative path, a 1-based line, texts within limits."""

    path: str
    line: int
    level: AnnotationLevel
    title: str
    message: str


def _name(text: str) -> str:
    return readable_bmp(shorten(one_line(text), ANNOTATION.name))


def _title(text: str) -> str:
    return text  # GitHub's limit is applied where the request is built (github/check_limits.py)


def _message(text: str) -> str:
    # Clean and readable here; cut to GitHub's limit where the request (or the workflow
    # command) is built, once: github/check_limits.py.
    return readable_bmp(clean(text)).rstrip()


def _groups(groups: tuple[FeedbackGroup, ...]) -> list[str]:
    parts = []
    for group in groups:
        runs = ", ".join(str(n) for n in group.runs)
        label = agreed(len(group.runs), "run")
        parts += ["", f"× {len(group.runs)} {label} ({label} {runs}):", group.text]
    return parts


def _reason_lines(reason: str, hint: str | None) -> list[str]:
    lines = [f"Reason: {one_line(reason)}"] if reason else []
    if hint:
        lines.append(f"What to do: {hint}")
    return lines


def _failure(source: Source, title: str, message: list[str]) -> Annotation:
    return Annotation(
        path=source.path,
        line=source.line,
        level="failure",
        title=_title(title),
        message=_message("\n".join(message)),
    )


def _row_annotation(row: GraderRow) -> Annotation:
    runs = f"{row.runs_failed} of {plural(row.runs_total, 'run')}"
    verb = "grader error" if row.status is Status.ERROR else "failed"
    kept = {"kept": " (kept verdict)", "not graded": " (not graded)"}.get(row.not_run or "", "")
    title = f"{_name(row.grader or UNNAMED)} {verb} on {_name(row.task_key)} ({runs}){kept}"
    message = [*_reason_lines(row.reason, row.hint), *_groups(row.feedback)]
    return _failure(row.source, title, message)


def _global_annotation(failure: GlobalFailure) -> Annotation:
    verb = "errors" if failure.status is Status.ERROR else "fails"
    tasks = failure.tasks
    title = f"{_name(failure.grader or UNNAMED)} {verb} on every task ({len(tasks)})"
    listed = [f"- {one_line(task)}" for task in tasks[:TASKS_LISTED]]
    if len(tasks) > TASKS_LISTED:
        listed.append(f"- … and {len(tasks) - TASKS_LISTED} more (see the job summary)")
    message = [
        *_reason_lines(failure.reason, None),
        "",
        f"The grader did not pass on any of the {plural(len(tasks), 'task')} it ran on:",
        *listed,
    ]
    return _failure(failure.source, title, message)


def _errored_annotation(task: TaskResult) -> Annotation:
    assert task.errored_runs is not None
    counted = f"{task.errored_runs.count} of {plural(task.runs_total, 'run')}"
    title = f"{_name(task.key)} errored in execution ({counted}, not graded)"
    message = [
        f"{counted} of task {one_line(task.key)} errored in the original waza run"
        " and were not graded.",
        *_groups(task.errored_runs.feedback),
    ]
    return _failure(task.source, title, message)


def build_annotations(report: Report) -> list[Annotation]:
    """The report's annotations in order of importance (see the module docstring)."""
    globals_ = {(g.grader, g.source): g for g in report.global_failures}
    errors: list[Annotation] = []
    failures: list[Annotation] = []
    done: set[tuple[str, object]] = set()
    for row in report.problems:
        key = (row.grader, row.source)
        target = errors if row.status is Status.ERROR else failures
        if key in globals_:
            if key not in done:
                done.add(key)
                target.append(_global_annotation(globals_[key]))
            continue
        target.append(_row_annotation(row))
    errored = [_errored_annotation(t) for t in report.tasks if t.errored_runs is not None]
    return errors + errored + failures
