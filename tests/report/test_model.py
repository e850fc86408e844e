"""The report model: reasons, counts, grouping, the banner, slowest graders and the JSON."""

from __future__ import annotations

import json

from tests.report import factories
from waza_ci.report.build import build_report
from waza_ci.report.evaluation import Evaluation
from waza_ci.report.model import SourceLinks, report_json_text
from waza_ci.report.reasons import failure_signature, format_duration, reason_for
from waza_ci.waza.scoring import Diagnosis, Problem

REPO = factories.REPO


def test_reasons_for_failures_and_errors() -> None:
    assert reason_for(factories.failed("g", "", stdout="")).text == "exit status 1, no output"
    assert reason_for(factories.failed("g", "", stdout="only stdout")).text == "only stdout"
    missing = reason_for(
        factories.failed("g", "python3: can't open file '/w/graders/g.py': [Errno 2] No such file")
    )
    assert missing.hint is not None and "working-directory" in missing.hint
    timeout = reason_for(factories.timed_out("g", 7, "graders.programTimeout in /r/.waza.yaml"))
    assert (
        timeout.text == "timed out after 7 s (limit from graders.programTimeout in /r/.waza.yaml)"
    )
    assert reason_for(factories.not_started("g", "node")).text == "command not found: node"
    kept = factories.verdict("tone", passed=False, feedback="Too terse.\nScore 2/5", regraded=False)
    assert reason_for(kept).text == "Score 2/5"


def test_a_program_that_could_not_chdir_says_so() -> None:
    verdict = factories.verdict(
        "g",
        error="x",
        diagnosis=Diagnosis(
            exit_error="chdir /w/evals: no such file or directory", problem=Problem.NOT_STARTED
        ),
    )
    reason = reason_for(verdict)
    assert reason.text == "working directory not found: /w/evals"
    assert reason.hint is not None and "working-directory" in reason.hint


def test_failure_signature_ignores_paths_and_quoted_names() -> None:
    one = "python3: can't open file '/w/graders/a.py': [Errno 2] No such file or directory"
    two = "python3: can't open file '/w/graders/b.py': [Errno 2] No such file or directory"
    assert failure_signature(one) == failure_signature(two)
    assert failure_signature("AssertionError: 1 == 2") != failure_signature("ValueError: x")


def test_format_duration() -> None:
    assert [format_duration(ms) for ms in (0, 999, 1000, 59_949, 125_000)] == [
        "0 ms",
        "999 ms",
        "1.0 s",
        "59.9 s",
        "2 min 05 s",
    ]


def test_counts_split_grader_and_cleanup_errors() -> None:
    evaluation = Evaluation.build(factories.error_summary(), repo_root=REPO)
    report = evaluation.model
    assert (
        evaluation.decision.verdict == "setup"
    )  # one of the errors is a command that is not installed
    assert (report.counts.grader_errors, report.counts.cleanup_errors) == (2, 1)
    assert report.counts.failures == 0  # the failing run is in an erroring row
    assert report.failed_tasks == ["fix-null-check", "rename-symbol"]


def test_banner_only_when_every_execution_fails_alike() -> None:
    same = build_report(factories.same_failure_everywhere_summary(), repo_root=REPO)
    assert same.common_failure is not None and same.common_failure.executions == 6
    assert build_report(factories.failing_summary(), repo_root=REPO).common_failure is None
    one = build_report(factories.one_failure_summary("boom"), repo_root=REPO)
    assert one.common_failure is None  # a single execution is not a pattern


def test_json_has_every_field_a_later_step_needs() -> None:
    links = SourceLinks("https://ghe.example", "octo/my repo", "a" * 40)
    evaluation = Evaluation.build(factories.failing_summary(), repo_root=REPO, links=links)
    data = json.loads(report_json_text(evaluation.model, evaluation.decision))
    assert data["version"] == 1
    assert data["verdict"] == "failed"
    assert data["failed_tasks"] == ["fix-null-check", "add-logging"]
    assert data["counts"]["runs_failed"] == 4
    task = data["tasks"][0]
    assert task["status"] == "failed" and task["runs_passed"] == 1 and task["runs_total"] == 3
    assert task["errored_runs"]["count"] == 1
    grader = next(g for g in task["graders"] if g["grader"] == "tests_pass")
    assert grader == {
        "grader": "tests_pass",
        "kind": "program",
        "status": "failed",
        "problem": None,
        "reason": "FAILED tests/test_user.py::test_none - AssertionError: expected None",
        "hint": None,
        "runs_failed": 1,
        "runs_total": 2,
        "regraded": True,
        "duration_ms": 2_500,
        "max_duration_ms": 2_400,
        "source": {
            "path": "evals/code-review/eval.yaml",
            "line": 18,
            "url": f"https://ghe.example/octo/my%20repo/blob/{'a' * 40}"
            "/evals/code-review/eval.yaml#L18",
        },
        "feedback": [
            {
                "text": "FAILED tests/test_user.py::test_none - AssertionError: expected None"
                "\n\n1 failed, 12 passed in 0.41s\n(exit status 1)",
                "runs": [1],
            }
        ],
        "notes": [],
        "flips": [],
    }
    assert data["counts"]["kinds"] == {
        "keyword": {"regraded": 0, "kept": 2},
        "program": {"regraded": 10, "kept": 0},
    }
    assert data["counts"]["flipped"] == 0
    assert data["slowest_graders"][0]["grader"] == "tests_pass"
    assert data["skipped"] == []
    assert data["not_evaluated"] == []
    assert data["another_eval"] == []


def test_json_lists_each_task_not_evaluated_with_why_and_its_first_error() -> None:
    evaluation = Evaluation.build(factories.not_evaluated_summary(), repo_root=REPO)
    data = json.loads(report_json_text(evaluation.model, evaluation.decision))
    assert data["verdict"] == "not-evaluated"
    assert data["decision"]["exit_code"] == 3
    assert data["not_evaluated"] == [
        {
            "test_id": "migrate-config",
            "why": "all-errored",
            "runs_errored": 2,
            "first_error": "429 Too Many Requests: rate limited",
            "accepted": False,
        },
        {
            "test_id": "update-docs",
            "why": "no-run",
            "runs_errored": 0,
            "first_error": None,
            "accepted": False,
        },
    ]
