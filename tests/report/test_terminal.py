"""The terminal's first screen: verdict, at most 20 rows, escaped untrusted text, colour."""

from __future__ import annotations

from dataclasses import replace

from tests.report import factories
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.terminal import MAX_ROWS, render_text
from waza_ci.report.text_safety import for_log

REPO = factories.REPO


def test_first_screen_lists_failures_with_file_line_and_reason() -> None:
    text = render_text(Evaluation.build(factories.failing_summary(), repo_root=REPO))
    lines = text.splitlines()
    assert lines[0].startswith(
        "waza-ci: FAILED: 3 tasks · 6 runs (1 errored in execution, 5 graded, 3 failed) · "
        "3 failing graders"
    )
    assert lines[1] == "  why: 2 tasks did not pass (3 failing graders, 1 run errored in execution)"
    # Columns aligned: task, grader, file:line, runs; the reason last.
    assert lines[2] == "  verdicts re-graded: 10 program · kept from the results file: 2 keyword"
    assert lines[3:6] == [
        "  failed  fix-null-check  tests_pass               evals/code-review/eval.yaml:18"
        "              1/2  FAILED tests/test_user.py::test_none - AssertionError: expected None",
        "  failed  add-logging     _output_contains (kept)  "
        "evals/code-review/tasks/add-logging.yaml:1  2/2  Missing expected keyword: logger",
        "  failed  add-logging     lint_clean               "
        "evals/code-review/tasks/add-logging.yaml:9  1/2  "
        "src/app.py:3:1: F401 'os' imported but unused",
    ]
    assert "errored  fix-null-check  1 run(s) errored in the original execution" in text
    assert "\x1b" not in text


def test_at_most_twenty_rows_then_how_many_more() -> None:
    report = Evaluation.build(factories.huge_summary(tasks=30), repo_root=REPO)
    text = render_text(report)
    rows = [line for line in text.splitlines() if line.startswith(("  failed", "  error"))]
    assert len(rows) == MAX_ROWS
    assert f"  … {len(report.model.problems) - MAX_ROWS} more, see --summary" in text


def test_errors_carry_what_to_do() -> None:
    text = render_text(Evaluation.build(factories.error_summary(), repo_root=REPO))
    assert "command not found: gradle\n          -> install it in the job" in text


def test_colour_only_when_asked() -> None:
    report = Evaluation.build(factories.failing_summary(), repo_root=REPO)
    assert "\x1b[31m" in render_text(report, colour=True)
    assert "\x1b[" not in render_text(report, colour=False)


def test_untrusted_text_cannot_drive_the_terminal() -> None:
    summary = factories.one_failure_summary("fine\r\x1b[2J\x1b]0;pwned\x07 \u202eevil\u2028x")
    task = replace(summary.tasks[0], key="t\n::error::x")
    text = render_text(Evaluation.build(replace(summary, tasks=(task,)), repo_root=REPO))
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "t\\n::error::x" in text
    assert all(not line.startswith("::") for line in text.splitlines())


def test_for_log_escapes_visibly() -> None:
    assert for_log("a\nb\r\tc\x1b[31m\x9b\u2028\u2029\u202e\u2066\ud800é") == (
        "a\\nb\\r\tc\\x1b[31m\\x9b\\u2028\\u2029\\u202e\\u2066\\ud800é"
    )
