"""GradeSummary + spec locations -> check-run annotations, with GitHub's limits applied. Pure.

Annotation texts are plain text in GitHub's UI (not Markdown), so they are cleaned rather than
escaped: one line for titles, no control characters, `@` neutralised, characters outside the
Basic Multilingual Plane written as `\\UXXXXXXXX` (the Checks API has been seen to reject them).

Order (by importance, so a consumer that can show only the first few shows what matters):
1. grader and context errors (`Verdict.error`; they fail the step with exit 3),
2. runs that errored in the original execution (`RunGrade.error_msg`; not graded),
3. grader failures.
Within each group: the summary's task order, then grader name.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Literal

from waza_ci.errors import Location
from waza_ci.report._text import (
    ELLIPSIS,
    clean,
    cut_utf8,
    format_score,
    neutralise_mentions,
    one_line,
    plural,
    shorten,
    utf8_len,
)
from waza_ci.scoring import STATUS_ERROR, GradeSummary, RunGrade, TaskGrade, Verdict

AnnotationLevel = Literal["notice", "warning", "failure"]

TITLE_MAX_CHARS = 255
MESSAGE_MAX_BYTES = 64_000
NAME_MAX_CHARS = 80
"""Names inside a title are cut to this, so one long name cannot crowd out the rest."""
INTRO_NAME_MAX_CHARS = 200


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation: a repository-relative path, a 1-based line, texts within limits."""

    path: str
    line: int
    level: AnnotationLevel
    title: str
    message: str


_NON_BMP = re.compile(r"[\U00010000-\U0010ffff]")
_PARTIAL_ESCAPE = re.compile(r"\\(?:U[0-9A-F]{0,7})?$")


def _bmp(char: str) -> str:
    return f"\\U{ord(char):08X}"


def _plain(text: str) -> str:
    """Cleaned, mention-safe, BMP-only text (line breaks kept)."""
    text = neutralise_mentions(clean(text))
    return _NON_BMP.sub(lambda match: _bmp(match.group()), text)


def _name(text: str) -> str:
    """A name for a title: one plain line of at most NAME_MAX_CHARS, cut between escapes."""
    plain = _plain(one_line(text))
    if len(plain) <= NAME_MAX_CHARS:
        return plain
    kept = _PARTIAL_ESCAPE.sub("", plain[: NAME_MAX_CHARS - 1]).rstrip()
    return kept + ELLIPSIS


def _title(text: str) -> str:
    """Titles are built from `_name`s and fixed words, so this cut is only a safety net."""
    return shorten(text, TITLE_MAX_CHARS)


def _message(text: str) -> str:
    """The message within MESSAGE_MAX_BYTES: cut at a character boundary, with a note."""
    text = _plain(text).rstrip()
    size = utf8_len(text)
    if size <= MESSAGE_MAX_BYTES:
        return text
    # The note's own length depends on the number it prints; reserve for the widest one.
    widest = _cut_note(size)
    kept = cut_utf8(text, MESSAGE_MAX_BYTES - utf8_len(widest))
    kept = _PARTIAL_ESCAPE.sub("", kept).rstrip()
    return kept + _cut_note(size - utf8_len(kept))


def _cut_note(omitted: int) -> str:
    return (
        f"\n\n… [{omitted:,} more bytes cut to fit GitHub's annotation limit;"
        " the job summary and the regraded results file have the rest]"
    )


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


def _line(location: Location) -> int:
    """1-based; GitHub rejects line 0, and a location without a line means the file's top."""
    return location.line if location.line is not None and location.line >= 1 else 1


def _task_location(summary: GradeSummary, task: TaskGrade) -> Location:
    return task.task_location or Location(summary.eval_path, 1)


def _grader_location(summary: GradeSummary, task: TaskGrade, name: str) -> Location:
    """The grader's YAML line; a verdict with no spec grader (kept) falls back to the task."""
    ref = task.graders.get(name)
    return ref.location if ref is not None else _task_location(summary, task)


def _run_label(task: TaskGrade, run: RunGrade) -> str:
    return f"{one_line(task.results_name)} run {run.run_number}"


def _task_intro(task: TaskGrade) -> str:
    display = shorten(one_line(task.display_name), INTRO_NAME_MAX_CHARS)
    shown = f' ("{display}")' if display and display != task.test_id else ""
    return f"task {one_line(task.test_id)}{shown} in {one_line(task.results_name)}"


