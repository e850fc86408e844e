"""Every task appears in the report (issue 19 §5): a task no grader said anything about is
listed with why, and it does not count as passed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult, Project, make_results, make_run
from waza_ci.errors import Location
from waza_ci.report.annotations import build_annotations
from waza_ci.report.build import build_report
from waza_ci.report.markdown import render_markdown
from waza_ci.report.text import render_text
from waza_ci.waza.scoring import (
    STATUS_FAILED,
    STATUS_PASSED,
    GraderRef,
    GradeSummary,
    RunGrade,
    TaskGrade,
    Verdict,
)


def _task(graders: dict[str, GraderRef], *runs: RunGrade) -> TaskGrade:
    return TaskGrade("t1", "r.json", "t1", "T1", runs, graders, Location("tasks/t1.yaml", 1))


TEXT = {"says_good": GraderRef("says_good", "text", Location("eval.yaml", 4))}


def test_a_task_without_a_verdict_does_not_pass_and_says_why() -> None:
    task = _task(TEXT, RunGrade(1, STATUS_PASSED, ()), RunGrade(2, STATUS_PASSED, ()))
    assert task.nothing_graded and task.runs_passed == 0
    assert task.status == STATUS_PASSED  # waza's own rule, kept in the regraded file's stats
    summary = GradeSummary("e", "eval.yaml", ("r.json",), (task,))
    assert not summary.passed and summary.exit_code() == 1 and summary.runs_failed == 2
    assert summary.outcome_json()["tasks"]["t1"]["passed"] is False
    report = build_report(summary)
    (listed,) = report.tasks
    assert listed.status == "failed" and report.failed_tasks == ["t1"]
    (row,) = listed.graders
    assert (row.grader, row.kind, row.runs_failed, row.runs_total) == ("says_good", "text", 2, 2)
    assert row.reason.startswith("not graded: waza-ci does not run `text` graders")
    assert row.not_run == "not graded"
    assert report.to_json()["tasks"][0]["graders"][0]["graded"] is False
    assert "not graded" in render_text(report)
    assert "_not graded_" in render_markdown(report)


def test_a_task_without_graders_says_so() -> None:
    report = build_report(
        GradeSummary("e", "e.yaml", ("r",), (_task({}, RunGrade(1, "passed", ())),))
    )
    (row,) = report.tasks[0].graders
    assert row.reason == "not graded: the task has no graders" and row.status == "failed"


TEXT_GRADER = "- name: says_good\n  type: text\n  config:\n    contains: [good]\n"
GradeProject = Callable[..., CliResult]


def test_a_kept_verdict_is_graded(
    project: Project, grade_project: GradeProject, tmp_path: Path
) -> None:
    project.write_eval(TEXT_GRADER)
    project.write_task("t1")
    kept = {
        "says_good": {
            "identifier": "says_good",
            "type": "text",
            "score": 1.0,
            "weight": 1.0,
            "passed": True,
            "feedback": "ok",
        }
    }
    project.write_results(make_results({"t1": [make_run(1, validations=kept)]}))
    done = grade_project("--report-json", str(tmp_path / "r.json"))
    assert done.code == 0, done.stderr
    (row,) = json.loads((tmp_path / "r.json").read_text())["tasks"][0]["graders"]
    assert row["status"] == "passed" and "graded" not in row


def test_the_command_lists_the_task_nothing_graded(
    project: Project, grade_project: GradeProject, tmp_path: Path
) -> None:
    project.write_eval(TEXT_GRADER)
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1)]}))
    done = grade_project("--report", "all", "--report-json", str(tmp_path / "r.json"))
    assert done.code == 1, done.stderr
    assert "t1  says_good (not graded)" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed_tasks"] == ["t1"]
    assert [g["grader"] for g in report["tasks"][0]["graders"]] == ["says_good"]


def test_a_grader_without_a_name_is_shown_as_such() -> None:
    verdict = Verdict("", "program", 0.0, 1.0, False, "boom", True)
    task = _task(
        {"": GraderRef("", "program", Location("eval.yaml", 4))},
        RunGrade(1, STATUS_FAILED, (verdict,)),
    )
    report = build_report(GradeSummary("e", "eval.yaml", ("r.json",), (task,)))
    assert "t1  (no name)  eval.yaml:4" in render_text(report)
    (annotation,) = build_annotations(report)
    assert annotation.title.startswith("(no name) failed on t1")
