"""waza's aggregation rules: weights, statuses, GradeOutcome, exit codes, stats."""

from __future__ import annotations

import pytest

from waza_ci.waza.digest import TaskDigestInput, build_digest, build_test_stats
from waza_ci.waza.scoring import GraderVerdict, GradeSummary, RunGrade, TaskGrade, weighted_score


def verdict(name: str, score: float, weight: float = 1, error: str | None = None) -> GraderVerdict:
    return GraderVerdict(name, "program", score, weight, score == 1, "", True, error)


def run(n: int, *verdicts: GraderVerdict, status: str | None = None) -> RunGrade:
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


def test_task_stats_carry_the_wilson_pass_rate_interval_from_two_runs() -> None:
    # waza's example: 2 passes of 3 -> 0.6667 [0.2077, 0.9385] (schema 1.5).
    runs = [run(1, verdict("a", 1)), run(2, verdict("a", 0)), run(3, verdict("a", 1))]
    stats = build_test_stats(runs)
    assert stats is not None
    ci = stats["pass_rate_ci"]
    assert ci["mean"] == pytest.approx(0.6667, abs=1e-4)
    assert ci["lower"] == pytest.approx(0.2077, abs=1e-4)
    assert ci["upper"] == pytest.approx(0.9385, abs=1e-4)
    assert list(stats)[-3:] == ["avg_duration_ms", "bootstrap_ci", "pass_rate_ci"]
    assert "is_significant" not in stats  # waza 1.5 no longer writes it
    one = build_test_stats([run(1, verdict("a", 1))])
    assert one is not None and "pass_rate_ci" not in one and "bootstrap_ci" not in one


def _digest_task(status: str, passed: int, total: int) -> TaskDigestInput:
    stats = {
        "avg_score": passed / total,
        "avg_weighted_score": passed / total,
        "passed_runs": passed,
        "total_runs": total,
    }
    return TaskDigestInput(status, stats)


def test_digest_statistics_have_success_rate_interval_and_pass_hat_k() -> None:
    # waza's example: tasks with 3/3 and 1/3 passes.
    digest = build_digest([_digest_task("passed", 3, 3), _digest_task("failed", 1, 3)], 10, 3)
    statistics = digest["statistics"]
    assert list(statistics) == ["bootstrap_ci", "success_rate_ci", "pass_hat_k"]
    assert statistics["pass_hat_k"] == pytest.approx([0.6667, 0.5, 0.5], abs=1e-4)
    ci = statistics["success_rate_ci"]
    assert (ci["mean"], ci["confidence_level"]) == (0.5, 0.95)
    assert ci["lower"] == pytest.approx(0.0945, abs=1e-4)
    assert ci["upper"] == pytest.approx(0.9055, abs=1e-4)
    assert "is_significant" not in statistics
    # 3/3 and 2/2: K is the fewest trials of any task.
    both = build_digest([_digest_task("passed", 3, 3), _digest_task("passed", 2, 2)], 10, 3)
    assert both["statistics"]["pass_hat_k"] == [1.0, 1.0]


def test_digest_statistics_only_with_several_runs_per_task_and_two_tasks() -> None:
    tasks = [_digest_task("passed", 3, 3), _digest_task("failed", 1, 3)]
    assert "statistics" not in build_digest(tasks, 10, 1)
    assert "statistics" not in build_digest(tasks[:1], 10, 3)


def test_digest_places_usage_after_groups_and_before_statistics() -> None:
    tasks = [
        TaskDigestInput("passed", {"avg_score": 1, "avg_weighted_score": 1}, "g"),
        TaskDigestInput("failed", {"avg_score": 0, "avg_weighted_score": 0}, "g"),
    ]
    digest = build_digest(tasks, 10, 2, usage={"turns": 1})
    assert list(digest)[-3:] == ["groups", "usage", "statistics"]
    assert "usage" not in build_digest(tasks, 10, 2)
