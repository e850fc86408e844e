"""Check-run annotations: which, in what order, where they point, and within GitHub's limits."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tests.report import factories
from waza_ci.errors import Location
from waza_ci.github.check_limits import fitted
from waza_ci.report.annotations import Annotation, build_annotations, repo_relative_path
from waza_ci.report.build import build_report
from waza_ci.report.github_limits import ANNOTATION_MESSAGE_BYTES, ANNOTATION_TITLE_CHARS
from waza_ci.report.text_safety import utf8_len
from waza_ci.waza.scoring import GradeSummary

REPO = factories.REPO


def _build(summary: GradeSummary) -> list[Annotation]:
    return build_annotations(build_report(summary, repo_root=REPO))


def test_passing_summary_has_no_annotations() -> None:
    assert _build(factories.passing_summary()) == []


def test_failures_errored_runs_and_kept_verdicts() -> None:
    annotations = _build(factories.failing_summary())
    assert [(a.path, a.line, a.title) for a in annotations] == [
        (
            "evals/code-review/tasks/fix-null-check.yaml",
            1,
            "fix-null-check errored in execution (1 of 3 runs, not graded)",
        ),
        ("evals/code-review/eval.yaml", 18, "tests_pass failed on fix-null-check (1 of 2 runs)"),
        (
            # A kept synthetic check has no grader in the spec: it points at the task file,
            # line 1 as the task location has no line.
            "evals/code-review/tasks/add-logging.yaml",
            1,
            "_output_contains failed on add-logging (2 of 2 runs) (kept verdict)",
        ),
        (
            "evals/code-review/tasks/add-logging.yaml",
            9,
            "lint_clean failed on add-logging (1 of 2 runs)",
        ),
    ]
    assert {a.level for a in annotations} == {"failure"}
    errored, tests_pass, kept, _ = annotations
    assert errored.message == (
        "1 of 3 runs of task fix-null-check errored in the original waza run and were not"
        " graded.\n\n× 1 run (run 3):\nsession timed out after 300s waiting for the model"
    )
    assert tests_pass.message.startswith(
        "Reason: FAILED tests/test_user.py::test_none - AssertionError: expected None\n\n"
        "× 1 run (run 1):\nFAILED tests/test_user.py::test_none"
    )
    assert "× 2 runs (runs 1, 2):\nMissing expected keyword: logger" in kept.message


def test_titles_are_plain_text() -> None:
    for summary in (factories.failing_summary(), factories.error_summary()):
        for annotation in _build(summary):
            assert "`" not in annotation.title and "**" not in annotation.title


def test_errors_come_first_and_say_what_to_do() -> None:
    annotations = _build(factories.error_summary())
    # tests_pass errors on both tasks it runs on: one annotation on its line lists them.
    assert [(a.path, a.line, a.title) for a in annotations] == [
        ("evals/code-review/eval.yaml", 18, "tests_pass errors on every task (2)"),
        ("evals/code-review/eval.yaml", 12, "compiles grader error on rename-symbol (1 of 1 run)"),
    ]
    every, compiles = annotations
    assert every.message.startswith(
        "Reason: timed out after 30 s (limit from config.timeout at evals/code-review/eval.yaml:22)"
    )
    assert "- fix-null-check\n- rename-symbol" in every.message
    assert "Reason: command not found: gradle\nWhat to do: install it in the job" in (
        compiles.message
    )


def test_a_global_grader_failing_on_every_task_is_one_annotation() -> None:
    annotations = _build(factories.same_failure_everywhere_summary(tasks=3))
    assert [(a.line, a.title) for a in annotations] == [
        (12, "compiles fails on every task (3)"),
        (18, "tests_pass fails on every task (3)"),
    ]
    assert "- task-0\n- task-1\n- task-2" in annotations[0].message


def test_several_results_files_name_the_file() -> None:
    (annotation,) = _build(factories.multi_results_summary())
    assert (
        annotation.title == "tests_pass failed on results-claude.json:fix-null-check (1 of 1 run)"
    )


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


def test_hostile_names_stay_one_line_and_nothing_is_inserted() -> None:
    annotations = _build(factories.hostile_summary())
    assert annotations
    for annotation in annotations:
        assert "\n" not in annotation.title and "\r" not in annotation.title
        assert len(fitted(annotation).title) <= ANNOTATION_TITLE_CHARS
        assert "\x00" not in annotation.message
        assert "\u200d" not in annotation.title + annotation.message
    assert "@octocat" in annotations[-1].title  # plain text: shown as written, never rendered


def test_non_bmp_characters_read_u_plus() -> None:
    (annotation,) = _build(factories.one_failure_summary("ok 🎉 done"))
    assert "ok U+1F389 done" in annotation.message
    assert not any(ord(char) > 0xFFFF for char in annotation.message + annotation.title)


def test_long_texts_keep_head_and_tail_within_the_limits() -> None:
    summary = factories.huge_summary(tasks=1)
    task = summary.tasks[0]
    long_name = "grader-" + "é" * 500
    runs = tuple(
        factories.run(number, factories.failed(long_name, "€" * 30_000 + f" end {number}"))
        for number in range(1, 4)
    )
    long_task = replace(task, key="t" * 400, runs=runs)
    first = _build(replace(summary, tasks=(long_task,)))
    assert first == _build(replace(summary, tasks=(long_task,)))
    (whole,) = first
    # The report keeps the whole text; GitHub's limits are applied once, where the request
    # (or the log's workflow command) is built.
    assert utf8_len(whole.message) > ANNOTATION_MESSAGE_BYTES
    annotation = fitted(whole)
    assert len(annotation.title) <= ANNOTATION_TITLE_CHARS
    assert annotation.title.startswith("grader-éé")
    assert utf8_len(annotation.message) <= ANNOTATION_MESSAGE_BYTES
    assert utf8_len(annotation.message) > ANNOTATION_MESSAGE_BYTES - 200
    assert "\ufffd" not in annotation.message
    assert re.search(r"\n… [\d,]+ lines cut \([\d,]+ bytes\) …\n", annotation.message)
    assert annotation.message.startswith("Reason: ")
    assert annotation.message.endswith("end 3\n(exit status 1)")


@pytest.mark.slow
def test_huge_summary_is_deterministic_and_bounded() -> None:
    summary = factories.huge_summary(tasks=300)
    annotations = _build(summary)
    assert annotations == _build(summary)
    # tests_pass errors (run 2) on every task: one annotation; compiles fails on every task:
    # one annotation; errors first.
    assert [a.title for a in annotations] == [
        "tests_pass errors on every task (300)",
        "compiles fails on every task (300)",
    ]
    assert all(utf8_len(fitted(a).message) <= ANNOTATION_MESSAGE_BYTES for a in annotations)
    assert "- … and 250 more (see the job summary)" in annotations[0].message


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
