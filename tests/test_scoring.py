"""waza's aggregation rules: weights, statuses, GradeOutcome, exit codes, stats."""

from __future__ import annotations

import pytest

from waza_ci.errors import FailOn
from waza_ci.scoring import (
    GradeSummary,
    RunGrade,
    TaskDigestInput,
    TaskGrade,
    Verdict,
    build_digest,
    build_test_stats,
    weighted_score,
)


def verdict(name: str, score: float, weight: float = 1, error: str | None = None) -> Verdict:
    return Verdict(name, "program", score, weight, score == 1, "", True, error)


def run(n: int, *verdicts: Verdict, status: str | None = None) -> RunGrade:
    passed = all(v.passed for v in verdicts)
    return RunGrade(n, status or ("passed" if passed else "failed"), verdicts, 100 * n)


def test_weights_of_zero_or_less_count_as_one() -> None:
    assert weighted_score([verdict("a", 1, 0), verdict("b", 0, 3)]) == pytest.approx(0.25)
    assert weighted_score([]) == 0.0


def test_grade_outcome_shape() -> None:
    task = TaskGrade(
        "t",
        "r.json",
        "t",
        "T",
        (run(1, verdict("a", 1), verdict("b", 0, 2)), run(2, verdict("a", 1), verdict("b", 1, 2))),
    )
    summary = GradeSummary("e", "e.yaml", ("r.json",), (task,))
    outcome = summary.outcome_json()
    assert outcome["passed"] is False
    assert outcome["tasks"]["t"]["overall_score"] == pytest.approx((1 / 3 + 1) / 2)
    assert outcome["tasks"]["t"]["grader_averages"] == {"a": 1.0, "b": 0.5}
    assert outcome["overall_score"] == outcome["tasks"]["t"]["overall_score"]


def test_exit_codes() -> None:
    failing = GradeSummary(
        "e", "e", ("r",), (TaskGrade("t", "r", "t", "t", (run(1, verdict("a", 0)),)),)
    )
    erroring = GradeSummary(
        "e", "e", ("r",), (TaskGrade("t", "r", "t", "t", (run(1, verdict("a", 0, error="x")),)),)
    )
    passing = GradeSummary(
        "e", "e", ("r",), (TaskGrade("t", "r", "t", "t", (run(1, verdict("a", 1)),)),)
    )
    assert passing.exit_code() == 0
    assert failing.exit_code() == 1
    assert failing.exit_code(FailOn.ERRORS) == 0
    assert erroring.exit_code(FailOn.ERRORS) == 3


def test_a_run_with_no_graders_passes_with_score_zero() -> None:
    task = TaskGrade("t", "r", "t", "t", (run(1),))
    assert task.passed and task.overall_score == 0.0


def test_stats_are_deterministic_and_flaky_is_detected() -> None:
    runs = [run(1, verdict("a", 1)), run(2, verdict("a", 0)), run(3, verdict("a", 1))]
    stats = build_test_stats(runs)
    assert stats is not None
    assert stats["flaky"] is True
    assert stats["flakiness_percent"] == pytest.approx(100 / 3)
    assert (stats["passed_runs"], stats["failed_runs"], stats["total_runs"]) == (2, 1, 3)
    assert stats["avg_duration_ms"] == 200
    assert stats == build_test_stats(runs)
    assert 0 <= stats["ci95_lo"] <= stats["ci95_hi"] <= 1


def test_digest_counts_statuses() -> None:
    digest = build_digest(
        [
            TaskDigestInput("passed", {"avg_score": 1, "avg_weighted_score": 1}, "g"),
            TaskDigestInput("failed", {"avg_score": 0.5, "avg_weighted_score": 0.25}, "g"),
        ],
        1234,
    )
    assert (digest["succeeded"], digest["failed"], digest["total_tests"]) == (1, 1, 2)
    assert digest["success_rate"] == 0.5 and digest["weighted_score"] == 0.625
    assert digest["groups"] == [{"name": "g", "passed": 1, "total": 2, "avg_score": 0.75}]
    assert digest["duration_ms"] == 1234