def _verdict_entry(task: TaskGrade, run: RunGrade, verdict: Verdict) -> str:
    facts = [f"score {format_score(verdict.score)}"]
    if not verdict.regraded:
        facts.append("kept verdict (saved in the results file, not re-run)")
    head = f"{_run_label(task, run)}: {', '.join(facts)}"
    feedback = clean(verdict.feedback).strip()
    parts = [head]
    if verdict.error is not None:
        parts.append(f"Error: {clean(verdict.error).strip()}")
        if feedback and feedback != clean(verdict.error).strip():
            parts.append(f"Feedback: {feedback}")
    else:
        parts.append(feedback or "(no feedback)")
    return "\n".join(parts)


def _grader_annotation(
    summary: GradeSummary,
    task: TaskGrade,
    name: str,
    entries: list[tuple[RunGrade, Verdict]],
    *,
    error: bool,
    repo_root: str,
) -> Annotation:
    location = _grader_location(summary, task, name)
    kind = entries[0][1].kind
    runs = f"{len(entries)} of {plural(len(task.runs), 'run')}"
    verb = "error" if error else "failed"
    title = f"waza: grader `{_name(name)}` {verb} on task `{_name(task.key)}` ({runs})"
    outcome = "errored (a grader or context error fails the step)" if error else "failed"
    lines = [
        f"Grader {one_line(name)} ({one_line(kind)}) {outcome} in {runs} of {_task_intro(task)}.",
        f"{'Errored' if error else 'Failing'} runs: "
        + ", ".join(_run_label(task, run) for run, _ in entries),
    ]
    lines += ["", "\n\n".join(_verdict_entry(task, run, v) for run, v in entries)]
    return Annotation(
        path=repo_relative_path(location.file, repo_root),
        line=_line(location),
        level="failure",
        title=_title(title),
        message=_message("\n".join(lines)),
    )


def _errored_runs_annotation(
    summary: GradeSummary, task: TaskGrade, runs: list[RunGrade], *, repo_root: str
) -> Annotation:
    location = _task_location(summary, task)
    counted = f"{len(runs)} of {plural(len(task.runs), 'run')}"
    title = f"waza: task `{_name(task.key)}` errored in execution ({counted}, not graded)"
    entries = [
        f"{_run_label(task, run)}: {clean(run.error_msg or '(no error message recorded)').strip()}"
        for run in runs
    ]
    message = "\n".join(
        [
            f"{counted} of {_task_intro(task)} errored in the original execution"
            " and were not graded.",
            "Errored runs: " + ", ".join(_run_label(task, run) for run in runs),
            "",
            "\n\n".join(entries),
        ]
    )
    return Annotation(
        path=repo_relative_path(location.file, repo_root),
        line=_line(location),
        level="failure",
        title=_title(title),
        message=_message(message),
    )


def build_annotations(summary: GradeSummary, *, repo_root: str) -> list[Annotation]:
    """One annotation per failing (task, grader), per erroring (task, grader), and per task
    with runs that errored in execution; ordered by importance as the module says.

    A grader that both errored and failed on a task gets one annotation of each kind.
    """
    errors: list[Annotation] = []
    errored_runs: list[Annotation] = []
    failures: list[Annotation] = []
    for task in summary.tasks:
        by_grader: dict[str, tuple[list[tuple[RunGrade, Verdict]], ...]] = {}
        for run in task.runs:
            for verdict in run.verdicts:
                if verdict.passed and verdict.error is None:
                    continue
                pair = by_grader.setdefault(verdict.name, ([], []))
                pair[0 if verdict.error is not None else 1].append((run, verdict))
        for name in sorted(by_grader):
            erred, failed = by_grader[name]
            if erred:
                errors.append(
                    _grader_annotation(summary, task, name, erred, error=True, repo_root=repo_root)
                )
            if failed:
                failures.append(
                    _grader_annotation(
                        summary, task, name, failed, error=False, repo_root=repo_root
                    )
                )
        not_graded = [run for run in task.runs if run.status == STATUS_ERROR]
        if not_graded:
            errored_runs.append(
                _errored_runs_annotation(summary, task, not_graded, repo_root=repo_root)
            )
    return errors + errored_runs + failures
