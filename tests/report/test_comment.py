"""The sticky comment's body says why: every failing row names its failing
graders, linked to their YAML lines, with the report's one-line reason; it fits GitHub's limit."""

from __future__ import annotations

import pytest

from waza_ci.errors import Location
from waza_ci.report.comment import render_comment
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.model import SourceLinks
from waza_ci.waza.scoring import (
    Diagnosis,
    GraderRef,
    GraderVerdict,
    GradeSummary,
    RunGrade,
    Status,
    TaskGrade,
)

MARKER = "<!-- waza-ci:sticky-comment:test -->"
LINKS = SourceLinks("https://github.example", "octo/repo", "c" * 40)
SUMMARY_URL = "https://github.example/octo/repo/actions/runs/9"


def _task(key: str, stderr: str | None) -> TaskGrade:
    ok = stderr is None
    diagnosis = None if ok else Diagnosis(exit_error="exit status 1", stderr=stderr or "")
    verdict = GraderVerdict("check", "program", float(ok), 1.0, ok, "", True, diagnosis=diagnosis)
    run = RunGrade(1, Status.PASSED if ok else Status.FAILED, (verdict,))
    graders = {"check": GraderRef("check", "program", Location("evals/eval.yaml", 12))}
    return TaskGrade(key, "r.json", key, key, (run,), graders)


def _comment(*tasks: TaskGrade) -> str:
    summary = GradeSummary("e", "evals/eval.yaml", ("r.json",), tasks)
    return render_comment(
        MARKER,
        check_name="waza",
        evaluation=Evaluation.build(summary, links=LINKS),
        check_url=None,
        summary_url=SUMMARY_URL,
    )


def test_without_a_baseline_each_failing_task_says_why() -> None:
    body = _comment(_task("t-ok", None), _task("t-bad", "setup\nAssertionError: 7 != 8"))
    (row,) = [line for line in body.splitlines() if line.startswith("| ❌ failing")]
    link = f"[`check`](https://github.example/octo/repo/blob/{'c' * 40}/evals/eval.yaml#L12)"
    assert row == f"| ❌ failing | `t-bad` | | 0/1 (0%) | {link}: `AssertionError: 7 != 8` |"
    assert "t-ok" not in body


@pytest.mark.slow
def test_many_failing_rows_fit_and_the_rest_is_counted() -> None:
    tasks = [_task(f"task-{i:05d}", "x" * 500 + f"\nAssertionError: {i}") for i in range(3000)]
    body = _comment(*tasks)
    assert len(body) <= 65_536
    assert f"more row(s) — see the [job summary]({SUMMARY_URL})" in body
    shown = [line for line in body.splitlines() if line.startswith("| ❌ failing")]
    assert 50 < len(shown) < 3000
    assert all("AssertionError: " in line for line in shown)
