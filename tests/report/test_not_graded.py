"""Every task appears in the report: a task no grader said anything about is
listed with why, and it does not count as passed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult, Project, make_results, make_run
from waza_ci.errors import Location
from waza_ci.report.annotations import build_annotations
from waza_ci.report.build import build_report
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.github_documents import render_markdown
from waza_ci.report.model import report_json
from waza_ci.report.terminal import render_text
from waza_ci.waza.scoring import (
    GraderRef,
    GraderVerdict,
    GradeSummary,
    RunGrade,
    Status,
    TaskGrade,
)


def _task(graders: dict[str, GraderRef], *runs: RunGrade) -> TaskGrade:
    return TaskGrade("t1", "r.json", "t1", "T1", runs, graders, Location("tasks/t1.yaml", 1))


JUDGE = {"says_good": GraderRef("says_good", "prompt", Location("eval.yaml", 4))}


def test_a_task_without_a_verdict_does_not_pass_and_says_why() -> None:
    task = _task(JUDGE, RunGrade(1, Status.PASSED, ()), RunGrade(2, Status.PASSED, ()))
    assert task.nothing_graded and task.runs_passed == 0
    assert task.status == Status.PASSED  # waza's own rule, kept in the regraded file's stats
    summary = GradeSummary("e", "eval.yaml", ("r.json",), (task,))
    assert (
        not summary.passed and Evaluation.build(summary).exit_code == 1 and summary.runs_failed == 2
    )
    assert summary.outcome_json()["tasks"]["t1"]["passed"] is False
    evaluated = Evaluation.build(summary)
    report = evaluated.model
    (listed,) = report.tasks
    assert listed.status == "failed" and report.failed_tasks == ["t1"]
    (row,) = listed.graders
    assert (row.grader, row.kind, row.runs_failed, row.runs_total) == ("says_good", "prompt", 2, 2)
    assert row.reason == (
        "not graded: a `prompt` grader needs a model, so waza-ci keeps its saved verdict, "
        "and the results file holds no verdict of says_good"
    )
    assert row.not_run == "not graded"
    assert report_json(report, evaluated.decision)["tasks"][0]["graders"][0]["graded"] is False
    assert "not graded" in render_text(evaluated)
    assert "_not graded_" in render_markdown(evaluated)


def test_a_task_without_graders_says_so() -> None:
    report = build_report(
        GradeSummary("e", "e.yaml", ("r",), (_task({}, RunGrade(1, "passed", ())),))
    )
    (row,) = report.tasks[0].graders
    assert row.reason == "not graded: the task has no graders" and row.status == "failed"


JUDGE_GRADER = "- name: says_good\n  type: prompt\n  config:\n    rubric: says good\n"
GradeProject = Callable[..., CliResult]


@pytest.mark.slow
def test_a_kept_verdict_is_graded(
    project: Project, grade_project: GradeProject, tmp_path: Path
) -> None:
    project.write_eval(JUDGE_GRADER)
    project.write_task("t1")
    kept = {
        "says_good": {
            "identifier": "says_good",
            "type": "prompt",
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


@pytest.mark.slow
def test_the_command_lists_the_task_nothing_graded(
    project: Project, grade_project: GradeProject, tmp_path: Path
) -> None:
    project.write_eval(JUDGE_GRADER)
    project.write_task("t1")
    project.write_results(make_results({"t1": [make_run(1)]}))
    done = grade_project("--report", "all", "--report-json", str(tmp_path / "r.json"))
    assert done.code == 1, done.stderr
    assert "t1  says_good (not graded)" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed_tasks"] == ["t1"]
    assert [g["grader"] for g in report["tasks"][0]["graders"]] == ["says_good"]


def test_a_grader_without_a_name_is_shown_as_such() -> None:
    verdict = GraderVerdict("", "program", 0.0, 1.0, False, "boom", True)
    task = _task(
        {"": GraderRef("", "program", Location("eval.yaml", 4))},
        RunGrade(1, Status.FAILED, (verdict,)),
    )
    evaluated = Evaluation.build(GradeSummary("e", "eval.yaml", ("r.json",), (task,)))
    report = evaluated.model
    assert "t1  (no name)  eval.yaml:4" in render_text(evaluated)
    (annotation,) = build_annotations(report)
    assert annotation.title.startswith("(no name) failed on t1")


def _verdict(name: str, kind: str, passed: bool, **fields: object) -> GraderVerdict:
    return GraderVerdict(name, kind, 1.0 if passed else 0.0, 1.0, passed, "", **fields)  # type: ignore[arg-type]


def test_a_judge_without_a_saved_verdict_fails_its_task_beside_regraded_verdicts() -> None:
    # A `prompt` grader with no saved verdict is "not graded" and never passes,
    # even when every grader that ran again passed.
    graders = {
        **JUDGE,
        "mentions": GraderRef("mentions", "text", Location("eval.yaml", 9)),
    }
    text_ok = _verdict("mentions", "text", True, regraded=True)
    run_1 = RunGrade(1, Status.PASSED, (text_ok,), ungraded=("says_good",))
    judged = _verdict("says_good", "prompt", True, regraded=False)
    run_2 = RunGrade(2, Status.PASSED, (judged, text_ok))
    task = _task(graders, run_1, run_2)
    assert not task.fully_graded and task.runs_passed == 1
    summary = GradeSummary("e", "eval.yaml", ("r.json",), (task,))
    assert (
        not summary.passed and Evaluation.build(summary).exit_code == 1 and summary.runs_failed == 1
    )
    evaluated = Evaluation.build(summary)
    report = evaluated.model
    assert report.tasks[0].status == "failed"
    judge_row = next(row for row in report.tasks[0].graders if row.grader == "says_good")
    assert (judge_row.status, judge_row.runs_failed, judge_row.runs_total) == ("failed", 1, 2)
    assert judge_row.feedback[-1].runs == (1,)
    assert judge_row.feedback[-1].text.startswith("not graded: a `prompt` grader needs a model")
    assert [k.kind for k in report.counts.kinds] == ["prompt", "text"]
    assert (report.counts.kinds[0].kept, report.counts.kinds[1].regraded) == (1, 2)


def test_a_verdict_that_flipped_since_the_run_is_shown_saved_and_now() -> None:
    graders = {"mentions": GraderRef("mentions", "text", Location("eval.yaml", 9))}
    now_failed = _verdict("mentions", "text", False, regraded=True, saved_passed=True)
    still_ok = _verdict("mentions", "text", True, regraded=True, saved_passed=True)
    task = _task(
        graders, RunGrade(1, Status.FAILED, (now_failed,)), RunGrade(2, Status.PASSED, (still_ok,))
    )
    evaluated = Evaluation.build(GradeSummary("e", "eval.yaml", ("r.json",), (task,)))
    report = evaluated.model
    (row,) = report.flipped
    assert [(f.run, f.saved_passed, f.passed) for f in row.flips] == [(1, True, False)]
    data = report_json(report, evaluated.decision)
    assert data["counts"]["flipped"] == 1
    flips = data["tasks"][0]["graders"][0]["flips"]
    assert flips == [{"run": 1, "saved": "passed", "now": "failed"}]
    markdown = render_markdown(evaluated)
    assert "### Changed since the run" in markdown and "passed → failed" in markdown
    assert "changed t1  mentions  since the run: run 1 passed → failed" in render_text(evaluated)


def test_a_kept_verdict_never_hides_a_failure() -> None:
    graders = {**JUDGE}
    failing_judge = _verdict("says_good", "prompt", False, regraded=False)
    task = _task(graders, RunGrade(1, Status.FAILED, (failing_judge,)))
    summary = GradeSummary("e", "eval.yaml", ("r.json",), (task,))
    assert not summary.passed and Evaluation.build(summary).exit_code == 1
    (row,) = build_report(summary).problems
    assert (row.grader, row.status, row.not_run) == ("says_good", "failed", "kept")
