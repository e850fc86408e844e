"""Check-run annotations: which, in what order, where they point, and within GitHub's limits."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tests.report import factories
from waza_ci.errors import Location
from waza_ci.report._text import ZWJ, utf8_len
from waza_ci.report.annotations import (
    MESSAGE_MAX_BYTES,
    TITLE_MAX_CHARS,
    Annotation,
    build_annotations,
    repo_relative_path,
)
from waza_ci.scoring import GradeSummary

REPO = factories.REPO


def _build(summary: GradeSummary) -> list[Annotation]:
    return build_annotations(summary, repo_root=REPO)


def test_passing_summary_has_no_annotations() -> None:
    assert _build(factories.passing_summary()) == []


def test_failures_errored_runs_and_kept_verdicts() -> None:
    annotations = _build(factories.failing_summary())
    assert [(a.path, a.line, a.title) for a in annotations] == [
        (
            "evals/code-review/tasks/fix-null-check.yaml",
            1,
            "waza: task `fix-null-check` errored in execution (1 of 3 runs, not graded)",
        ),
        (
            "evals/code-review/eval.yaml",
            18,
            "waza: grader `tests_pass` failed on task `fix-null-check` (1 of 3 runs)",
        ),
        (
            # A kept synthetic check has no grader in the spec: it points at the task file,
            # line 1 as the task location has no line.
            "evals/code-review/tasks/add-logging.yaml",
            1,
            "waza: grader `_output_contains` failed on task `add-logging` (2 of 2 runs)",
        ),
        (
            "evals/code-review/tasks/add-logging.yaml",
            9,
            "waza: grader `lint_clean` failed on task `add-logging` (1 of 2 runs)",
        ),
    ]
    assert {a.level for a in annotations} == {"failure"}

    errored, tests_pass, kept, _ = annotations
    assert errored.message == (
        '1 of 3 runs of task fix-null-check ("Fix the null check") in results.json errored'
        " in the original execution and were not graded.\n"
        "Errored runs: results.json run 3\n\n"
        "results.json run 3: session timed out after 300s waiting for the model"
    )
    assert tests_pass.message.startswith(
        "Grader tests_pass (program) failed in 1 of 3 runs of task fix-null-check"
        ' ("Fix the null check") in results.json.\nFailing runs: results.json run 1\n\n'
        "results.json run 1: score 0.00\nexit status 1; stderr: FAILED"
    )
    assert "1 failed, 12 passed in 0.41s" in tests_pass.message
    assert "Failing runs: results.json run 1, results.json run 2" in kept.message
    assert kept.message.count("kept verdict (saved in the results file, not re-run)") == 2


def test_errors_come_first_and_say_error() -> None:
    annotations = _build(factories.error_summary())
    assert [a.title for a in annotations] == [
        "waza: grader `tests_pass` error on task `fix-null-check` (1 of 2 runs)",
        "waza: grader `compiles` error on task `rename-symbol` (1 of 1 run)",
        "waza: grader `tests_pass` error on task `rename-symbol` (1 of 1 run)",
        "waza: grader `tests_pass` failed on task `fix-null-check` (1 of 2 runs)",
    ]
    assert [(a.path, a.line) for a in annotations] == [
        ("evals/code-review/eval.yaml", 18),
        ("evals/code-review/eval.yaml", 12),
        ("evals/code-review/eval.yaml", 18),
        ("evals/code-review/eval.yaml", 18),
    ]
    timeout = annotations[0].message
    assert "errored (a grader or context error fails the step)" in timeout
    assert "Errored runs: results.json run 1" in timeout
    assert "Error: timed out after 30s\nFeedback: Program timed out after 30s" in timeout
    assert "Error: grading context: run has no final_output" in annotations[2].message
    assert "Failing runs: results.json run 2" in annotations[3].message


def test_several_results_files_name_the_file() -> None:
    (annotation,) = _build(factories.multi_results_summary())
    assert annotation.title == (
        "waza: grader `tests_pass` failed on task `results-claude.json:fix-null-check` (1 of 1 run)"
    )
    assert "Failing runs: results-claude.json run 1" in annotation.message


def test_fallback_to_the_eval_file_without_any_location() -> None:
    summary = factories.failing_summary()
    bare = replace(summary.tasks[1], graders={}, task_location=None)
    annotations = _build(replace(summary, tasks=(bare,)))
    # eval_path is relative: taken as relative to the repository root.
    assert {(a.path, a.line) for a in annotations} == {("evals/code-review/eval.yaml", 1)}
    assert len(annotations) == 2


def test_line_zero_or_missing_becomes_one() -> None:
    summary = factories.failing_summary()
    task = summary.tasks[0]
    graders = {"tests_pass": replace(task.graders["tests_pass"], location=Location("eval.yaml", 0))}
    annotations = _build(replace(summary, tasks=(replace(task, graders=graders),)))
    assert [(a.path, a.line) for a in annotations][1] == ("eval.yaml", 1)


def test_hostile_names_stay_one_line_and_cannot_ping() -> None:
    annotations = _build(factories.hostile_summary())
    assert len(annotations) == 3
    for annotation in annotations:
        assert "\n" not in annotation.title and "\r" not in annotation.title
        assert len(annotation.title) <= TITLE_MAX_CHARS
        assert re.search(r"@[\w-]", annotation.title + annotation.message) is None
        assert "\x00" not in annotation.message
    assert f"@{ZWJ}octocat" in annotations[0].title


def test_non_bmp_characters_are_written_as_escapes() -> None:
    summary = factories.failing_summary()
    task = summary.tasks[0]
    runs = (factories.run(1, factories.verdict("tests_pass", passed=False, feedback="ok 🎉")),)
    annotations = _build(replace(summary, tasks=(replace(task, runs=runs),)))
    assert annotations[0].message.endswith("ok \\U0001F389")


def test_long_texts_are_cut_to_the_limits() -> None:
    summary = factories.huge_summary(tasks=1)
    task = summary.tasks[0]
    long_name = "grader-" + "é" * 500
    runs = tuple(
        factories.run(
            number,
            factories.verdict(long_name, passed=False, feedback="€" * 30_000 + f" end {number}"),
        )
        for number in range(1, 4)
    )
    long_task = replace(task, key="t" * 400, runs=runs)
    first = _build(replace(summary, tasks=(long_task,)))
    again = _build(replace(summary, tasks=(long_task,)))
    assert first == again
    (annotation,) = first
    assert len(annotation.title) <= TITLE_MAX_CHARS
    assert annotation.title.startswith("waza: grader `grader-éé")
    assert annotation.title.endswith("(3 of 3 runs)")
    assert utf8_len(annotation.message) <= MESSAGE_MAX_BYTES
    assert utf8_len(annotation.message) > MESSAGE_MAX_BYTES - 200
    assert "\ufffd" not in annotation.message
    assert re.search(
        r"\[[\d,]+ more bytes cut to fit GitHub's annotation limit", annotation.message
    )
    # The list of failing runs comes first, so it survives the cut.
    assert "Failing runs: results.json run 1, results.json run 2, results.json run 3" in (
        annotation.message
    )
    assert "end 3" not in annotation.message


def test_huge_summary_is_deterministic_and_bounded() -> None:
    summary = factories.huge_summary(tasks=300)
    annotations = _build(summary)
    assert annotations == _build(summary)
    # Per task: one error (tests_pass, run 2) then two failures; errors all come first.
    assert len(annotations) == 900
    assert all(" error on task " in a.title for a in annotations[:300])
    assert all(" failed on task " in a.title for a in annotations[300:])
    assert [a.title for a in annotations[300:302]] == [
        "waza: grader `compiles` failed on task `task-00000` (1 of 2 runs)",
        "waza: grader `tests_pass` failed on task `task-00000` (1 of 2 runs)",
    ]
    assert all(utf8_len(a.message) <= MESSAGE_MAX_BYTES for a in annotations)


@pytest.mark.parametrize(
    ("file", "root", "expected"),
    [
        ("/github/workspace/evals/eval.yaml", "/github/workspace", "evals/eval.yaml"),
        ("/github/workspace/evals/eval.yaml", "/github/workspace/", "evals/eval.yaml"),
        ("/github/workspace/./evals/../evals/eval.yaml", "/github/workspace", "evals/eval.yaml"),
        ("/github/workspace-other/eval.yaml", "/github/workspace", ""),
        ("/tmp/evals/eval.yaml", "/github/workspace", ""),
        ("/github/workspace", "/github/workspace", ""),
        ("evals/eval.yaml", "/github/workspace", "evals/eval.yaml"),
        ("./evals//eval.yaml", "/github/workspace", "evals/eval.yaml"),
        ("../outside/eval.yaml", "/github/workspace", ""),
        ("evals/../../outside.yaml", "/github/workspace", ""),
        ("/evals/eval.yaml", "/", "evals/eval.yaml"),
        ("/abs/eval.yaml", "", ""),
        ("repo/evals/eval.yaml", "repo", "evals/eval.yaml"),
    ],
)
def test_repo_relative_path(file: str, root: str, expected: str) -> None:
    assert repo_relative_path(file, root) == expected
